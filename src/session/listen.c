/* SPDX-License-Identifier: MIT */
/*
 * subscriptions/listen (2026-07-28), both roles.
 *
 * Server: a listen is an inbound request the engine serves itself. It is
 * acknowledged at once (the first message carrying its id), then carries
 * the notifications it asked for and the server offers, each with
 * io.modelcontextprotocol/subscriptionId = the listen's id, verbatim. It
 * ends when the client cancels it, when the server tears it down (the
 * closing result, then on a shared stream notifications/cancelled), or
 * when the transport goes.
 *
 * Client: a listen is an outbound request without timeouts whose
 * notifications are told apart by their subscriptionId; the
 * acknowledgment must come first; the server ends it with a result, a
 * cancel, or both (the first one ends it, the second finds nothing).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "core/opts.h"
#include "session/entry.h"
#include "session/internal.h"

static const struct {
    unsigned kind;
    const char *field;  /* in the filter */
    const char *method; /* the notification */
} kinds[] = {
    {MCP_LISTEN_TOOLS, "toolsListChanged", "notifications/tools/list_changed"},
    {MCP_LISTEN_PROMPTS, "promptsListChanged", "notifications/prompts/list_changed"},
    {MCP_LISTEN_RESOURCES, "resourcesListChanged", "notifications/resources/list_changed"},
};

/* Server ------------------------------------------------------------------- */

void mcp__listen_unlink(mcp_session *s, inbound *in)
{
    if (!in->listen_prev && s->listens != in)
        return; /* not linked yet (ended while acknowledging) */
    if (in->listen_prev)
        in->listen_prev->listen_next = in->listen_next;
    else if (s->listens == in)
        s->listens = in->listen_next;
    if (in->listen_next)
        in->listen_next->listen_prev = in->listen_prev;
    in->listen_next = in->listen_prev = NULL;
    s->nlistens--;
    if (s->cb.on_listen)
        s->cb.on_listen(s->cb.user_data, mcp__inbound_handle(s, in), in->uris, false);
}

/* At most this many task ids in one listen (each an id the server made:
 * short). */
#define MAX_TASK_IDS 256
#define MAX_TASK_ID_LEN 256

/* params.notifications.taskIds, or NULL. */
static const mcp_json *task_ids_of(const mcp_message *msg)
{
    return mcp_json_object_get(mcp_json_object_get(msg->params, "notifications"), "taskIds");
}

static const char *parse_filter(const mcp_json *f, unsigned *kinds_out, const mcp_json **uris)
{
    if (mcp_json_typeof(f) != MCP_JSON_OBJECT)
        return "subscriptions/listen: params.notifications must be an object";
    unsigned k = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        const mcp_json *v = mcp_json_object_get(f, kinds[i].field);
        bool on = false;
        if (v && mcp_json_get_bool(v, &on) != MCP_OK)
            return "subscriptions/listen: the *ListChanged filters must be booleans";
        if (on)
            k |= kinds[i].kind;
    }
    const mcp_json *u = mcp_json_object_get(f, "resourceSubscriptions");
    if (u) {
        if (mcp_json_typeof(u) != MCP_JSON_ARRAY)
            return "subscriptions/listen: resourceSubscriptions must be an array of URIs";
        for (size_t i = 0; i < mcp_json_array_size(u); i++)
            if (mcp_json_typeof(mcp_json_array_at(u, i)) != MCP_JSON_STRING)
                return "subscriptions/listen: resourceSubscriptions must be an array of URIs";
        if (mcp_json_array_size(u))
            k |= MCP_LISTEN_RESOURCE_UPDATES;
    }
    const mcp_json *t = mcp_json_object_get(f, "taskIds");
    if (t) {
        bool ok = mcp_json_typeof(t) == MCP_JSON_ARRAY && mcp_json_array_size(t) <= MAX_TASK_IDS;
        for (size_t i = 0; ok && i < mcp_json_array_size(t); i++) {
            size_t n;
            ok = mcp_json_string(mcp_json_array_at(t, i), &n) && n && n <= MAX_TASK_ID_LEN;
        }
        if (!ok)
            return "subscriptions/listen: taskIds must be an array of at most 256 task ids";
        if (mcp_json_array_size(t))
            k |= MCP_LISTEN_TASKS;
    }
    *kinds_out = k;
    *uris = u;
    return NULL;
}

/* The filter as the server honours it. */
static void write_filter(mcp__jw *w, unsigned k, const mcp_json *uris, const mcp_json *tasks)
{
    mcp__jw_object(w);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (k & kinds[i].kind) {
            mcp__jw_key(w, kinds[i].field);
            mcp__jw_bool(w, true);
        }
    if ((k & MCP_LISTEN_RESOURCE_UPDATES) && uris) {
        mcp__jw_key(w, "resourceSubscriptions");
        mcp__jw_value(w, uris);
    }
    if ((k & MCP_LISTEN_TASKS) && tasks) {
        mcp__jw_key(w, "taskIds");
        mcp__jw_value(w, tasks);
    }
    mcp__jw_object_end(w);
}

/* A notification of subscription `id`: method, its params (uri and the
 * filter are the only ones a listen stream carries), and the id. */
/* What a stream notification says besides its subscription: a URI, the
 * filter honoured (the acknowledgment), or the members of an object (a
 * task's). */
typedef struct stream_params {
    const char *uri;
    bool with_filter;
    unsigned filter_kinds;
    const mcp_json *filter_uris, *filter_tasks;
    const mcp_json *members;
} stream_params;

static int write_stream_notification(mcp_buf *b, const char *method, const mcp_id *id,
                                     const stream_params *p)
{
    mcp__jw w;
    mcp__jw_notification_start(&w, b, method);
    if (p->uri) {
        mcp__jw_key(&w, "uri");
        mcp__jw_string(&w, p->uri);
    }
    if (p->with_filter) {
        mcp__jw_key(&w, "notifications");
        write_filter(&w, p->filter_kinds, p->filter_uris, p->filter_tasks);
    }
    for (size_t i = 0; i < mcp_json_object_size(p->members); i++) {
        const char *k;
        size_t kn;
        const mcp_json *v = mcp_json_object_at(p->members, i, &k, &kn);
        if (kn == 5 && !memcmp(k, "_meta", 5))
            continue; /* the stream's own _meta below */
        mcp__jw_keyn(&w, k, kn);
        mcp__jw_value(&w, v);
    }
    mcp__jw_key(&w, "_meta");
    mcp__jw_object(&w);
    mcp__jw_key(&w, META_SUBSCRIPTION);
    mcp__jw_id(&w, id);
    mcp__jw_object_end(&w);
    mcp__jw_object_end(&w);
    return mcp__jw_envelope_end(&w);
}

void mcp__listen_open(mcp_session *s, uint64_t now, uint64_t route, mcp_message *msg,
                      const mcp__era *era)
{
    unsigned asked;
    const mcp_json *uris;
    const char *bad = parse_filter(mcp_json_object_get(msg->params, "notifications"), &asked,
                                   &uris);
    if (bad) {
        char text[160];
        snprintf(text, sizeof text, "Invalid params: %s", bad);
        mcp__send_error(s, route, &msg->id, MCP_WIRE_INVALID_PARAMS, text, NULL);
        return;
    }
    if (s->collecting) {
        mcp__send_error(s, route, &msg->id, MCP_WIRE_INVALID_REQUEST,
                        "Invalid request: a subscription cannot be part of a batch", NULL);
        return;
    }
    unsigned offered = asked & s->listen_kinds;
    const mcp_json *honoured = offered & MCP_LISTEN_RESOURCE_UPDATES ? uris : NULL;
    /* Task ids belong to the tasks extension: a request that did not
     * declare it cannot ask for them (ext-tasks: MUST -32021). */
    if ((asked & MCP_LISTEN_TASKS) &&
        !mcp_json_object_get(
            mcp_json_object_get(
                mcp_json_object_get(mcp_json_object_get(msg->params, "_meta"), META_CLIENT_CAPS),
                "extensions"),
            "io.modelcontextprotocol/tasks")) {
        mcp__send_missing_extension(s, route, &msg->id, "io.modelcontextprotocol/tasks");
        return;
    }
    mcp__log(s, MCP_LOG_INFO, MCP_LOG_EVENT_LISTEN, &msg->id, msg->method, "inbound", NULL,
             -1, "subscription opening (kinds 0x%x of 0x%x asked):", offered, asked);
    if (s->closed || s->doomed)
        return; /* the log callback ended it all */
    inbound *in = mcp__inbound_register(s, now, route, msg, era, IN_LISTEN);
    if (!in)
        return;
    in->listen_kinds = (uint8_t)offered;
    in->uris = honoured;
    mcp_handle h = mcp__inbound_handle(s, in);
    /* The acknowledgment is the first message naming the subscription: it
     * goes out before the subscription can be published to. */
    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    stream_params ack = {.with_filter = true,
                         .filter_kinds = offered,
                         .filter_uris = honoured,
                         .filter_tasks = task_ids_of(msg)};
    if (write_stream_notification(b, "notifications/subscriptions/acknowledged", &msg->id,
                                  &ack) == MCP_OK)
        mcp__emit(s, route, b);
    mcp__scratch_done(s, b, &local);
    in = mcp__inbound_lookup(s, h); /* the write may have ended it */
    if (!in)
        return;
    in->listen_next = s->listens;
    if (s->listens)
        s->listens->listen_prev = in;
    s->listens = in;
    s->nlistens++;
    if (s->cb.on_listen)
        s->cb.on_listen(s->cb.user_data, h, in->uris, true);
}

static bool uri_listed(const mcp_json *uris, const char *uri)
{
    size_t n = strlen(uri);
    for (size_t i = 0; i < mcp_json_array_size(uris); i++) {
        size_t k;
        const char *u = mcp_json_string(mcp_json_array_at(uris, i), &k);
        if (u && k == n && memcmp(u, uri, n) == 0)
            return true;
    }
    return false;
}

/* The handles of the subscriptions `want` selects, taken before anything is
 * written: a write may end any of them (the session, or a route, may close),
 * so each is looked up again just before its turn. */
static mcp_handle *snapshot(mcp_session *s, bool (*want)(const inbound *, const void *),
                            const void *ctx, size_t *n)
{
    *n = 0;
    mcp_handle *hs = s->nlistens ? mcp__calloc(&s->mem, s->nlistens, sizeof *hs) : NULL;
    if (!hs)
        return NULL;
    for (inbound *in = s->listens; in; in = in->listen_next)
        if (!want || want(in, ctx))
            hs[(*n)++] = mcp__inbound_handle(s, in);
    return hs;
}

typedef struct publish_ctx {
    unsigned kind;
    const char *uri;
} publish_ctx;

static bool wants(const inbound *in, const void *ctx)
{
    const publish_ctx *p = ctx;
    if (!(in->listen_kinds & p->kind))
        return false;
    return p->kind != MCP_LISTEN_RESOURCE_UPDATES || uri_listed(in->uris, p->uri);
}

int mcp_session_publish(mcp_session *s, unsigned kind, const char *uri)
{
    const char *method = kind == MCP_LISTEN_RESOURCE_UPDATES ? "notifications/resources/updated"
                                                             : NULL;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i].kind == kind)
            method = kinds[i].method;
    if (!method || (kind == MCP_LISTEN_RESOURCE_UPDATES) != (uri != NULL) ||
        (uri && mcp_utf8_validate(uri, strlen(uri), NULL) != MCP_OK))
        return MCP_ERR_INVALID_ARG;
    if (s->closed || s->role != MCP_ROLE_SERVER)
        return 0;
    mcp__session_enter(s);
    int sent = 0;
    publish_ctx ctx = {kind, uri};
    size_t n;
    mcp_handle *hs = snapshot(s, wants, &ctx, &n);
    for (size_t i = 0; i < n && !s->closed && !s->doomed; i++) {
        inbound *in = mcp__inbound_lookup(s, hs[i]);
        if (!in)
            continue;
        mcp_buf local;
        mcp_buf *b = mcp__scratch(s, &local);
        stream_params sp = {.uri = uri};
        if (write_stream_notification(b, method, &in->msg->id, &sp) == MCP_OK) {
            mcp__emit(s, in->route, b);
            sent++;
        }
        mcp__scratch_done(s, b, &local);
    }
    mcp__free(&s->mem, hs);
    /* A legacy client that initialized hears list changes the 2025 way. */
    if (!s->closed && s->lifecycle == LC_READY && s->peer_initialized &&
        kind != MCP_LISTEN_RESOURCE_UPDATES && (s->listen_kinds & kind) &&
        mcp_session_notify(s, method, NULL) == MCP_OK)
        sent++;
    mcp__session_leave(s);
    return sent;
}

static bool wants_task(const inbound *in, const void *id)
{
    if (!(in->listen_kinds & MCP_LISTEN_TASKS))
        return false;
    const mcp_json *ids = task_ids_of(in->msg);
    for (size_t i = 0; i < mcp_json_array_size(ids); i++) {
        const char *v = mcp_json_string(mcp_json_array_at(ids, i), NULL);
        if (v && !strcmp(v, id))
            return true;
    }
    return false;
}

bool mcp__session_listening(const mcp_session *s)
{
    return !s->closed && s->nlistens > 0;
}

int mcp_session_publish_task(mcp_session *s, const char *task_id, const mcp_json *task)
{
    if (!task_id || mcp_json_typeof(task) != MCP_JSON_OBJECT)
        return MCP_ERR_INVALID_ARG;
    if (s->closed || s->role != MCP_ROLE_SERVER || !s->nlistens)
        return 0;
    mcp__session_enter(s);
    int sent = 0;
    size_t n;
    mcp_handle *hs = snapshot(s, wants_task, task_id, &n);
    for (size_t i = 0; i < n && !s->closed && !s->doomed; i++) {
        inbound *in = mcp__inbound_lookup(s, hs[i]);
        if (!in)
            continue;
        mcp_buf local;
        mcp_buf *b = mcp__scratch(s, &local);
        stream_params sp = {.members = task};
        if (write_stream_notification(b, "notifications/tasks", &in->msg->id, &sp) == MCP_OK) {
            mcp__emit(s, in->route, b);
            sent++;
        }
        mcp__scratch_done(s, b, &local);
    }
    mcp__free(&s->mem, hs);
    mcp__session_leave(s);
    return sent;
}

size_t mcp_session_end_listens(mcp_session *s, uint64_t now, const char *reason)
{
    if (s->closed || !s->nlistens)
        return 0;
    mcp__session_enter(s);
    s->now = now;
    size_t n, ended = 0;
    mcp_handle *hs = snapshot(s, NULL, NULL, &n);
    for (size_t i = 0; i < n && !s->closed && !s->doomed; i++) {
        inbound *in = mcp__inbound_lookup(s, hs[i]);
        if (!in)
            continue;
        /* Out of the tables first: the log and the writes below may run
         * anything. */
        mcp_message *msg = in->msg;
        uint64_t route = in->route;
        const mcp__era *era = in->era;
        int64_t age = mcp__age(now, in->start);
        mcp__inbound_unregister(s, in);
        ended++;
        mcp__log(s, MCP_LOG_INFO, MCP_LOG_EVENT_LISTEN, &msg->id, msg->method, "inbound",
                 reason, age, "subscription ended by the server:");
        mcp_buf local;
        mcp_buf *b = mcp__scratch(s, &local);
        mcp__jw w;
        mcp__jw_response_start(&w, b, &msg->id, "result");
        mcp__write_result(s, &w, era, NULL, NULL, 0, false, &msg->id);
        int rc = mcp__jw_envelope_end(&w);
        bool open = rc == MCP_OK ? mcp__emit(s, route, b) : !s->closed;
        if (open && route == 0) {
            /* On a stream shared by every request (stdio) the spec also
             * wants a cancel naming the subscription (and it is what is
             * left when the result could not be written); a client takes
             * either, or both. */
            mcp_buf_reset(b);
            mcp__jw_notification_start(&w, b, "notifications/cancelled");
            mcp__jw_key(&w, "requestId");
            mcp__jw_id(&w, &msg->id);
            if (reason) {
                mcp__jw_key(&w, "reason");
                mcp__jw_string(&w, reason);
            }
            mcp__jw_object_end(&w);
            if (mcp__jw_envelope_end(&w) == MCP_OK)
                mcp__emit(s, route, b);
        }
        mcp__scratch_done(s, b, &local);
        mcp_message_free(msg);
    }
    mcp__free(&s->mem, hs);
    mcp__session_leave(s);
    return ended;
}

/* Client ------------------------------------------------------------------- */

/* What a subscription of ours asked for: the server is to send nothing
 * else on it, and what it sends anyway is not passed on (the callback gets
 * "the notifications asked for"). */
typedef struct mcp__listen_want {
    unsigned kinds;
    size_t nuris;
    char *uris[]; /* each NUL-terminated, in the same allocation */
} mcp__listen_want;

static mcp__listen_want *want_new(mcp_session *s, const mcp_listen_filter *f)
{
    size_t bytes = sizeof(mcp__listen_want) + f->resource_count * sizeof(char *);
    for (size_t i = 0; i < f->resource_count; i++)
        bytes += strlen(f->resource_uris[i]) + 1;
    mcp__listen_want *w = mcp__malloc(&s->mem, bytes);
    if (!w)
        return NULL;
    w->kinds = f->kinds;
    w->nuris = f->resource_count;
    char *text = (char *)(w->uris + w->nuris);
    for (size_t i = 0; i < w->nuris; i++) {
        size_t n = strlen(f->resource_uris[i]) + 1;
        memcpy(text, f->resource_uris[i], n);
        w->uris[i] = text;
        text += n;
    }
    return w;
}

void mcp__listen_want_free(mcp_session *s, mcp__listen_want *w)
{
    mcp__free(&s->mem, w);
}

/* Whether msg, a notification on a subscription that asked for w, was
 * asked for. Notifications of other kinds than the four a filter names
 * pass: the filter says nothing about them. */
static bool wanted(const mcp__listen_want *w, const mcp_message *msg)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (mcp_message_method_is(msg, kinds[i].method))
            return (w->kinds & kinds[i].kind) != 0;
    if (!MCP__METHOD_IS(msg, "notifications/resources/updated"))
        return true;
    size_t n;
    const char *uri = mcp_json_string(mcp_json_object_get(msg->params, "uri"), &n);
    for (size_t i = 0; uri && i < w->nuris; i++)
        if (strlen(w->uris[i]) == n && memcmp(w->uris[i], uri, n) == 0)
            return true;
    return false;
}

int mcp_session_listen(mcp_session *s, uint64_t now, const mcp_listen_filter *filter,
                       mcp_listen_fn cb, void *user_data, mcp_handle *out)
{
    mcp_listen_filter f;
    if (!cb || !filter || mcp__opts_copy(&f, sizeof f, filter) != MCP_OK ||
        (f.resource_count && !f.resource_uris) ||
        !((f.kinds & (MCP_LISTEN_TOOLS | MCP_LISTEN_PROMPTS | MCP_LISTEN_RESOURCES)) ||
          f.resource_count))
        return MCP_ERR_INVALID_ARG;
    if (s->closed)
        return MCP_ERR_CLOSED;
    if (!mcp_session_modern(s))
        return MCP_ERR_STATE;
    mcp_json_doc *doc = mcp_json_doc_new(&s->mem);
    if (!doc)
        return MCP_ERR_NOMEM;
    mcp_json *params = mcp_json_new_object(doc);
    mcp_json *n = mcp_json_new_object(doc);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (f.kinds & kinds[i].kind)
            mcp_json_object_set(doc, n, kinds[i].field, mcp_json_new_bool(doc, true));
    if (f.resource_count) {
        mcp_json *uris = mcp_json_new_array(doc);
        for (size_t i = 0; i < f.resource_count; i++) {
            const char *u = f.resource_uris[i];
            if (!u || mcp_utf8_validate(u, strlen(u), NULL) != MCP_OK) {
                mcp_json_doc_free(doc);
                return MCP_ERR_INVALID_ARG;
            }
            mcp_json_array_append(doc, uris, mcp_json_new_string(doc, u));
        }
        mcp_json_object_set(doc, n, "resourceSubscriptions", uris);
    }
    mcp_json_object_set(doc, params, "notifications", n);
    int rc = mcp_json_doc_error(doc);
    if (rc == MCP_OK) {
        mcp_request_options o = {.size = sizeof o,
                                 .timeout_ms = MCP_NO_TIMEOUT,
                                 .max_time_ms = MCP_NO_TIMEOUT,
                                 .progress = MCP_PROGRESS_NONE};
        outbound_spec sp = {.method = "subscriptions/listen",
                            .params = params,
                            .opts = &o,
                            .kind = OUT_LISTEN,
                            .cancellable = true,
                            .envelope = true,
                            .listen_cb = cb,
                            .user_data = user_data};
        mcp__listen_want *want = want_new(s, &f);
        mcp_handle h = 0;
        rc = want ? MCP_OK : MCP_ERR_NOMEM;
        mcp__session_enter(s);
        if (rc == MCP_OK)
            rc = mcp__outbound_send(s, now, &sp, &h);
        /* Nothing can arrive for it before this returns: what it asked for
         * is with it before any notification. */
        outbound *sub = rc == MCP_OK ? mcp__outbound_get(s, (int64_t)h) : NULL;
        if (sub)
            sub->want = want;
        else
            mcp__listen_want_free(s, want);
        mcp__session_leave(s);
        if (out)
            *out = h;
    }
    mcp_json_doc_free(doc);
    return rc;
}

/* Our subscription named by a subscriptionId or a cancel's requestId: our
 * ids are integers; a decimal string naming one is accepted too (an
 * earlier draft of 2026-07-28 sent the id as a string). */
static outbound *our_listen(const mcp_session *s, const mcp_json *v)
{
    mcp_id id;
    if (mcp_id_from_json(v, &id) != MCP_OK)
        return NULL;
    int64_t n = id.num;
    if (id.kind == MCP_ID_STRING) {
        if (!id.len || id.len > 18)
            return NULL;
        n = 0;
        for (size_t i = 0; i < id.len; i++) {
            if (id.str[i] < '0' || id.str[i] > '9' || (i == 0 && id.str[i] == '0'))
                return NULL;
            n = n * 10 + (id.str[i] - '0');
        }
    }
    outbound *o = mcp__outbound_get(s, n);
    return o && o->kind == OUT_LISTEN ? o : NULL;
}

static unsigned ack_kinds(const mcp_json *filter)
{
    unsigned k;
    const mcp_json *uris;
    if (parse_filter(filter, &k, &uris))
        return 0;
    return k;
}

bool mcp__listen_notification(mcp_session *s, const mcp_message *msg)
{
    const mcp_json *sid = mcp_json_object_get(mcp_json_object_get(msg->params, "_meta"),
                                              META_SUBSCRIPTION);
    if (!sid)
        return false;
    outbound *o = our_listen(s, sid);
    if (!o) {
        mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_DROPPED, NULL, msg->method, "outbound", NULL,
                 -1, "notification dropped: its subscription is not open (late or unknown)");
        return true;
    }
    mcp_id id = mcp_id_from_int(o->id);
    mcp_listen_event ev = {MCP_LISTEN_NOTIFICATION, MCP_OK, msg, 0, 0};
    if (MCP__METHOD_IS(msg, "notifications/subscriptions/acknowledged")) {
        if (o->acked) {
            mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_BAD_INPUT, &id, o->method, "outbound",
                     NULL, -1, "second acknowledgment ignored:");
            return true;
        }
        o->acked = true;
        ev.kind = MCP_LISTEN_ACKNOWLEDGED;
        ev.kinds = ack_kinds(mcp_json_object_get(msg->params, "notifications"));
    } else if (!o->acked) {
        mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, &id, o->method, "outbound", NULL,
                 -1, "notification before the acknowledgment dropped (%s):", msg->method);
        return true;
    } else if (o->want && !wanted(o->want, msg)) {
        mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_DROPPED, &id, o->method, "outbound", NULL,
                 -1, "notification not asked for dropped (%s):", msg->method);
        return true;
    }
    o->listen_cb(o->user_data, (mcp_handle)o->id, &ev);
    return true;
}

bool mcp__listen_cancelled_by_server(mcp_session *s, const mcp_json *request_id)
{
    outbound *o = our_listen(s, request_id);
    if (!o)
        return false;
    mcp_id id = mcp_id_from_int(o->id);
    mcp__outbound_take(s, o);
    mcp__log(s, MCP_LOG_INFO, MCP_LOG_EVENT_LISTEN, &id, o->method, "outbound", NULL,
             mcp__age(s->now, o->start), "subscription ended by the server (cancel):");
    mcp__outbound_end(s, o, MCP_OK, NULL);
    return true;
}
