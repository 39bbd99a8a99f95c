/* SPDX-License-Identifier: MIT */
/*
 * The server: its connections, its listeners, and the loop that serves
 * them all on the run call's thread (what it offers is offer/'s; changes
 * to it and their news, publish.c).
 *
 * The end of a run: once every connection has ended (end of input, a
 * failed output, mcp_server_stop) and drained, the run returns. Handlers
 * still running after the shutdown grace are abandoned: their threads are
 * not joined, and the memory they can reach stays until the last of them
 * returns. s->live counts the requests not yet freed plus one, the owner's,
 * which mcp_server_free drops: whoever drops the last frees the server (the
 * owner, or the thread of the last abandoned handler: its pool is then
 * released, not joined, as that thread cannot join itself).
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "core/mem.h"
#include "core/opts.h"
#include "server/core/core.h"

/* Logging ------------------------------------------------------------------- */

static mcp_log_level min_level(const mcp_server *s)
{
    return s->opts.log ? s->opts.log_level : s->default_logger.level;
}

void mcp__server_log_record(mcp_server *s, const mcp_log_record *r)
{
    if (r->level < min_level(s))
        return;
    if (s->opts.log)
        s->opts.log(s->opts.log_user_data, r);
    else
        mcp__stderr_log(&s->default_logger, r);
}

void mcp__server_log(mcp_server *s, mcp_log_level level, const char *fmt, ...)
{
    if (level < min_level(s))
        return;
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    mcp_log_record r = {level, MCP_LOG_EVENT_GENERAL, text, NULL, NULL, NULL, NULL, -1};
    mcp__server_log_record(s, &r);
}

/* Creation -------------------------------------------------------------------- */

static int build_capabilities(mcp_server *s)
{
    unsigned k = s->opts.listen_kinds;
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    if (!d)
        return MCP_ERR_NOMEM;
    if (s->opts.capabilities) {
        mcp_json_doc_set_root(d, mcp_json_copy(d, s->opts.capabilities));
        s->caps = d;
        return mcp_json_doc_error(d);
    }
    mcp_json *caps = mcp_json_new_object(d);
    mcp_json *tools = mcp_json_new_object(d);
    mcp_json_object_set(d, tools, "listChanged", mcp_json_new_bool(d, k & MCP_LISTEN_TOOLS));
    mcp_json_object_set(d, caps, "tools", tools);
    mcp_json_object_set(d, caps, "logging", mcp_json_new_object(d));
    mcp_json_object_set(d, caps, "completions", mcp_json_new_object(d));
    /* Prompts and resources may be registered at any time, so they are
     * always offered (an empty list until then). */
    mcp_json *p = mcp_json_new_object(d);
    mcp_json_object_set(d, p, "listChanged", mcp_json_new_bool(d, k & MCP_LISTEN_PROMPTS));
    mcp_json_object_set(d, caps, "prompts", p);
    mcp_json *r = mcp_json_new_object(d);
    mcp_json_object_set(d, r, "listChanged", mcp_json_new_bool(d, k & MCP_LISTEN_RESOURCES));
    mcp_json_object_set(d, r, "subscribe", mcp_json_new_bool(d, k & MCP_LISTEN_RESOURCE_UPDATES));
    mcp_json_object_set(d, caps, "resources", r);
    mcp_json_doc_set_root(d, caps);
    s->caps = d;
    return mcp_json_doc_error(d);
}

/* The server's requestState key (ask/): a copy of key, or random. */
static int state_key_init(mcp_server *s, const void *key, size_t len)
{
    s->state_key_len = key ? len : 32;
    s->state_key = malloc(s->state_key_len);
    if (!s->state_key)
        return MCP_ERR_NOMEM;
    if (key) {
        memcpy(s->state_key, key, len);
        return MCP_OK;
    }
    size_t got = 0;
    while (got < s->state_key_len) {
        ssize_t n = getrandom(s->state_key + got, s->state_key_len - got, 0);
        if (n <= 0)
            return MCP_ERR_IO;
        got += (size_t)n;
    }
    return MCP_OK;
}

int mcp_server_new(const mcp_server_options *opts, mcp_server **out)
{
    *out = NULL;
    mcp_server_options o;
    if (mcp__opts_copy(&o, sizeof o, opts) != MCP_OK ||
        (o.name && mcp_utf8_validate(o.name, strlen(o.name), NULL)) ||
        (o.version && mcp_utf8_validate(o.version, strlen(o.version), NULL)) ||
        (o.instructions && mcp_utf8_validate(o.instructions, strlen(o.instructions), NULL)) ||
        o.max_in_flight > MCP__MAX_INBOUND ||
        (o.request_state_key && o.request_state_key_len < MCP__STATE_KEY_MIN) ||
        (!o.request_state_key && o.request_state_key_len) ||
        !mcp__task_store_valid(o.task_store) ||
        (o.capabilities && mcp_json_typeof(o.capabilities) != MCP_JSON_OBJECT) ||
        (o.upstream_argv && !o.upstream_argv[0]))
        return MCP_ERR_INVALID_ARG;
    mcp__features_init();
    mcp_server *s = calloc(1, sizeof *s);
    if (!s)
        return MCP_ERR_NOMEM;
    s->opts = o;
    mcp__mem_init(&s->mem, NULL);
    mcp__offers_init(&s->offers, o.page_size ? o.page_size : 100, o.cache_ttl_ms,
                     o.cache_scope);
    mcp__poster_init(&s->poster);
    atomic_init(&s->live, 1); /* the owner's */
    atomic_init(&s->stop_asked, false);
    if (!s->opts.listen_kinds)
        s->opts.listen_kinds = MCP_LISTEN_TOOLS | MCP_LISTEN_PROMPTS | MCP_LISTEN_RESOURCES |
                               MCP_LISTEN_RESOURCE_UPDATES | MCP_LISTEN_TASKS;
    if (!s->opts.request_state_ttl_ms)
        s->opts.request_state_ttl_ms = 600000;
    if (state_key_init(s, o.request_state_key, o.request_state_key_len) != MCP_OK) {
        mcp_server_free(s);
        return MCP_ERR_NOMEM;
    }
    if (!s->opts.shutdown_grace_ms)
        s->opts.shutdown_grace_ms = 2000;
    s->name = strdup(o.name ? o.name : "libmcp");
    s->version = strdup(o.version ? o.version : mcp_version());
    s->instructions = o.instructions ? strdup(o.instructions) : NULL;
    s->log_name = o.log_name ? strdup(o.log_name) : NULL;
    s->empty_args = mcp_json_doc_new(NULL);
    if (s->empty_args)
        mcp_json_doc_set_root(s->empty_args, mcp_json_new_object(s->empty_args));
    if (!s->name || !s->version || (o.instructions && !s->instructions) ||
        (o.log_name && !s->log_name) || !s->empty_args ||
        mcp_json_doc_error(s->empty_args) || build_capabilities(s) != MCP_OK ||
        mcp__features_server_init(s) != MCP_OK) {
        mcp_server_free(s);
        return MCP_ERR_NOMEM;
    }
    s->opts.task_store = NULL; /* the tasks feature took what it names */
    s->opts.capabilities = NULL; /* copied into caps */
    s->opts.upstream_argv = NULL; /* the gateway feature's copy */
    s->opts.name = s->name;
    s->opts.version = s->version;
    s->opts.instructions = s->instructions;
    s->opts.log_name = s->log_name;
    s->default_logger.prefix = s->log_name ? s->log_name : s->name;
    s->default_logger.level =
        mcp__log_level_from_env(s->opts.log_level ? s->opts.log_level : MCP_LOG_INFO);
    *out = s;
    return MCP_OK;
}

static void close_loop(mcp_server *s);

static void destroy(mcp_server *s, bool may_join);

void mcp_server_free(mcp_server *s)
{
    if (!s || s->running)
        return;
    if (s->loop_open)
        close_loop(s); /* attached or listening, never run */
    if (atomic_fetch_sub(&s->live, 1) == 1)
        destroy(s, true);
    /* else abandoned handlers still reach it: the last to return frees it */
}

void mcp__server_last_request_freed(mcp_server *s)
{
    destroy(s, false);
}

static void destroy(mcp_server *s, bool may_join)
{
    if (s->abandoned_pool) {
        if (may_join)
            mcp__pool_join(s->abandoned_pool); /* its handlers have all returned */
        else
            mcp__pool_release(s->abandoned_pool); /* we may be one of its threads */
    }
    mcp__poster_destroy(&s->poster);
    mcp__features_server_free(s);
    mcp__offers_destroy(&s->offers);
    mcp_json_doc_free(s->caps);
    mcp_json_doc_free(s->empty_args);
    free(s->state_key);
    free(s->name);
    free(s->version);
    free(s->instructions);
    free(s->log_name);
    free(s);
}

bool mcp__server_post(mcp_server *s, mcp__post *p)
{
    return mcp__poster_post(&s->poster, p);
}

/* Serving ---------------------------------------------------------------------------- */

int mcp__server_open_loop(mcp_server *s)
{
    if (s->loop_open)
        return MCP_OK;
    mcp__ignore_sigpipe();
    mcp__reserve_std_fds();
    if (uv_loop_init(&s->loop) != 0)
        return MCP_ERR_IO;
    s->loop.data = s;
    s->pool = mcp__pool_new(s->opts.worker_threads);
    if (!s->pool || mcp__poster_open(&s->poster, &s->loop) != MCP_OK) {
        if (s->pool) {
            mcp__pool_stop(s->pool);
            mcp__pool_join(s->pool);
            s->pool = NULL;
        }
        uv_loop_close(&s->loop);
        return MCP_ERR_NOMEM;
    }
    uv_timer_init(&s->loop, &s->sweep_timer);
    s->sweep_timer.data = s;
    s->keep_spares = true;
    s->loop_open = true;
    mcp__features_loop_opened(s);
    return MCP_OK;
}

int mcp__server_attach(mcp_server *s, mcp__transport *t)
{
    conn *c;
    int rc = mcp__server_open_loop(s);
    if (rc == MCP_OK)
        rc = mcp__conn_open(s, t, &c);
    if (rc != MCP_OK)
        t->ops->close(t, NULL, NULL);
    return rc;
}

/* Listeners ---------------------------------------------------------------------- */

void mcp__server_listener_add(mcp_server *s, mcp__listener *l)
{
    l->next = s->listeners;
    s->listeners = l;
}

void mcp__server_listener_closed(mcp_server *s, mcp__listener *l)
{
    for (mcp__listener **p = &s->listeners; *p; p = &(*p)->next)
        if (*p == l) {
            *p = l->next;
            break;
        }
    if (!s->conns && !s->listeners)
        uv_stop(&s->loop); /* the run was waiting for the listener */
}

mcp__listener *mcp__server_listener_find(const mcp_server *s, const mcp__listener_ops *ops)
{
    for (mcp__listener *l = s->listeners; l; l = l->next)
        if (l->ops == ops)
            return l;
    return NULL;
}

static void stop_listeners(mcp_server *s)
{
    for (mcp__listener *l = s->listeners, *next; l; l = next) {
        next = l->next; /* it may close within */
        l->ops->stop(l);
    }
}

typedef struct stop_post {
    mcp__post post;
    mcp_server *server;
} stop_post;

static void stop_posted(mcp__post *post)
{
    mcp_server *s = ((stop_post *)post)->server;
    free(post);
    if (s->stopping)
        return;
    s->stopping = true;
    mcp__server_log(s, MCP_LOG_INFO, "stopping: ending subscriptions and calls");
    mcp__features_server_stopping(s);
    for (conn *c = s->conns; c; c = c->next) {
        if (c->down)
            continue;
        mcp_session_end_listens(c->driver.session, mcp__now_ms(), "server shutting down");
        mcp__conn_end(c, "server shutting down");
    }
    stop_listeners(s);
}

void mcp_server_stop(mcp_server *s)
{
    if (!s)
        return;
    atomic_store(&s->stop_asked, true);
    if (!atomic_load(&s->loop_open))
        return;
    stop_post *p = calloc(1, sizeof *p);
    if (!p)
        return; /* checked again when the run starts */
    p->post.run = stop_posted;
    p->server = s;
    if (!mcp__server_post(s, &p->post))
        free(p);
}

/* Close the loop: everything on it, then the loop itself. */
static void close_loop(mcp_server *s)
{
    stop_listeners(s);
    mcp__conns_drop_spares(s);
    mcp__conns_sweep(s, true);
    mcp__features_loop_closing(s);
    uv_close((uv_handle_t *)&s->sweep_timer, NULL);
    bool abandoned = atomic_load(&s->live) > 1; /* more than the owner's */
    mcp__poster_close(&s->poster);
    uv_run(&s->loop, UV_RUN_DEFAULT);
    uv_loop_close(&s->loop);
    mcp__pool_stop(s->pool);
    if (abandoned) {
        if (s->abandoned_pool) /* a run before this one abandoned some too */
            mcp__pool_release(s->abandoned_pool);
        s->abandoned_pool = s->pool; /* joined or released by destroy */
    }
    else
        mcp__pool_join(s->pool); /* all handlers returned: joins at once */
    s->pool = NULL;
    s->loop_open = false;
}

int mcp_server_run(mcp_server *s)
{
    if (s->running)
        return MCP_ERR_STATE;
    int rc = mcp__server_open_loop(s);
    if (rc != MCP_OK)
        return rc;
    s->running = true;
    s->stopping = false;
    size_t ntools = mcp__offers_count(&s->offers, LIST_TOOLS);
    mcp__server_log(s, MCP_LOG_DEBUG, "serving %zu tool(s), pid %ld", ntools, (long)getpid());
    if (atomic_load(&s->stop_asked))
        mcp_server_stop(s);
    if (s->conns || s->listeners)
        uv_run(&s->loop, UV_RUN_DEFAULT);
    close_loop(s);
    s->running = false;
    atomic_store(&s->stop_asked, false);
    return MCP_OK;
}
