/* SPDX-License-Identifier: MIT */
/* The default log sink: one line per record on stderr, written with a
 * single write so lines from several threads never interleave. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runtime/log.h"

static const char *level_name(mcp_log_level l)
{
    const char *name = mcp_log_level_name(l);
    return name ? name : "log";
}

void mcp__log_vsay(mcp_log_fn fn, void *ud, mcp_log_level level, mcp_log_event event,
                   const char *fmt, va_list ap)
{
    char text[512], safe[600];
    vsnprintf(text, sizeof text, fmt, ap);
    mcp_text_escape_controls(text, strlen(text), safe, sizeof safe);
    mcp_log_record r = {.level = level, .event = event, .message = safe, .age_ms = -1};
    fn(ud, &r);
}

void mcp__stderr_log(void *user_data, const mcp_log_record *r)
{
    const mcp__stderr_logger *l = user_data;
    if (r->level < l->level)
        return;
    /* Records from anywhere (a handler's log, an application's) may carry
     * a peer's text: one line, acting on nothing, like the session's. */
    char message[1024];
    mcp_text_escape_controls(r->message, strlen(r->message), message, sizeof message);
    char line[1200];
    int n = snprintf(line, sizeof line, "%s: %s: %s\n", l->prefix, level_name(r->level),
                     message);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line) {
        n = sizeof line - 1;
        line[n - 1] = '\n';
    }
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
}

mcp_log_level mcp__log_level_from_env(mcp_log_level fallback)
{
    const char *v = getenv("MCP_LOG_LEVEL");
    if (!v)
        return fallback;
    if (!strcmp(v, "debug"))
        return MCP_LOG_DEBUG;
    if (!strcmp(v, "info"))
        return MCP_LOG_INFO;
    if (!strcmp(v, "warn") || !strcmp(v, "warning"))
        return MCP_LOG_WARNING;
    if (!strcmp(v, "error"))
        return MCP_LOG_ERROR;
    /* Said once per process: a typo must not pass for the default. */
    static atomic_flag warned = ATOMIC_FLAG_INIT;
    if (*v && !atomic_flag_test_and_set(&warned)) {
        char line[200];
        char shown[64];
        mcp_text_escape_controls(v, strnlen(v, 40), shown, sizeof shown);
        int n = snprintf(line, sizeof line,
                         "libmcp: ignoring MCP_LOG_LEVEL=%s: expected debug, info, warn or "
                         "error\n",
                         shown);
        if (n > 0) {
            ssize_t w = write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
            (void)w;
        }
    }
    return fallback;
}
