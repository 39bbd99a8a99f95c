/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mcp/json.h"
#include "session/task_wire.h"

static const char *const status_names[] = {"working", "input_required", "completed", "failed",
                                           "cancelled"};

const char *mcp__task_status_name(mcp__task_status s)
{
    return status_names[s];
}

/* RFC 3339, UTC, with milliseconds: what ISO 8601 allows and every parser
 * reads. */
static void timestamp(char out[32], int64_t ms)
{
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 32 - n, ".%03dZ", (int)(ms % 1000));
}

void mcp__task_write(mcp__jw *w, const mcp__task_view *v)
{
    char when[32];
    mcp__jw_key(w, "taskId");
    mcp__jw_string(w, v->id);
    mcp__jw_key(w, "status");
    mcp__jw_string(w, mcp__task_status_name(v->status));
    if (v->status_message) {
        mcp__jw_key(w, "statusMessage");
        mcp__jw_string(w, v->status_message);
    }
    timestamp(when, v->created_ms);
    mcp__jw_key(w, "createdAt");
    mcp__jw_string(w, when);
    timestamp(when, v->updated_ms);
    mcp__jw_key(w, "lastUpdatedAt");
    mcp__jw_string(w, when);
    /* The extension renamed them (ext-tasks schema: ttlMs, pollIntervalMs). */
    mcp__jw_key(w, v->modern ? "ttlMs" : "ttl");
    mcp__jw_int(w, (int64_t)v->ttl_ms);
    mcp__jw_key(w, v->modern ? "pollIntervalMs" : "pollInterval");
    mcp__jw_int(w, (int64_t)v->poll_ms);
}

int mcp__task_result_with_meta(const char *result, size_t len, const char *id, mcp_buf *out)
{
    mcp_json_doc *d;
    int rc = mcp_json_parse(result, len, NULL, NULL, &d, NULL);
    if (rc != MCP_OK)
        return rc;
    const mcp_json *root = mcp_json_doc_root(d), *meta = NULL;
    mcp__jw w;
    mcp__jw_begin(&w, out);
    mcp__jw_object(&w);
    for (size_t i = 0; i < mcp_json_object_size(root); i++) {
        const char *k;
        size_t kn;
        const mcp_json *v = mcp_json_object_at(root, i, &k, &kn);
        if (kn == 5 && !memcmp(k, "_meta", 5) && mcp_json_typeof(v) == MCP_JSON_OBJECT) {
            meta = v;
            continue;
        }
        mcp__jw_keyn(&w, k, kn);
        mcp__jw_value(&w, v);
    }
    mcp__jw_key(&w, "_meta");
    mcp__jw_object(&w);
    for (size_t i = 0; i < mcp_json_object_size(meta); i++) {
        const char *k;
        size_t kn;
        const mcp_json *v = mcp_json_object_at(meta, i, &k, &kn);
        if (kn == strlen(MCP__RELATED_TASK) && !memcmp(k, MCP__RELATED_TASK, kn))
            continue;
        mcp__jw_keyn(&w, k, kn);
        mcp__jw_value(&w, v);
    }
    mcp__jw_key(&w, MCP__RELATED_TASK);
    mcp__jw_object(&w);
    mcp__jw_key(&w, "taskId");
    mcp__jw_string(&w, id);
    mcp__jw_object_end(&w);
    mcp__jw_object_end(&w);
    mcp__jw_object_end(&w);
    rc = mcp__jw_finish(&w);
    mcp_json_doc_free(d);
    return rc;
}
