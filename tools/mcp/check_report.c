/* SPDX-License-Identifier: MIT */
/*
 * The verdicts of mcp check-cancel, either direction: kept as they are
 * found, then printed as a table (colours only on a terminal) or as JSON,
 * and the exit status they make.
 */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "check_cancel.h"
#include "cli.h"
#include "text.h"

static const char *const names[] = {"PASS", "FAIL", "WARN", "SKIP"};

void check_addv(check_results *r, const char *id, const char *level, const char *rule,
                check_verdict v, const char *fmt, va_list ap)
{
    if (r->n == CHECK_RESULTS_MAX)
        return;
    check_result *x = &r->list[r->n++];
    x->id = id;
    x->level = level;
    x->rule = rule;
    x->v = v;
    vsnprintf(x->detail, sizeof x->detail, fmt, ap);
}

void check_add(check_results *r, const char *id, const char *level, const char *rule,
               check_verdict v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    check_addv(r, id, level, rule, v, fmt, ap);
    va_end(ap);
}

int check_results_exit(const check_results *r, bool strict, size_t *fails, size_t *warns)
{
    *fails = *warns = 0;
    for (size_t i = 0; i < r->n; i++) {
        *fails += r->list[i].v == CHECK_FAIL;
        *warns += r->list[i].v == CHECK_WARN;
    }
    return *fails || (strict && *warns) ? 1 : 0;
}

mcp_json *check_results_json(const check_results *r, mcp_json_doc *d)
{
    mcp_json *list = mcp_json_new_array(d);
    for (size_t i = 0; i < r->n; i++) {
        const check_result *x = &r->list[i];
        mcp_json *o = mcp_json_new_object(d);
        mcp_json_object_set(d, o, "id", mcp_json_new_string(d, x->id));
        mcp_json_object_set(d, o, "verdict", mcp_json_new_string(d, names[x->v]));
        mcp_json_object_set(d, o, "level", mcp_json_new_string(d, x->level));
        mcp_json_object_set(d, o, "rule", mcp_json_new_string(d, x->rule));
        mcp_json_object_set(d, o, "detail", mcp_json_new_string(d, x->detail));
        mcp_json_array_append(d, list, o);
    }
    return list;
}

void check_results_table(const check_results *r)
{
    bool tty = isatty(STDOUT_FILENO);
    static const char *const colour[] = {"\033[32m", "\033[31m", "\033[33m", "\033[2m"};
    for (size_t i = 0; i < r->n; i++) {
        const check_result *x = &r->list[i];
        printf("  %s%-4s%s  %-26s %-8s %s\n        %s\n", tty ? colour[x->v] : "", names[x->v],
               tty ? "\033[0m" : "", x->id, x->level, x->rule, cli_safe(x->detail));
    }
}
