/* SPDX-License-Identifier: MIT */
/*
 * URL-mode elicitation (client/elicitation.mdx, 2025-11-25 and
 * 2026-07-28): what a URL-mode elicitation/create must carry before it
 * reaches the application, the host of its url, and the completion
 * notifications of 2025-11-25.
 *
 * The server may say an out-of-band interaction is over
 * (notifications/elicitation/complete) and the client MUST ignore ids it
 * does not know or has already seen completed. Known ids are those the
 * application agreed to (an accepted elicitation/create) and those a
 * URLElicitationRequiredError (-32042) listed: the server tells only the
 * client that started the interaction, so an id it never gave, or one the
 * user declined, is noise at best and a forged "done" at worst. They are
 * kept in a small array on the client, oldest first: a server that never
 * completes what it asked costs a bounded amount, the oldest forgotten.
 *
 * Loop thread, all of it (mcp_elicitation_url_host: any thread).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "session/revision.h"

#define COMPLETE "notifications/elicitation/complete"

/* The URL ------------------------------------------------------------------------------------ */

static bool alpha(unsigned char ch)
{
    return (ch | 0x20) >= 'a' && (ch | 0x20) <= 'z';
}

static bool digit(unsigned char ch)
{
    return ch >= '0' && ch <= '9';
}

int mcp_elicitation_url_host(const char *url, size_t len, const char **host, size_t *host_len)
{
    if (!url || !host || !host_len)
        return MCP_ERR_INVALID_ARG;
    /* No whitespace or control anywhere: a URL (RFC 3986) has none, and a
     * CR, LF or ESC is how a URL is made to look like another. */
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)url[i] <= 0x20 || url[i] == 0x7f)
            return MCP_ERR_INVALID_ARG;
    /* Nor a backslash: a browser reads it as "/" in an http(s) URL, so
     * https://evil.example\@good.example/ opens evil.example while the "@"
     * rule below would show good.example; RFC 3986 has no place for one. */
    if (memchr(url, '\\', len))
        return MCP_ERR_INVALID_ARG;
    size_t i = 0;
    if (!len || !alpha((unsigned char)url[0]))
        return MCP_ERR_INVALID_ARG;
    while (i < len && (alpha((unsigned char)url[i]) || digit((unsigned char)url[i]) ||
                       url[i] == '+' || url[i] == '-' || url[i] == '.'))
        i++;
    /* scheme://: a page to open has an authority (no mailto:, data:,
     * javascript:, and no file:/// either: its host is empty). */
    if (len - i < 3 || memcmp(url + i, "://", 3) != 0)
        return MCP_ERR_INVALID_ARG;
    size_t a = i + 3, e = a;
    while (e < len && url[e] != '/' && url[e] != '?' && url[e] != '#')
        e++;
    /* The host follows the last "@": what comes before it is user
     * information, the oldest way to dress one host up as another. */
    size_t h = a;
    for (size_t k = a; k < e; k++)
        if (url[k] == '@')
            h = k + 1;
    size_t he;
    if (h < e && url[h] == '[') {
        const char *close = memchr(url + h, ']', e - h);
        if (!close)
            return MCP_ERR_INVALID_ARG;
        he = (size_t)(close - url) + 1;
        if (he < e && url[he] != ':')
            return MCP_ERR_INVALID_ARG;
    } else {
        he = h;
        while (he < e && url[he] != ':')
            he++;
    }
    /* A browser decodes "%" escapes in a host: what it opens is not what
     * is shown. No real host needs one. */
    if (he == h || memchr(url + h, '%', he - h))
        return MCP_ERR_INVALID_ARG;
    for (size_t k = he + 1; k < e; k++)
        if (!digit((unsigned char)url[k]))
            return MCP_ERR_INVALID_ARG;
    *host = url + h;
    *host_len = he - h;
    return MCP_OK;
}

/* The request --------------------------------------------------------------------------------- */

static const char *revision(const mcp_client *c)
{
    return c->driver_open ? mcp_session_protocol_version(c->driver.session) : NULL;
}

/* 2025-11-25 only: later revisions dropped the ids and the notification
 * (2026-07-28's server learns on the retry). */
static bool has_ids(const mcp_client *c)
{
    return mcp__revision_has(revision(c), MCP__HAS_ELICITATION_IDS);
}

const char *mcp__client_url_problem(const mcp_client *c, const mcp_json *params, char *why,
                                         size_t n)
{
    const char *v = revision(c);
    if (v && !mcp__revision_has(v, MCP__HAS_URL_ELICITATION)) {
        snprintf(why, n, "URL-mode elicitation came with protocol revision 2025-11-25, not in "
                         "%s, the one in use",
                 v);
        return why;
    }
    size_t len;
    const char *url = mcp_json_string(mcp_json_object_get(params, "url"), &len);
    const char *host;
    size_t host_len;
    if (!url)
        return "params.url must be a string";
    if (mcp_elicitation_url_host(url, len, &host, &host_len) != MCP_OK)
        return "params.url is not a URL with a scheme and a host (scheme://host/...), "
               "without spaces or control characters";
    if (has_ids(c) &&
        mcp_json_typeof(mcp_json_object_get(params, "elicitationId")) != MCP_JSON_STRING)
        return "params.elicitationId must be a string";
    return NULL;
}

/* The ids ------------------------------------------------------------------------------------- */

static ptrdiff_t find(const mcp_client *c, const char *id, size_t len)
{
    for (size_t i = 0; i < c->elicitation_count; i++)
        if (c->elicitations[i].len == len && !memcmp(c->elicitations[i].id, id, len))
            return (ptrdiff_t)i;
    return -1;
}

/* Out of the array; the id is the caller's to free. */
static char *take(mcp_client *c, size_t i)
{
    char *id = c->elicitations[i].id;
    memmove(&c->elicitations[i], &c->elicitations[i + 1],
            (c->elicitation_count - i - 1) * sizeof c->elicitations[0]);
    c->elicitation_count--;
    return id;
}

static void wait_for(mcp_client *c, const char *id, size_t len, const char *from)
{
    if (!c->opts.on_elicitation_complete || find(c, id, len) >= 0)
        return;
    if (len > MCP_CLIENT_MAX_ELICITATION_ID || memchr(id, '\0', len)) {
        mcp__client_say(c, MCP_LOG_DEBUG, MCP_LOG_EVENT_GENERAL,
            "the elicitationId of %s is not kept (over %d bytes, or a NUL in it): its "
            "completion will be ignored",
            from, MCP_CLIENT_MAX_ELICITATION_ID);
        return;
    }
    char *copy = malloc(len + 1);
    if (!copy) {
        mcp__client_say(c, MCP_LOG_WARNING, MCP_LOG_EVENT_GENERAL,
            "out of memory keeping the elicitationId of %s: its completion will be ignored",
            from);
        return;
    }
    memcpy(copy, id, len);
    copy[len] = '\0';
    if (c->elicitation_count == MCP_CLIENT_MAX_OPEN_ELICITATIONS) {
        char *old = take(c, 0);
        mcp__client_say(c, MCP_LOG_DEBUG, MCP_LOG_EVENT_GENERAL,
            "elicitationId \"%.80s\" forgotten: %d others were waited for since",
            old, MCP_CLIENT_MAX_OPEN_ELICITATIONS);
        free(old);
    }
    c->elicitations[c->elicitation_count].id = copy;
    c->elicitations[c->elicitation_count].len = len;
    c->elicitation_count++;
}

void mcp__client_url_answered(mcp_client *c, const mcp_json *params, const mcp_json *result)
{
    const char *action = mcp_json_string(mcp_json_object_get(result, "action"), NULL);
    size_t len;
    const char *id = mcp_json_string(mcp_json_object_get(params, "elicitationId"), &len);
    /* Declined or cancelled: the user never went there, so a "complete"
     * for it is not to be believed. */
    if (id && action && !strcmp(action, "accept") && has_ids(c))
        wait_for(c, id, len, "an accepted URL-mode elicitation");
}

void mcp__client_url_required(mcp_client *c, const mcp_message *m)
{
    if (!m || m->kind != MCP_MESSAGE_ERROR || m->error_code != MCP_WIRE_URL_ELICITATION_REQUIRED ||
        !has_ids(c))
        return;
    const mcp_json *list = mcp_json_object_get(m->error_data, "elicitations");
    for (size_t i = 0; i < mcp_json_array_size(list); i++) {
        const mcp_json *e = mcp_json_array_at(list, i);
        const char *mode = mcp_json_string(mcp_json_object_get(e, "mode"), NULL);
        size_t len;
        const char *id = mcp_json_string(mcp_json_object_get(e, "elicitationId"), &len);
        if (mode && !strcmp(mode, "url") && id)
            wait_for(c, id, len, "a URLElicitationRequiredError");
    }
}

bool mcp__client_url_notification(mcp_client *c, const mcp_message *m)
{
    if (!mcp_message_method_is(m, COMPLETE))
        return false;
    size_t len;
    const char *id = mcp_json_string(mcp_json_object_get(m->params, "elicitationId"), &len);
    if (!id) {
        mcp__client_say(c, MCP_LOG_DEBUG, MCP_LOG_EVENT_BAD_INPUT,
            "ignored %s: its params.elicitationId is not a string", COMPLETE);
        return true;
    }
    ptrdiff_t i = find(c, id, len);
    if (i < 0) {
        mcp__client_say(c, MCP_LOG_DEBUG, MCP_LOG_EVENT_DROPPED,
            "ignored %s: elicitationId \"%.*s\" is none this client waits for (unknown, "
            "declined, already completed or forgotten)",
            COMPLETE, (int)(len > 80 ? 80 : len), id);
        return true;
    }
    /* Forgotten before the hook runs: a second notification for it, even
     * one the hook's own code brings in, is a repeat. */
    char *done = take(c, (size_t)i);
    c->opts.on_elicitation_complete(c->opts.elicitation_complete_user_data, done);
    free(done);
    return true;
}

void mcp__client_url_free(mcp_client *c)
{
    while (c->elicitation_count)
        free(take(c, c->elicitation_count - 1));
}
