/* SPDX-License-Identifier: MIT */
/*
 * The method table: every request a server answers is dispatched here, by
 * its method name, to the feature that registered it. Built once per
 * process from mcp__server_features (the list is fixed at build time), so
 * a server pays nothing for it; which methods a server does not offer (a
 * capability it does not declare) is decided once per server. The
 * features' states and hooks are laid out here too, once.
 *
 * Lookup is an open-addressed table hashed on the name's first and last
 * 8 bytes and its length: one probe and two word compares for each method
 * registered today (no two share a row; a name over 16 bytes also compares
 * its middle), the same for the last method as for the first. Measured
 * against the chain of compares it replaced: fewer instructions for
 * tools/call and 4 to 10 times fewer for the others.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/core/core.h"

/* Room for four times the methods there are, so probes stay short. */
#define SLOTS MCP__METHOD_SLOTS
/* How many features may register the same name (each takes the name over
 * from the one before). */
#define MAX_LAYERS 4
/* Features a build may have. */
#define MAX_FEATURES 32

typedef struct slot {
    const char *name;  /* NULL: empty */
    size_t len;
    uint64_t head, tail; /* the name's first and last 8 bytes (words_of) */
    unsigned layers;   /* how many registered the name */
    const mcp__method *method[MAX_LAYERS]; /* the last registered first */
    unsigned feature[MAX_LAYERS];          /* whose (mcp__server_features) */
} slot;

static slot table[SLOTS];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

/* Where each feature's state is in a connection's feature_state, and in
 * a server's. */
static size_t state_offset[MAX_FEATURES], server_offset[MAX_FEATURES];
static size_t state_size, server_state_size;
static size_t nfeatures;

/* The features with a hook called per request, found once. */
typedef struct hooked {
    const mcp__feature *f;
    size_t offset;
} hooked;
static hooked settle_hooks[MAX_FEATURES], starting_hooks[MAX_FEATURES],
    unanswered_hooks[MAX_FEATURES];
static size_t nsettle, nstarting, nunanswered;

/* The first and the last 8 bytes of a name (overlapping when shorter than
 * 16; zero-padded when shorter than 8): two loads that decide most
 * compares, since no method name is longer than 16 bytes by much. */
static inline void words_of(const char *name, size_t n, uint64_t *head, uint64_t *tail)
{
    if (n >= 8) {
        memcpy(head, name, 8);
        memcpy(tail, name + n - 8, 8);
    } else {
        *head = 0;
        memcpy(head, name, n);
        *tail = *head;
    }
}

static inline unsigned slot_index(uint64_t head, uint64_t tail, size_t n)
{
    return (unsigned)(((head ^ (tail * 31u) ^ n) * 0x9E3779B97F4A7C15u) >> 57) & (SLOTS - 1);
}

/* The slot of name, or the empty one where it would go; NULL when the
 * table is full. */
static inline slot *find_slot(const char *name, size_t n)
{
    if (!n)
        return NULL;
    uint64_t head, tail;
    words_of(name, n, &head, &tail);
    unsigned i = slot_index(head, tail, n);
    for (unsigned probes = 0; probes < SLOTS; probes++, i = (i + 1) & (SLOTS - 1)) {
        slot *s = &table[i];
        /* The bytes between the two words only for names over 16. */
        if (!s->name || (s->len == n && s->head == head && s->tail == tail &&
                         (n <= 16 || memcmp(s->name + 8, name + 8, n - 16) == 0)))
            return s;
    }
    return NULL;
}

static void lay_out(size_t f)
{
    const mcp__feature *ft = mcp__server_features[f];
    size_t align = _Alignof(max_align_t);
    state_offset[f] = state_size;
    state_size += (ft->conn_state_size + align - 1) / align * align;
    server_offset[f] = server_state_size;
    server_state_size += (ft->server_state_size + align - 1) / align * align;
    hooked h = {ft, state_offset[f]};
    if (ft->request_settled)
        settle_hooks[nsettle++] = h;
    if (ft->request_starting)
        starting_hooks[nstarting++] = h;
    if (ft->request_unanswered)
        unanswered_hooks[nunanswered++] = h;
}

static void build_table(void)
{
    for (size_t f = 0; mcp__server_features[f]; f++) {
        if (f == MAX_FEATURES) {
            fprintf(stderr, "libmcp: more than %d server features: the rest left out\n",
                    MAX_FEATURES);
            break;
        }
        nfeatures = f + 1;
        lay_out(f);
        const mcp__feature *ft = mcp__server_features[f];
        for (size_t i = 0; i < ft->nmethods; i++) {
            const mcp__method *m = &ft->methods[i];
            size_t n = strlen(m->name);
            slot *s = find_slot(m->name, n);
            if (!s || s->layers == MAX_LAYERS) {
                /* A build with more methods than the table holds: said
                 * once, loudly; those methods answer -32601. */
                fprintf(stderr, "libmcp: method table full: %s not registered\n", m->name);
                continue;
            }
            s->name = m->name;
            s->len = n;
            words_of(m->name, n, &s->head, &s->tail);
            memmove(&s->method[1], &s->method[0], s->layers * sizeof s->method[0]);
            memmove(&s->feature[1], &s->feature[0], s->layers * sizeof s->feature[0]);
            s->method[0] = m;
            s->feature[0] = (unsigned)f;
            s->layers++;
        }
    }
}

void mcp__features_init(void)
{
    pthread_once(&table_once, build_table);
}

size_t mcp__features_state_size(void)
{
    return state_size;
}

static void *state_at(conn *c, size_t offset)
{
    return c->feature_state + offset;
}

/* Where feature f is in mcp__server_features. */
static size_t index_of(const mcp__feature *f)
{
    size_t i = 0;
    while (i < nfeatures && mcp__server_features[i] != f)
        i++;
    return i;
}

void *mcp__server_state(mcp_server *s, const mcp__feature *f)
{
    size_t i = index_of(f);
    return i < nfeatures ? s->feature_state + server_offset[i] : NULL;
}

/* Whether caps declare the capability at path ("a.b"): present, neither
 * false nor null. */
static bool declares(const mcp_json *caps, const char *path)
{
    const mcp_json *v = caps;
    for (const char *p = path; v && *p;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        v = mcp_json_object_getn(v, p, n);
        p += n + (dot != NULL);
    }
    bool b = true;
    return v && mcp_json_typeof(v) != MCP_JSON_NULL &&
           (mcp_json_typeof(v) != MCP_JSON_BOOL || (mcp_json_get_bool(v, &b) == MCP_OK && b));
}

int mcp__features_server_init(mcp_server *s)
{
    mcp_json *caps = (mcp_json *)mcp_json_doc_root(s->caps);
    for (size_t i = 0; i < nfeatures; i++)
        if (mcp__server_features[i]->declare &&
            (mcp__server_features[i]->declare(s, s->caps, caps) != MCP_OK ||
             mcp_json_doc_error(s->caps) != MCP_OK))
            return MCP_ERR_NOMEM;
    for (unsigned i = 0; i < SLOTS; i++)
        for (unsigned l = 0; l < table[i].layers; l++)
            if (table[i].method[l]->capability && !declares(caps, table[i].method[l]->capability))
                s->method_unoffered[i] |= (unsigned char)(1u << l);
    s->feature_state = calloc(1, server_state_size ? server_state_size : 1);
    if (!s->feature_state)
        return MCP_ERR_NOMEM;
    for (; s->features_ready < nfeatures; s->features_ready++) {
        const mcp__feature *f = mcp__server_features[s->features_ready];
        int rc = f->server_init
                     ? f->server_init(s, s->feature_state + server_offset[s->features_ready])
                     : MCP_OK;
        if (rc != MCP_OK)
            return rc;
    }
    return MCP_OK;
}

void mcp__features_server_free(mcp_server *s)
{
    /* Also the one whose init failed: server_free copes with a half state. */
    size_t n = s->features_ready < nfeatures ? s->features_ready + 1 : nfeatures;
    for (size_t i = 0; s->feature_state && i < n; i++)
        if (mcp__server_features[i]->server_free)
            mcp__server_features[i]->server_free(s, s->feature_state + server_offset[i]);
    free(s->feature_state);
    s->feature_state = NULL;
}

void *mcp__conn_state(conn *c, const mcp__feature *f)
{
    size_t i = index_of(f);
    return i < nfeatures ? state_at(c, state_offset[i]) : NULL;
}

/* -32601 with the method as the client sent it. */
static void not_found(conn *c, mcp_handle h, const mcp_message *msg)
{
    char text[160], shown[160];
    mcp__show_string(shown, sizeof shown, msg->method, msg->method_len, 100, 200);
    snprintf(text, sizeof text, "Method not found: %.141s", shown);
    mcp_session_reply_error(c->driver.session, h, MCP_WIRE_METHOD_NOT_FOUND, text, NULL);
}

static inline void run(conn *c, mcp_handle h, const mcp_message *msg, const slot *s,
                       unsigned layer)
{
    const mcp__method *m = s->method[layer];
    mcp_server *server = c->server;
    mcp_session *ss = c->driver.session;
    if (m->eras != MCP__ERAS_ALL) {
        const char *version = mcp_session_inbound_version(ss, h);
        unsigned era = mcp_protocol_modern(version) ? MCP__ERA_2026 : MCP__ERA_2025;
        if (!(m->eras & era)) {
            char text[160];
            snprintf(text, sizeof text,
                     "Method not found: %s is not part of protocol revision %s", m->name,
                     version ? version : "?");
            mcp_session_reply_error(ss, h, MCP_WIRE_METHOD_NOT_FOUND, text, NULL);
            return;
        }
    }
    if (m->capability && (server->method_unoffered[s - table] & (1u << layer))) {
        mcp_session_reply_error(ss, h, MCP_WIRE_METHOD_NOT_FOUND, m->not_offered, NULL);
        return;
    }
    m->handle(c, h, msg, state_at(c, state_offset[s->feature[layer]]));
}

void mcp__method_dispatch(conn *c, mcp_handle h, const mcp_message *msg)
{
    const slot *s = find_slot(msg->method, msg->method_len);
    if (!s || !s->name) {
        not_found(c, h, msg);
        return;
    }
    run(c, h, msg, s, 0);
}

void mcp__method_pass_on(conn *c, mcp_handle h, const mcp_message *msg, const mcp__method *m)
{
    const slot *s = find_slot(msg->method, msg->method_len);
    for (unsigned i = 0; s && s->name && i + 1 < s->layers; i++)
        if (s->method[i] == m) {
            run(c, h, msg, s, i + 1);
            return;
        }
    not_found(c, h, msg);
}

/* Hooks ------------------------------------------------------------------------ */

void mcp__features_server_stopping(mcp_server *s)
{
    for (size_t i = 0; i < nfeatures; i++)
        if (mcp__server_features[i]->server_stopping)
            mcp__server_features[i]->server_stopping(
                s, mcp__server_state(s, mcp__server_features[i]));
}

void mcp__features_news(mcp_server *s, unsigned kind, const char *uri)
{
    for (size_t i = 0; mcp__server_features[i]; i++)
        if (mcp__server_features[i]->news)
            mcp__server_features[i]->news(s, mcp__server_state(s, mcp__server_features[i]), kind,
                                          uri);
}

void mcp__features_loop_opened(mcp_server *s)
{
    for (size_t i = 0; mcp__server_features[i]; i++)
        if (mcp__server_features[i]->loop_opened)
            mcp__server_features[i]->loop_opened(s, mcp__server_state(s, mcp__server_features[i]));
}

void mcp__features_loop_closing(mcp_server *s)
{
    for (size_t i = 0; i < nfeatures; i++)
        if (mcp__server_features[i]->loop_closing)
            mcp__server_features[i]->loop_closing(s, mcp__server_state(s, mcp__server_features[i]));
}

void mcp__features_conn_ending(conn *c, const char *why)
{
    for (size_t i = 0; i < nfeatures; i++)
        if (mcp__server_features[i]->conn_ending)
            mcp__server_features[i]->conn_ending(c, state_at(c, state_offset[i]), why);
}

void mcp__features_conn_free(conn *c)
{
    for (size_t i = 0; i < nfeatures; i++)
        if (mcp__server_features[i]->conn_free)
            mcp__server_features[i]->conn_free(c, state_at(c, state_offset[i]));
}

void mcp__features_notification(conn *c, const mcp_message *msg)
{
    for (size_t i = 0; i < nfeatures; i++)
        if (mcp__server_features[i]->notification)
            mcp__server_features[i]->notification(c, state_at(c, state_offset[i]), msg);
}

void mcp__features_listen(conn *c, mcp_handle h, const mcp_json *uris, bool open)
{
    (void)h;
    for (size_t i = 0; i < nfeatures; i++)
        if (mcp__server_features[i]->listen)
            mcp__server_features[i]->listen(c, state_at(c, state_offset[i]), uris, open);
}

void mcp__features_published(conn *c, unsigned kind, const char *uri)
{
    for (size_t i = 0; i < nfeatures; i++)
        if (mcp__server_features[i]->published)
            mcp__server_features[i]->published(c, state_at(c, state_offset[i]), kind, uri);
}

void mcp__features_request_routed(mcp__request *r, mcp_handle with)
{
    for (size_t i = 0; i < nfeatures && !r->settled; i++)
        if (mcp__server_features[i]->request_routed)
            mcp__server_features[i]->request_routed(r, state_at(r->conn, state_offset[i]), with);
}

void mcp__features_request_settled(mcp__request *r, const mcp__settle *how)
{
    for (size_t i = 0; i < nsettle; i++)
        settle_hooks[i].f->request_settled(r, state_at(r->conn, settle_hooks[i].offset), how);
}

bool mcp__features_request_starting(mcp__request *r)
{
    for (size_t i = 0; i < nstarting; i++)
        if (!starting_hooks[i].f->request_starting(r, state_at(r->conn, starting_hooks[i].offset)))
            return false;
    return true;
}

int mcp__features_request_unanswered(mcp__request *r)
{
    for (size_t i = 0; i < nunanswered; i++) {
        int rc = unanswered_hooks[i].f->request_unanswered(
            r, state_at(r->conn, unanswered_hooks[i].offset));
        if (rc != MCP_ERR_NOT_FOUND)
            return rc;
    }
    return MCP_ERR_NOT_FOUND;
}

int mcp__features_request_become_task(mcp__request *r)
{
    for (size_t i = 0; i < nfeatures; i++)
        if (mcp__server_features[i]->request_become_task)
            return mcp__server_features[i]->request_become_task(r, state_at(r->conn,
                                                                            state_offset[i]));
    return MCP_ERR_NOT_FOUND;
}

const char *mcp__features_error_problem(mcp__request *r, int64_t code, const mcp_json *data)
{
    for (size_t i = 0; i < nfeatures; i++) {
        const char *why = mcp__server_features[i]->error_problem
                              ? mcp__server_features[i]->error_problem(r, code, data)
                              : NULL;
        if (why)
            return why;
    }
    return NULL;
}
