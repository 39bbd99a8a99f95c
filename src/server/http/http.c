/* SPDX-License-Identifier: MIT */
/*
 * Binding the server to Streamable HTTP (src/transport/http_server.c): one
 * endpoint for every revision.
 *
 * A peer is the transport of one connection (core/conn.c): a 2025 session,
 * opened by an `initialize` POST and named by its Mcp-Session-Id, or one
 * 2026-07-28 request, opened by its POST and gone with its answer. Each POST
 * that carries a request is a route of its peer; the session engine answers
 * on that route, and the peer turns what comes into the exchange's
 * response: JSON when the result comes first, an event stream when
 * anything comes before it. Route 0 of a 2025 session is its GET stream.
 *
 * Cancellation by era, as the engine's table says: a 2026 route that closes
 * cancels its request (mcp_session_route_closed); in 2025 a dropped
 * connection cancels nothing, a posted notifications/cancelled does, and it
 * reaches only its own session's engine: no session can name another's
 * request. Either way the engine tells us (on_route_ended) to end the
 * cancelled request's exchange at once.
 *
 * Loop thread only.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/opts.h"
#include "json/scan.h"
#include "server/http/http.h"
#include "session/entry.h"
#include "transport/http_headers.h"

#define SESSION_HEADER "Mcp-Session-Id"
#define VERSION_HEADER "MCP-Protocol-Version"
/* Writing responses -------------------------------------------------------- */

static void json_error_body(mcp_buf *b, const mcp_id *id, int64_t code, const char *message)
{
    mcp_encode_error(b, id, code, message, NULL);
    if (b->len && b->data[b->len - 1] == '\n')
        b->data[--b->len] = '\0';
}

/* An error answered here, not by the engine. */
void mcp__http_respond_error(mcp__http_exchange *x, unsigned status, const mcp_id *id,
                             int64_t code, const char *message, const char *const *headers)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp_id none = {0};
    json_error_body(&b, id ? id : &none, code, message);
    if (!b.len) /* a message or id that cannot be written (memory, UTF-8) */
        json_error_body(&b, &none, code, "the request was refused");
    mcp__http_respond(x, status, "application/json", b.data, b.len, headers);
    mcp_buf_free(&b);
}

static void respond_error(mcp__http_exchange *x, unsigned status, const mcp_id *id, int64_t code,
                          const char *message)
{
    mcp__http_respond_error(x, status, id, code, message, NULL);
}

/* The transport of a peer -------------------------------------------------- */

static void unlink_session(hpeer *p)
{
    if (!p->legacy || (!p->prev && p->l->sessions != p))
        return;
    if (p->prev)
        p->prev->next = p->next;
    else
        p->l->sessions = p->next;
    if (p->next)
        p->next->prev = p->prev;
    p->next = p->prev = NULL;
    p->l->nsessions--;
}

static void listener_free(http_listener *l)
{
    mcp_buf_free(&l->scratch);
    mcp__http_oauth_free(l->oauth);
    free(l);
}

static void peer_close(mcp__transport *t, void (*done)(void *ud), void *ud)
{
    hpeer *p = (hpeer *)t;
    /* A response still being written finishes; an unanswered one ends. */
    while (p->routes) {
        hroute *r = p->routes;
        if (r->answered)
            mcp__route_drop(r); /* finishes by itself */
        else
            mcp__route_end_unanswered(r);
    }
    unlink_session(p);
    http_listener *l = p->l;
    if (p->finished)
        for (hpeer **q = &l->finished; *q; q = &(*q)->next_finished)
            if (*q == p) {
                *q = p->next_finished;
                break;
            }
    free(p->credential);
    free(p);
    /* Connections are swept after the listener closed (a stop): the last
     * peer frees it. */
    if (--l->npeers == 0 && l->closed)
        listener_free(l);
    if (done)
        done(ud);
}

static void peer_stop_input(mcp__transport *t)
{
    ((hpeer *)t)->ended = true;
}

static const mcp__transport_ops peer_ops = {
    .send = mcp__peer_send,
    .close_route = mcp__peer_close_route,
    .close = peer_close,
    .stop_input = peer_stop_input,
    .unavailable = mcp__peer_unavailable,
};

/* Peers: open, finish ------------------------------------------------------------ */

static void reap(uv_timer_t *t)
{
    http_listener *l = t->data;
    while (l->finished) {
        hpeer *p = l->finished;
        l->finished = p->next_finished;
        p->finished = false;
        /* The conversation is over: the connection drains and goes
         * (core/conn.c), closing this transport. */
        if (p->t.sink.input_ended)
            p->t.sink.input_ended(p->t.sink.ud, p->legacy ? "session ended" : "request answered",
                                  false);
    }
}

/* End p from the loop, never inside the call that finished it. */
void mcp__peer_finish(hpeer *p)
{
    if (p->finished || p->ended)
        return;
    p->finished = true;
    p->ended = true;
    p->next_finished = p->l->finished;
    p->l->finished = p;
    if (!uv_is_active((uv_handle_t *)&p->l->reaper)) /* else it reaps p too */
        uv_timer_start(&p->l->reaper, reap, 0, 0);
}

static hpeer *peer_open(http_listener *l, bool legacy)
{
    hpeer *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->t.ops = &peer_ops;
    p->l = l;
    p->legacy = legacy;
    p->last_used = mcp__now_ms();
    if (legacy && !mcp__random_hex(p->sid, 32)) {
        free(p);
        return NULL;
    }
    if (mcp__conn_open(l->server, &p->t, &p->conn) != MCP_OK) {
        free(p);
        return NULL;
    }
    l->npeers++;
    if (legacy) {
        p->next = l->sessions;
        if (l->sessions)
            l->sessions->prev = p;
        l->sessions = p;
        l->nsessions++;
    }
    return p;
}

/* Ending a 2025 session (DELETE, expiry, the cap): its calls are cancelled
 * with the reason, their exchanges end. */
static void session_end(hpeer *p, const char *reason)
{
    if (p->ended)
        return;
    unlink_session(p);
    mcp_session_close_reason(p->conn->driver.session, mcp__now_ms(), reason);
    mcp__peer_finish(p);
}

static hpeer *find_session(http_listener *l, const char *sid)
{
    for (hpeer *p = l->sessions; p; p = p->next)
        if (!p->ended && strcmp(p->sid, sid) == 0)
            return p;
    return NULL;
}

static void expire(uv_timer_t *t)
{
    http_listener *l = t->data;
    uint64_t now = mcp__now_ms();
    for (hpeer *p = l->sessions, *next; p; p = next) {
        next = p->next;
        /* Streams waiting for a resume do not keep a session alive; a
         * client reading one does. */
        bool attached = mcp__routes_expire(p, now);
        if (!attached && now - p->last_used >= l->opts.session_idle_ms) {
            mcp__server_log(l->server, MCP_LOG_INFO, "session %.8s… expired after %llu ms idle",
                            p->sid, (unsigned long long)(now - p->last_used));
            session_end(p, "session expired");
        }
    }
}

/* At the session cap: the session unused longest among those no client is
 * reading goes, so that a burst of initializes cannot lock everyone out
 * until expiry. False when every session is in use. */
static bool evict_one(http_listener *l)
{
    hpeer *oldest = NULL;
    for (hpeer *p = l->sessions; p; p = p->next) {
        bool attached = false;
        for (hroute *r = p->routes; r && !attached; r = r->next)
            attached = r->x != NULL;
        if (!attached && !p->ended && (!oldest || p->last_used < oldest->last_used))
            oldest = p;
    }
    if (!oldest)
        return false;
    mcp__server_log(l->server, MCP_LOG_INFO, "session %.8s… evicted: the session cap (%u) was "
                    "reached and it was the least recently used",
                    oldest->sid, l->opts.max_sessions);
    session_end(oldest, "session evicted");
    return true;
}

/* Requests ------------------------------------------------------------------------- */

/* Whether a batch gets an answer: it holds a request, or an element that
 * is neither a notification nor a response (answered with an error); one
 * of notifications and responses alone gets 202. */
static bool batch_answered(const mcp_message *m)
{
    for (size_t i = 0; i < mcp_json_array_size(m->batch); i++) {
        const mcp_json *e = mcp_json_array_at(m->batch, i);
        bool method = mcp_json_object_get(e, "method") != NULL;
        bool id = mcp_json_object_get(e, "id") != NULL;
        bool outcome = mcp_json_object_get(e, "result") || mcp_json_object_get(e, "error");
        if (mcp_json_typeof(e) != MCP_JSON_OBJECT || (method ? id : !(id && outcome)))
            return true;
    }
    return false;
}

/* m, x's body, to p's engine on route: as decoded here (once), unless the
 * engine reads it otherwise: a batch, or a body over its message cap (it
 * reads the bytes and answers as it would on any transport). */
static void deliver(hpeer *p, uint64_t route, mcp__http_exchange *x, mcp_message *m)
{
    size_t len;
    const char *body = mcp__http_exchange_body(x, &len);
    size_t cap = p->l->server->opts.max_message;
    if (m->kind == MCP_MESSAGE_BATCH || len > (cap ? cap : MCP_JSON_DEFAULT_MAX_SIZE))
        p->t.sink.message(p->t.sink.ud, route, body, len);
    else
        mcp__driver_receive(&p->conn->driver, route, m);
}

/* Feed the body to the peer's engine, on a new route when it is a request. */
static void feed(hpeer *p, mcp__http_exchange *x, mcp_message *m, bool initialize)
{
    p->last_used = mcp__now_ms();
    bool answered = m->kind == MCP_MESSAGE_REQUEST ||
                    (m->kind == MCP_MESSAGE_BATCH && batch_answered(m));
    if (!answered) {
        mcp__http_respond(x, 202, NULL, NULL, 0, NULL);
        deliver(p, 0, x, m);
        return;
    }
    hroute *r = mcp__route_open(p, x, ++p->l->next_route);
    if (!r) {
        respond_error(x, 500, &m->id, MCP_WIRE_INTERNAL_ERROR, "out of memory");
        return;
    }
    r->initialize = initialize;
    /* Out of memory leaves it MCP_ID_NONE: a stop answers with id null. */
    if (!p->legacy && m->kind == MCP_MESSAGE_REQUEST)
        mcp_id_copy(&r->request, &m->id, NULL);
    mcp__route_stream_now(r);
    deliver(p, r->id, x, m);
}

/* A 2025 session's GET: its own stream, or with Last-Event-ID the resume
 * of one of its streams (never another session's: routes are per peer). */
static void on_get(mcp__http_exchange *x, hpeer *p)
{
    const char *last = mcp__http_exchange_header(x, "Last-Event-ID");
    unsigned long long route = 0, seq = 0;
    hroute *r;
    if (last) {
        char tail;
        if (sscanf(last, "%llu-%llu%c", &route, &seq, &tail) != 2 ||
            !(r = mcp__route_find(p, route)) || !r->resumable) {
            respond_error(x, 400, NULL, MCP_WIRE_INVALID_REQUEST,
                          "Bad Request: Last-Event-ID names no stream of this session that can "
                          "be resumed");
            return;
        }
    } else {
        r = p->get;
        seq = r ? r->sent_seq : 0; /* a new GET gets what nobody got */
    }
    if (r && r->x) {
        respond_error(x, 409, NULL, MCP_WIRE_INVALID_REQUEST,
                      "Conflict: that stream is already being read");
        return;
    }
    if (!r && (r = mcp__route_open(p, NULL, 0)) != NULL)
        r->streaming = r->resumable = true;
    if (!r || mcp__route_attach(r, x, seq) != MCP_OK) {
        respond_error(x, 500, NULL, MCP_WIRE_INTERNAL_ERROR, "out of memory");
        return;
    }
    p->last_used = mcp__now_ms();
}

/* The credential x came with: who its token says it is from where tokens
 * are checked here (the principal: "<iss> <sub>", the same across a
 * refresh), else its Authorization value with the scheme in lower case
 * (RFC 9110, 11.1: "bearer T" is the credential "Bearer T" is); or NULL
 * (none, or out of memory: *failed). */
static char *credential_of(const mcp__http_exchange *x, bool *failed)
{
    const char *principal = mcp__http_exchange_principal(x);
    const char *authorization = principal ? principal : mcp__http_exchange_header(x, "Authorization");
    char *credential = authorization ? strdup(authorization) : NULL;
    *failed = authorization && !credential;
    if (principal)
        return credential;
    for (char *ch = credential; ch && *ch && *ch != ' '; ch++)
        *ch = (char)tolower((unsigned char)*ch);
    return credential;
}

/* A 2025 session's request: the session header and its checks. */
static void on_session_request(http_listener *l, mcp__http_exchange *x, mcp_message *m)
{
    mcp__http_method method = mcp__http_exchange_method(x);
    const char *sid = mcp__http_exchange_header(x, SESSION_HEADER);
    if (!sid) {
        if (method != MCP__HTTP_POST) {
            static const char *const allow[] = {"Allow", "POST", NULL};
            mcp__http_respond_error(x, 405, NULL, MCP_WIRE_INVALID_REQUEST,
                                    "Method Not Allowed: GET and DELETE need a 2025 session "
                                    "(Mcp-Session-Id)",
                                    allow);
            return;
        }
        respond_error(x, 400, m ? &m->id : NULL, MCP_WIRE_INVALID_REQUEST,
                      "Bad Request: Mcp-Session-Id header is required");
        return;
    }
    hpeer *p = find_session(l, sid);
    bool failed = false;
    char *credential = p ? credential_of(x, &failed)
                         : NULL;
    /* Where tokens are checked a session is its credential's: another
     * one finds no such session, as a guessed id does, and reaches none of
     * its tasks (tasks.mdx: bound to the authorization context). */
    bool same = p && !failed &&
                (!(l->opts.authorize || l->oauth) ||
                 mcp__same_credential(p->credential, credential));
    free(credential);
    if (!same) {
        respond_error(x, 404, m ? &m->id : NULL, MCP_WIRE_INVALID_REQUEST,
                      "Not Found: no such session (it ended or expired): initialize again");
        return;
    }
    size_t vlen;
    const char *version = mcp__http_exchange_header_n(x, VERSION_HEADER, &vlen);
    if (version && !mcp_protocol_known(version, vlen)) {
        respond_error(x, 400, m ? &m->id : NULL, MCP_WIRE_INVALID_REQUEST,
                      "Bad Request: unsupported MCP-Protocol-Version");
        return;
    }
    /* From 2025-06-18 on a client sends the header with everything after
     * initialize; a 2025-03-26 client never heard of it (that revision is
     * what the specification says to assume without one). */
    const char *v = mcp_session_protocol_version(p->conn->driver.session);
    bool old = !v || strcmp(v, "2025-03-26") == 0;
    if (!version && !old) {
        char why[128];
        snprintf(why, sizeof why,
                 "Bad Request: the MCP-Protocol-Version header is required (this session "
                 "speaks %s)",
                 v);
        respond_error(x, 400, m ? &m->id : NULL, MCP_WIRE_INVALID_REQUEST, why);
        return;
    }
    if (m && m->kind == MCP_MESSAGE_BATCH) {
        /* Only 2025-03-26 had batches; its sessions get them over HTTP as
         * on stdio (one array answers the batch's requests). */
        if (!old || !v) {
            respond_error(x, 400, NULL, MCP_WIRE_INVALID_REQUEST,
                          "Bad Request: JSON-RPC batches exist only in protocol revision "
                          "2025-03-26");
            return;
        }
        if (!mcp_json_array_size(m->batch)) {
            respond_error(x, 400, NULL, MCP_WIRE_INVALID_REQUEST,
                          "Invalid Request: an empty JSON-RPC batch");
            return;
        }
    }
    if (method == MCP__HTTP_DELETE) {
        mcp__server_log(l->server, MCP_LOG_INFO, "session %.8s… deleted by the client", p->sid);
        session_end(p, "session ended");
        mcp__http_respond(x, 200, NULL, NULL, 0, NULL);
        return;
    }
    if (method == MCP__HTTP_GET) {
        on_get(x, p);
        return;
    }
    if (!mcp__http_oauth_item_allowed(l->oauth, l->server, x, m))
        return;
    feed(p, x, m, false);
}

static const char *meta_version(const mcp_message *m, size_t *len)
{
    const mcp_json *meta = m->params ? mcp_json_object_get(m->params, "_meta") : NULL;
    const mcp_json *v =
        meta ? mcp_json_object_get(meta, "io.modelcontextprotocol/protocolVersion") : NULL;
    return v ? mcp_json_string(v, len) : NULL;
}

/* A 2026-07-28 request (bv: its body's protocolVersion, or NULL): its
 * headers agree with its body, then it runs on a peer of its own. */
static void on_stateless(http_listener *l, mcp__http_exchange *x, mcp_message *m, const char *bv,
                         size_t bv_len)
{
    if (m->kind != MCP_MESSAGE_REQUEST) {
        /* This revision defines no client notification over HTTP; a
         * cancel by id would let one caller cancel another's request on
         * an endpoint without sessions (cancellation-pitfalls.md). */
        mcp__http_respond(x, 202, NULL, NULL, 0, NULL);
        return;
    }
    char why[200];
    if (!mcp__http_headers_match(x, m, bv, bv_len, l, why, sizeof why)) {
        respond_error(x, 400, &m->id, MCP_WIRE_HEADER_MISMATCH, why);
        return;
    }
    if (!mcp__http_oauth_item_allowed(l->oauth, l->server, x, m))
        return;
    /* The credential the request came with: its requestState is bound
     * to it (input_required.c). */
    bool failed;
    char *credential = credential_of(x, &failed);
    hpeer *p = failed ? NULL : peer_open(l, false);
    if (!p) {
        free(credential);
        respond_error(x, 500, &m->id, MCP_WIRE_INTERNAL_ERROR, "out of memory");
        return;
    }
    p->conn->credential = credential;
    feed(p, x, m, false);
}

static void on_request(void *ud, mcp__http_exchange *x)
{
    http_listener *l = ud;
    mcp_message *m = NULL;
    /* Its token is asked about first; served again once known. */
    if (mcp__http_oauth_pending(l->oauth, x)) {
        mcp__http_oauth_wait(l->oauth, x);
        return;
    }
    if (mcp__http_exchange_method(x) != MCP__HTTP_POST) {
        on_session_request(l, x, NULL);
        return;
    }
    size_t len;
    const char *body = mcp__http_exchange_body(x, &len);
    mcp_decode_error err;
    int rc = mcp_message_decode(body, len, NULL, NULL, &m, &err);
    if (rc == MCP_ERR_RPC_PARSE || rc == MCP_ERR_NOMEM) {
        respond_error(x, rc == MCP_ERR_NOMEM ? 500 : 400, NULL,
                      rc == MCP_ERR_NOMEM ? MCP_WIRE_INTERNAL_ERROR : MCP_WIRE_PARSE_ERROR,
                      rc == MCP_ERR_NOMEM ? "out of memory" : err.message);
    } else if (rc == MCP_ERR_RPC_BATCH && mcp__http_exchange_header(x, SESSION_HEADER)) {
        on_session_request(l, x, m); /* a 2025-03-26 session's batch */
    } else if (rc == MCP_ERR_RPC_BATCH) {
        respond_error(x, 400, NULL, MCP_WIRE_INVALID_REQUEST,
                      "Bad Request: a JSON-RPC batch needs a 2025-03-26 session (and "
                      "initialize is never batched)");
    } else if (rc != MCP_OK) {
        respond_error(x, 400, m ? &m->id : NULL, MCP_WIRE_INVALID_REQUEST, err.message);
    } else if (m->kind == MCP_MESSAGE_RESULT || m->kind == MCP_MESSAGE_ERROR ||
               (m->kind == MCP_MESSAGE_NOTIFICATION &&
                mcp__http_exchange_header(x, SESSION_HEADER))) {
        on_session_request(l, x, m);
    } else {
        size_t vlen = 0;
        const char *body_version = meta_version(m, &vlen);
        size_t hlen = 0;
        const char *header_version = mcp__http_exchange_header_n(x, VERSION_HEADER, &hlen);
        char hv[32] = "";
        if (header_version && hlen < sizeof hv)
            memcpy(hv, header_version, hlen), hv[hlen] = '\0';
        bool header_modern = mcp_protocol_modern(hv);
        if (!body_version && header_modern && m->kind == MCP_MESSAGE_REQUEST) {
            /* The header says 2026-07-28, the body has no envelope: the
             * engine would take it for a 2025 request before initialize. */
            respond_error(x, 400, &m->id, MCP_WIRE_INVALID_PARAMS,
                          "Invalid params: _meta.io.modelcontextprotocol/protocolVersion is "
                          "required");
        } else if (body_version || header_modern) {
            on_stateless(l, x, m, body_version, vlen);
        } else if (mcp_message_method_is(m, "initialize") &&
                   !mcp__http_exchange_header(x, SESSION_HEADER)) {
            if (l->nsessions >= l->opts.max_sessions && !evict_one(l)) {
                static const char *const retry[] = {"Retry-After", "5", NULL};
                mcp__http_respond_error(x, 503, &m->id, MCP_WIRE_INTERNAL_ERROR,
                                        "Service Unavailable: too many sessions", retry);
            } else {
                bool failed;
                char *credential =
                    credential_of(x, &failed);
                hpeer *p = failed ? NULL : peer_open(l, true);
                if (!p) {
                    free(credential);
                    respond_error(x, 500, &m->id, MCP_WIRE_INTERNAL_ERROR, "out of memory");
                } else {
                    p->credential = credential;
                    /* Without credentials the client is its session and
                     * no more: its tasks are reached by id only. */
                    if (!mcp__http_exchange_header(x, "Authorization"))
                        mcp__session_set_anonymous(p->conn->driver.session);
                    feed(p, x, m, true);
                }
            }
        } else {
            on_session_request(l, x, m);
        }
    }
    mcp_message_free(m);
}

static void on_closed(void *ud, mcp__http_exchange *x, mcp__http_end how)
{
    http_listener *l = ud;
    mcp__http_oauth_forget(l->oauth, x);
    hroute *r = mcp__http_exchange_user(x);
    if (r)
        mcp__route_exchange_closed(r, how);
}

/* The listener ---------------------------------------------------------------------- */

static void listener_stop(mcp__listener *base);
static const mcp__listener_ops listener_ops = {listener_stop};

static int authorize(void *ud, const char *value, mcp__http_auth_answer *a)
{
    http_listener *l = ud;
    if (l->oauth)
        return mcp__http_oauth_authorize(l->oauth, value, a);
    return l->opts.authorize(l->opts.authorize_user_data, value) ? 0 : 401;
}

int mcp_server_listen_http(mcp_server *s, const mcp_server_http_options *opts)
{
    mcp_server_http_options o;
    if (!s || !opts || mcp__opts_copy(&o, sizeof o, opts) != MCP_OK || o.port > 65535)
        return MCP_ERR_INVALID_ARG;
    if (mcp__server_listener_find(s, &listener_ops))
        return MCP_ERR_STATE;
    int rc = mcp__server_open_loop(s);
    if (rc != MCP_OK)
        return rc;
    http_listener *l = calloc(1, sizeof *l);
    if (!l)
        return MCP_ERR_NOMEM;
    l->server = s;
    l->opts = o;
    mcp_buf_init(&l->scratch, 0, NULL);
    rc = mcp__http_oauth_open(s, &o, on_request, l, &l->oauth);
    if (rc != MCP_OK) {
        listener_free(l);
        return rc;
    }
    if (!l->opts.max_sessions)
        l->opts.max_sessions = 1024;
    if (!l->opts.session_idle_ms)
        l->opts.session_idle_ms = 30 * 60 * 1000;
    mcp__http_server_config cfg = {
        .host = o.host,
        .port = (uint16_t)o.port,
        .path = o.path,
        .allowed_origins = o.allowed_origins,
        .allowed_hosts = o.allowed_hosts,
        .max_body = o.max_body,
        .max_connections = o.max_connections,
        .max_per_address = o.max_connections_per_address,
        .idle_timeout_s = o.idle_timeout_s,
        .keepalive_ms = o.keepalive_ms,
        .request_timeout_s = o.request_timeout_s,
        .tls_cert_pem = o.tls_cert_pem,
        .tls_key_pem = o.tls_key_pem,
        /* With OAuth, room for a JWT of 16 KiB (jose's cap) and the rest
         * of the headers; without, the default's 6 KiB. */
        .connection_memory = l->oauth ? (size_t)24 * 1024 : 0,
    };
    mcp__http_oauth_document(l->oauth, &cfg.document_path, &cfg.document_json);
    /* And at the root's well-known path, where a client that only looks
     * there (2025-06-18's order) finds it. */
    if (cfg.document_path && strcmp(cfg.document_path, "/.well-known/oauth-protected-resource"))
        cfg.document_path2 = "/.well-known/oauth-protected-resource";
    mcp__http_handler h = {on_request, on_closed, o.authorize || l->oauth ? authorize : NULL, l};
    rc = mcp__http_server_open(&s->loop, &cfg, &h, &l->http);
    if (rc != MCP_OK) {
        mcp__server_log(s, MCP_LOG_ERROR, "cannot listen on %s:%u: %s",
                        o.host ? o.host : "127.0.0.1", o.port,
                        rc != MCP_ERR_IO ? mcp_strerror(rc)
                        : errno          ? strerror(errno)
                        : o.tls_cert_pem ? "the TLS certificate or key was refused"
                                         : "libmicrohttpd could not start");
        listener_free(l);
        return rc;
    }
    /* Our copies: the caller's options may go. */
    l->opts.host = l->opts.path = l->opts.tls_cert_pem = l->opts.tls_key_pem = NULL;
    l->opts.allowed_hosts = l->opts.allowed_origins = NULL;
    uv_timer_init(&s->loop, &l->reaper);
    uv_timer_init(&s->loop, &l->expiry);
    l->reaper.data = l->expiry.data = l;
    uint64_t every = l->opts.session_idle_ms / 4 ? l->opts.session_idle_ms / 4 : 1;
    uv_timer_start(&l->expiry, expire, every > 1000 ? 1000 : every, every > 1000 ? 1000 : every);
    l->base.ops = &listener_ops;
    mcp__server_listener_add(s, &l->base);
    mcp__server_log(s, MCP_LOG_INFO, "serving Streamable HTTP on %s://%s:%u%s",
                    o.tls_cert_pem ? "https" : "http", o.host ? o.host : "127.0.0.1",
                    mcp__http_server_port(l->http), o.path ? o.path : "/mcp");
    return MCP_OK;
}

unsigned mcp_server_http_port(const mcp_server *s)
{
    const http_listener *l = s ? (const http_listener *)mcp__server_listener_find(s, &listener_ops)
                               : NULL;
    return l ? mcp__http_server_port(l->http) : 0;
}

static void listener_handle_closed(uv_handle_t *h)
{
    http_listener *l = h->data;
    if (--l->open_handles)
        return;
    l->closed = true;
    if (!l->npeers)
        listener_free(l);
}

static void http_closed(void *ud)
{
    http_listener *l = ud;
    l->http = NULL;
    mcp__server_listener_closed(l->server, &l->base);
    l->open_handles = 2;
    uv_close((uv_handle_t *)&l->reaper, listener_handle_closed);
    uv_close((uv_handle_t *)&l->expiry, listener_handle_closed);
}

static void listener_stop(mcp__listener *base)
{
    http_listener *l = (http_listener *)base;
    if (l->closing)
        return;
    l->closing = true;
    for (hpeer *p = l->sessions, *next; p; p = next) {
        next = p->next;
        session_end(p, "server shutting down");
    }
    uv_timer_stop(&l->expiry);
    /* Exchanges still open are told now; their peers end with their
     * connections. */
    mcp__http_server_close(l->http, l->server->opts.shutdown_grace_ms, http_closed, l);
}
