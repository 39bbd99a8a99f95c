/* SPDX-License-Identifier: MIT */
/*
 * What each protocol revision allows, in one table (design.md: eras are
 * data, not branches). Newest first. The engine asks this table, never the
 * version strings, what a peer may do.
 */
#include <string.h>

#include "session/entry.h"
#include "session/internal.h"
#include "session/revision.h"

static const mcp__era eras[] = {
    /* version       speaks modern batch  server server disconnect elicit url   elicitation tasks  task
     *                                    asks   cancels cancels           mode  ids                ext */
    {"2026-07-28",   true,  true,  false, false, false,  true,      true,  true,  false,      false, true},
    {"2025-11-25",   true,  false, false, true,  true,   false,     true,  true,  true,       true,  false},
    {"2025-06-18",   true,  false, false, true,  true,   false,     true,  false, false,      false, false},
    /* Older peers we accept: we answer in their revision. */
    {"2025-03-26",   false, false, true,  true,  true,   false,     false, false, false,      false, false},
    {"2024-11-05",   false, false, false, true,  true,   false,     false, false, false,      false, false},
};

const mcp__era *mcp__era_find(const char *version, size_t len)
{
    for (size_t i = 0; i < sizeof eras / sizeof eras[0]; i++)
        if (strlen(eras[i].version) == len && memcmp(eras[i].version, version, len) == 0)
            return &eras[i];
    return NULL;
}

const mcp__era *mcp__era_latest(bool modern)
{
    for (size_t i = 0; i < sizeof eras / sizeof eras[0]; i++)
        if (eras[i].speaks && eras[i].modern == modern)
            return &eras[i];
    return NULL;
}

void mcp__era_write_supported(mcp__jw *w)
{
    mcp__jw_array(w);
    for (size_t i = 0; i < sizeof eras / sizeof eras[0]; i++)
        if (eras[i].speaks)
            mcp__jw_string(w, eras[i].version);
    mcp__jw_array_end(w);
}

/* Whether the elicitation capability e (an object) declares form mode:
 * by name, or by being empty (2025-11-25: {} means form only). */
static bool declares_form(const mcp_json *e)
{
    return mcp_json_object_size(e) == 0 || mcp_json_object_get(e, "form") != NULL;
}

/* extensions (an object, or NULL for none) with `add` among them, an
 * empty object unless the caller's own says more. */
static void write_extensions_with(mcp__jw *w, const mcp_json *extensions, const char *add)
{
    mcp__jw_key(w, "extensions");
    mcp__jw_object(w);
    for (size_t i = 0; i < mcp_json_object_size(extensions); i++) {
        const char *k;
        size_t kn;
        const mcp_json *v = mcp_json_object_at(extensions, i, &k, &kn);
        mcp__jw_keyn(w, k, kn);
        mcp__jw_value(w, v);
    }
    if (!mcp_json_object_get(extensions, add)) {
        mcp__jw_key(w, add);
        mcp__jw_object(w);
        mcp__jw_object_end(w);
    }
    mcp__jw_object_end(w);
}

/* tasks without its list member (an anonymous peer's). */
static void write_tasks_unlisted(mcp__jw *w, const mcp_json *tasks)
{
    mcp__jw_object(w);
    for (size_t i = 0; i < mcp_json_object_size(tasks); i++) {
        const char *k;
        size_t kn;
        const mcp_json *v = mcp_json_object_at(tasks, i, &k, &kn);
        if (kn == 4 && !memcmp(k, "list", 4))
            continue;
        mcp__jw_keyn(w, k, kn);
        mcp__jw_value(w, v);
    }
    mcp__jw_object_end(w);
}

void mcp__write_caps(const mcp_session *s, mcp__jw *w, const mcp__era *era)
{
    mcp__write_caps_with(s, w, era, NULL);
}

void mcp__write_caps_with(const mcp_session *s, mcp__jw *w, const mcp__era *era,
                          const char *extension)
{
    const mcp_json *caps = mcp_json_doc_root(s->caps_doc);
    /* The common case costs two tests: a revision that has every
     * elicitation mode there is (or a server's), and tasks (or none
     * declared). */
    const mcp_json *e = s->role == MCP_ROLE_CLIENT && !era->url_elicitation
                            ? mcp_json_object_get(caps, "elicitation")
                            : NULL;
    /* The tasks capability exists in 2025-11-25 only (2026-07-28 has
     * tasks as an extension, under extensions). */
    const mcp_json *tasks = !era->tasks || s->anonymous ? mcp_json_object_get(caps, "tasks")
                                                        : NULL;
    /* Extensions are negotiated from 2026-07-28 on. */
    const mcp_json *extensions = !era->modern || extension
                                     ? mcp_json_object_get(caps, "extensions") : NULL;
    if (!e && !tasks && !extensions && !extension) {
        mcp__jw_value(w, caps);
        return;
    }
    mcp__jw_object(w);
    for (size_t i = 0; i < mcp_json_object_size(caps); i++) {
        const char *k;
        size_t kn;
        const mcp_json *v = mcp_json_object_at(caps, i, &k, &kn);
        if (v == tasks && era->tasks) { /* an anonymous peer's: no list */
            mcp__jw_key(w, "tasks");
            write_tasks_unlisted(w, v);
            continue;
        }
        if (v == tasks || (v == extensions && !extension))
            continue;
        if (v == extensions) {
            write_extensions_with(w, extensions, extension);
            continue;
        }
        if (v != e) {
            mcp__jw_keyn(w, k, kn);
            mcp__jw_value(w, v);
        } else if (era->elicitation && mcp_json_typeof(e) == MCP_JSON_OBJECT &&
                   declares_form(e)) {
            /* 2025-06-18: elicitation is an empty object, form being the
             * only mode there is. */
            mcp__jw_key(w, "elicitation");
            mcp__jw_object(w);
            mcp__jw_object_end(w);
        }
        /* else: a revision without elicitation, or only modes it lacks. */
    }
    if (extension && !extensions)
        write_extensions_with(w, NULL, extension);
    mcp__jw_object_end(w);
}

void mcp__session_set_anonymous(mcp_session *s)
{
    s->anonymous = true;
}

bool mcp__session_anonymous(const mcp_session *s)
{
    return s->anonymous;
}

bool mcp_protocol_known(const char *version, size_t len)
{
    return version && mcp__era_find(version, len) != NULL;
}

/* The era of a version string: the table's own (what the session hands
 * out, a pointer compare) or an equal one. */
static const mcp__era *era_of(const char *version)
{
    if (!version)
        return NULL;
    for (size_t i = 0; i < sizeof eras / sizeof eras[0]; i++)
        if (eras[i].version == version)
            return &eras[i];
    return mcp__era_find(version, strlen(version));
}

bool mcp__revision_has(const char *version, mcp__revision_feature f)
{
    const mcp__era *e = era_of(version);
    if (!e)
        return false;
    switch (f) {
    case MCP__HAS_ELICITATION:
        return e->elicitation;
    case MCP__HAS_URL_ELICITATION:
        return e->url_elicitation;
    case MCP__HAS_ELICITATION_IDS:
        return e->elicitation_ids;
    case MCP__HAS_TASKS:
        return e->tasks;
    case MCP__HAS_TASK_EXTENSION:
        return e->task_extension;
    }
    return false;
}

bool mcp_protocol_modern(const char *version)
{
    const mcp__era *e = era_of(version);
    return e && e->modern;
}
