/* SPDX-License-Identifier: MIT */
/*
 * URL-mode elicitation (client/elicitation.mdx, from 2025-11-25): the
 * server sends the user to a page of its own; what the user does there never
 * crosses the client. Under 2025-11-25 each such elicitation has an
 * elicitationId, and the server may say when the interaction at the URL is
 * over (notifications/elicitation/complete); a call may also fail with
 * -32042 naming the URL elicitations it needs first. 2026-07-28 keeps the
 * mode but drops the id, the notification and the error: its client
 * retries with the answer instead.
 *
 * The application completes an elicitation by its id alone, from any
 * thread, after its call may have ended: each connection remembers the ids
 * it was given (in an ask or a -32042), at most MCP__MAX_URL_IDS of them,
 * so the notification finds its way to the client that holds them.
 */
#include <stdlib.h>
#include <string.h>

#include "mcp/client.h"
#include "server/ask/ask.h"
#include "session/revision.h"

#define MAX_ID 256

static bool has_ids(const char *version)
{
    return mcp__revision_has(version, MCP__HAS_ELICITATION_IDS);
}

const char *mcp__url_elicitation_check(const mcp_json *params, const char *version)
{
    size_t n;
    const char *url = mcp_json_string(mcp_json_object_get(params, "url"), &n);
    if (!mcp_json_string(mcp_json_object_get(params, "message"), NULL))
        return "a URL elicitation needs a message (a string)";
    const char *host;
    size_t host_len;
    /* The client's own rule (mcp_elicitation_url_host): what a browser can
     * open, with a host to show the user. */
    if (!url || mcp_elicitation_url_host(url, n, &host, &host_len) != MCP_OK)
        return "a URL elicitation needs url, scheme://host... without spaces or controls";
    const char *id = mcp_json_string(mcp_json_object_get(params, "elicitationId"), &n);
    if (has_ids(version) && (!id || !n || n > MAX_ID))
        return "a 2025-11-25 URL elicitation needs elicitationId (1 to 256 bytes)";
    return NULL;
}

void mcp__url_elicitation_note(ask_state *st, const char *version, const mcp_json *params)
{
    size_t n;
    const char *id = mcp_json_string(mcp_json_object_get(params, "elicitationId"), &n);
    const char *mode = mcp_json_string(mcp_json_object_get(params, "mode"), NULL);
    if (!has_ids(version) || !mode || strcmp(mode, "url") != 0 || !id || !n || n > MAX_ID ||
        memchr(id, '\0', n))
        return;
    if (st->n_url_ids == st->url_ids_room && st->url_ids_room < MCP__MAX_URL_IDS) {
        unsigned room = st->url_ids_room ? st->url_ids_room * 2 : 4;
        room = room < MCP__MAX_URL_IDS ? room : MCP__MAX_URL_IDS;
        char **ids = realloc(st->url_ids, room * sizeof *ids);
        if (!ids)
            return; /* its completion will not be sent: a courtesy lost */
        st->url_ids = ids;
        st->url_ids_room = room;
    }
    char *copy = strdup(id);
    if (!copy)
        return; /* the same */
    if (st->n_url_ids == MCP__MAX_URL_IDS) {
        /* The oldest goes: its user has long been done, or never will be. */
        free(st->url_ids[0]);
        memmove(st->url_ids, st->url_ids + 1, (MCP__MAX_URL_IDS - 1) * sizeof *st->url_ids);
        st->n_url_ids--;
    }
    st->url_ids[st->n_url_ids++] = copy;
}

void mcp__url_elicitations_free(ask_state *st)
{
    for (unsigned i = 0; i < st->n_url_ids; i++)
        free(st->url_ids[i]);
    free(st->url_ids);
    st->url_ids = NULL;
    st->n_url_ids = st->url_ids_room = 0;
}

const char *mcp__url_required_check(const char *version, const mcp_json *data)
{
    if (!has_ids(version))
        return "-32042 exists only in revision 2025-11-25";
    const mcp_json *list = mcp_json_object_get(data, "elicitations");
    size_t count = mcp_json_array_size(list);
    if (mcp_json_typeof(list) != MCP_JSON_ARRAY || !count)
        return "-32042 needs data.elicitations, a non-empty array";
    for (size_t i = 0; i < count; i++) {
        const mcp_json *e = mcp_json_array_at(list, i);
        const char *mode = mcp_json_string(mcp_json_object_get(e, "mode"), NULL);
        if (!mode || strcmp(mode, "url") != 0)
            return "-32042 lists URL elicitations only (mode \"url\")";
        const char *why = mcp__url_elicitation_check(e, version);
        if (why)
            return why;
    }
    return NULL;
}

void mcp__url_required_note(ask_state *st, const char *version, const mcp_json *data)
{
    const mcp_json *list = mcp_json_object_get(data, "elicitations");
    for (size_t i = 0; i < mcp_json_array_size(list); i++)
        mcp__url_elicitation_note(st, version, mcp_json_array_at(list, i));
}

/* Completion ------------------------------------------------------------------ */

typedef struct complete_post {
    mcp__post post; /* first */
    mcp_server *server;
    char id[];
} complete_post;

/* Loop thread: the connection that holds id is told, once. */
static void complete_now(mcp_server *s, const char *id)
{
    for (conn *c = s->conns; c; c = c->next) {
        ask_state *st = mcp__conn_state(c, &mcp__ask_feature);
        for (unsigned i = 0; i < st->n_url_ids; i++) {
            if (strcmp(st->url_ids[i], id) != 0)
                continue;
            free(st->url_ids[i]);
            memmove(st->url_ids + i, st->url_ids + i + 1,
                    (st->n_url_ids - i - 1) * sizeof *st->url_ids);
            st->n_url_ids--;
            if (c->down)
                return; /* its client is gone */
            mcp_json_doc *d = mcp_json_doc_new(NULL);
            mcp_json *params = d ? mcp_json_new_object(d) : NULL;
            if (params)
                mcp_json_object_set(d, params, "elicitationId", mcp_json_new_string(d, id));
            if (params && mcp_json_doc_error(d) == MCP_OK)
                mcp_session_notify(c->driver.session, "notifications/elicitation/complete",
                                   params);
            else
                mcp__server_log(s, MCP_LOG_ERROR,
                                "out of memory: the completion of elicitation %s was not sent",
                                id);
            mcp_json_doc_free(d);
            return;
        }
    }
    mcp__server_log(s, MCP_LOG_DEBUG,
                    "elicitation %.64s completed: no client connected holds it", id);
}

static void complete_posted(mcp__post *post)
{
    complete_post *p = (complete_post *)post;
    complete_now(p->server, p->id);
    free(p);
}

int mcp_server_elicitation_complete(mcp_server *s, const char *elicitation_id)
{
    size_t n = elicitation_id ? strlen(elicitation_id) : 0;
    if (!s || !n || n > MAX_ID || mcp_utf8_validate(elicitation_id, n, NULL) != MCP_OK)
        return MCP_ERR_INVALID_ARG;
    if (!atomic_load(&s->loop_open))
        return MCP_OK;
    if (mcp__on_loop_thread(&s->poster)) {
        complete_now(s, elicitation_id);
        return MCP_OK;
    }
    complete_post *p = calloc(1, sizeof *p + n + 1);
    if (!p)
        return MCP_ERR_NOMEM;
    memcpy(p->id, elicitation_id, n + 1);
    p->post.run = complete_posted;
    p->server = s;
    if (!mcp__server_post(s, &p->post))
        free(p);
    return MCP_OK;
}
