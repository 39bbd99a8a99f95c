/* SPDX-License-Identifier: MIT */
/*
 * The method table: every request a server answers is dispatched here, by
 * its method name, to the feature that registered it. Built once per
 * process from mcp__server_features (the list is fixed at build time), so
 * a server pays nothing for it; what a server's options turn off
 * (offered_if) is checked per request.
 *
 * Lookup is an open-addressed table hashed on the name's length and three
 * of its bytes: one probe and one memcmp for every method there is, about
 * what the first compare of a chain of strcmp cost, and the same for the
 * last method as for the first.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "server/internal.h"

/* Room for four times the methods there are, so probes stay short. */
#define SLOTS 128
/* How many features may register the same name (each takes the name over
 * from the one before). */
#define MAX_LAYERS 4

typedef struct slot {
    const char *name;  /* NULL: empty */
    size_t len;
    unsigned layers;   /* how many registered the name */
    const mcp__method *method[MAX_LAYERS]; /* the last registered first */
} slot;

static slot table[SLOTS];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static unsigned slot_index(const char *name, size_t n)
{
    unsigned h = (unsigned)n * 31u + (unsigned char)name[0] * 7u +
                 (unsigned char)name[n - 1] * 3u + (unsigned char)name[n / 2];
    return h & (SLOTS - 1);
}

/* The slot of name, or the empty one where it would go; NULL when the
 * table is full. */
static slot *find_slot(const char *name, size_t n)
{
    if (!n)
        return NULL;
    unsigned i = slot_index(name, n);
    for (unsigned probes = 0; probes < SLOTS; probes++, i = (i + 1) & (SLOTS - 1)) {
        slot *s = &table[i];
        if (!s->name || (s->len == n && memcmp(s->name, name, n) == 0))
            return s;
    }
    return NULL;
}

static void build_table(void)
{
    for (size_t f = 0; mcp__server_features[f]; f++) {
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
            memmove(&s->method[1], &s->method[0], s->layers * sizeof s->method[0]);
            s->method[0] = m;
            s->layers++;
        }
    }
}

void mcp__features_init(void)
{
    pthread_once(&table_once, build_table);
}

/* -32601 with the method as the client sent it. */
static void not_found(conn *c, mcp_handle h, const mcp_message *msg)
{
    char text[160], shown[160];
    mcp__show_string(shown, sizeof shown, msg->method, msg->method_len, 100, 200);
    snprintf(text, sizeof text, "Method not found: %.141s", shown);
    mcp_session_reply_error(c->driver.session, h, MCP_WIRE_METHOD_NOT_FOUND, text, NULL);
}

static void run(conn *c, mcp_handle h, const mcp_message *msg, const mcp__method *m)
{
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
    if (m->offered_if && !(c->server->opts.listen_kinds & m->offered_if)) {
        mcp_session_reply_error(ss, h, MCP_WIRE_METHOD_NOT_FOUND, m->not_offered, NULL);
        return;
    }
    m->handle(c, h, msg, NULL);
}

void mcp__method_dispatch(conn *c, mcp_handle h, const mcp_message *msg)
{
    const slot *s = find_slot(msg->method, msg->method_len);
    if (!s || !s->name) {
        not_found(c, h, msg);
        return;
    }
    run(c, h, msg, s->method[0]);
}

void mcp__method_pass_on(conn *c, mcp_handle h, const mcp_message *msg, const mcp__method *m)
{
    const slot *s = find_slot(msg->method, msg->method_len);
    for (unsigned i = 0; s && s->name && i + 1 < s->layers; i++)
        if (s->method[i] == m) {
            run(c, h, msg, s->method[i + 1]);
            return;
        }
    not_found(c, h, msg);
}
