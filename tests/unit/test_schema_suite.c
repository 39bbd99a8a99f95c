/* SPDX-License-Identifier: MIT */
/*
 * The official JSON Schema Test Suite (Debian's json-schema-test-suite,
 * which ships up to draft 7) against our validator: every required draft7
 * file, every group and test in it. Groups whose schema refers to another
 * document (remote references: refRemote.json, the metaschema) must fail
 * to compile with MCP_ERR_SCHEMA_REMOTE, never silently pass, and are
 * counted apart: exactly the groups pinned in REMOTE below, so that a group
 * that breaks (a $ref to a document of the schema's own no longer found)
 * cannot hide among them. Exits 1 on any other failure, printing each, and
 * the totals. Without the suite it fails (77, skipped, only with
 * MCP_TEST_ALLOW_SKIP=1).
 *
 * usage: test_schema_suite [DIR]   (default: the Debian package's draft7)
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "missing.h"
#include "mcp/mcp.h"

#define DEFAULT_DIR "/usr/share/json-schema-test-suite/tests/draft7"

/* The groups whose schema names another document, which nothing here
 * fetches: file and group description, as the suite has them. */
static const char *const REMOTE[][2] = {
    /* Their $ref to "#/definitions/..." sits beside the metaschema's $ref. */
    {"definitions.json", "valid definition"},
    {"definitions.json", "invalid definition"},
    {"ref.json", "remote ref, containing refs itself"},
    {"refRemote.json", "remote ref"},
    {"refRemote.json", "fragment within remote ref"},
    {"refRemote.json", "ref within remote ref"},
    {"refRemote.json", "base URI change"},
    {"refRemote.json", "base URI change - change folder"},
    {"refRemote.json", "base URI change - change folder in subschema"},
    {"refRemote.json", "root ref in remote ref"},
};
#define NREMOTE (sizeof REMOTE / sizeof REMOTE[0])

/* The index of file/group in REMOTE, or -1. */
static int remote_index(const char *file, const char *group)
{
    for (size_t i = 0; i < NREMOTE; i++)
        if (!strcmp(REMOTE[i][0], file) && group && !strcmp(REMOTE[i][1], group))
            return (int)i;
    return -1;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = b ? (size_t)n : 0;
    return b;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : DEFAULT_DIR;
    DIR *d = opendir(dir);
    if (!d) {
        char what[4200];
        snprintf(what, sizeof what, "no test suite at %s (json-schema-test-suite)", dir);
        return test_missing(what);
    }
    char *names[256];
    size_t nnames = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nnames < 256) {
        size_t n = strlen(e->d_name);
        if (n > 5 && !strcmp(e->d_name + n - 5, ".json"))
            names[nnames++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, nnames, sizeof *names, by_name);
    size_t passed = 0, failed = 0, remote_groups = 0, remote_tests = 0;
    bool remote_seen[NREMOTE] = {0};
    for (size_t f = 0; f < nnames; f++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[f]);
        size_t len;
        char *text = slurp(path, &len);
        mcp_json_doc *doc = NULL;
        if (!text || mcp_json_parse(text, len, NULL, NULL, &doc, NULL) != MCP_OK) {
            printf("FAIL %s: cannot read\n", names[f]);
            failed++;
            free(text);
            continue;
        }
        const mcp_json *groups = mcp_json_doc_root(doc);
        for (size_t g = 0; g < mcp_json_array_size(groups); g++) {
            const mcp_json *group = mcp_json_array_at(groups, g);
            const char *gdesc = mcp_json_string(mcp_json_object_get(group, "description"), NULL);
            const mcp_json *tests = mcp_json_object_get(group, "tests");
            mcp_schema_options o = {.size = sizeof o, .dialect = MCP_SCHEMA_DIALECT_DRAFT_07};
            mcp_schema *s = NULL;
            char why[256];
            int rc = mcp_schema_compile(mcp_json_object_get(group, "schema"), &o, &s, why,
                                        sizeof why);
            int pinned = remote_index(names[f], gdesc);
            if (rc == MCP_ERR_SCHEMA_REMOTE && pinned >= 0) {
                remote_seen[pinned] = true;
                remote_groups++;
                remote_tests += mcp_json_array_size(tests);
                continue;
            }
            if (rc == MCP_ERR_SCHEMA_REMOTE) {
                printf("FAIL %s / %s: refused as a remote reference (%s), and not pinned as "
                       "one\n", names[f], gdesc, why);
                failed += mcp_json_array_size(tests) ? mcp_json_array_size(tests) : 1;
                continue;
            }
            if (pinned >= 0) {
                /* Compiled: the pin is stale (fetching came, or the suite
                 * changed); the list must say what really is not run. */
                printf("FAIL %s / %s: pinned as remote, but it compiled\n", names[f], gdesc);
                failed++;
            }
            for (size_t t = 0; t < mcp_json_array_size(tests); t++) {
                const mcp_json *test = mcp_json_array_at(tests, t);
                const char *tdesc = mcp_json_string(mcp_json_object_get(test, "description"), NULL);
                bool want = false;
                mcp_json_get_bool(mcp_json_object_get(test, "valid"), &want);
                mcp_schema_error err;
                int vr = rc == MCP_OK ? mcp_schema_validate(s, mcp_json_object_get(test, "data"),
                                                             &err)
                                      : rc;
                bool ok = rc == MCP_OK && (want ? vr == MCP_OK : vr == MCP_ERR_SCHEMA_MISMATCH);
                if (ok) {
                    passed++;
                    continue;
                }
                failed++;
                if (rc != MCP_OK)
                    printf("FAIL %s / %s / %s: schema refused: %s\n", names[f], gdesc, tdesc, why);
                else
                    printf("FAIL %s / %s / %s: expected %s, got %s (%s at '%s': %s)\n", names[f],
                           gdesc, tdesc, want ? "valid" : "invalid", mcp_strerror(vr),
                           err.keyword, err.instance_path, err.message);
            }
            mcp_schema_free(s);
        }
        mcp_json_doc_free(doc);
        free(text);
    }
    for (size_t f = 0; f < nnames; f++)
        free(names[f]);
    for (size_t i = 0; i < NREMOTE; i++)
        if (!remote_seen[i]) {
            /* Gone from the suite, or compiled (said above). */
            printf("FAIL %s / %s: pinned as remote, not seen as one\n", REMOTE[i][0],
                   REMOTE[i][1]);
            failed++;
        }
    printf("json schema test suite draft7 (required): %zu passed, %zu failed; %zu tests in %zu "
           "groups need remote references (not run)\n",
           passed, failed, remote_tests, remote_groups);
    return failed || !passed ? 1 : 0;
}
