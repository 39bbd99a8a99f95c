/* SPDX-License-Identifier: MIT */
/*
 * schema validate tools/call args: our validator against Ajv on the same
 * 2020-12 schema and the same 1 KB arguments (bench/data), each timed in its
 * own process as the best of 7 rounds of 200,000 validations of the parsed
 * arguments (compiling is done once, outside the timing, as a server does
 * at registration). Prints own, ajv and ratio (ajv / own: above 1 is
 * faster than Ajv). Without node or Ajv, prints own only.
 *
 * usage: bench_schema SCHEMA MESSAGE [NODE INTEROP_DIR AJV_SCRIPT]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/mcp.h"

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

static mcp_json_doc *load(const char *path)
{
    size_t len;
    char *text = slurp(path, &len);
    mcp_json_doc *d = NULL;
    if (!text || mcp_json_parse(text, len, NULL, NULL, &d, NULL) != MCP_OK) {
        fprintf(stderr, "bench_schema: cannot read %s\n", path);
        exit(1);
    }
    free(text);
    return d;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 6) {
        fputs("usage: bench_schema SCHEMA MESSAGE [NODE INTEROP_DIR AJV_SCRIPT]\n", stderr);
        return 2;
    }
    mcp_json_doc *sd = load(argv[1]), *md = load(argv[2]);
    mcp_schema *s;
    char why[200];
    if (mcp_schema_compile(mcp_json_doc_root(sd), NULL, &s, why, sizeof why) != MCP_OK) {
        fprintf(stderr, "bench_schema: the schema is refused: %s\n", why);
        return 1;
    }
    const mcp_json *args =
        mcp_json_object_get(mcp_json_object_get(mcp_json_doc_root(md), "params"), "arguments");
    mcp_schema_error err;
    if (mcp_schema_validate(s, args, &err) != MCP_OK) {
        fprintf(stderr, "bench_schema: the arguments do not validate: %s %s %s\n",
                err.instance_path, err.keyword, err.message);
        return 1;
    }
    double best = 1e30;
    for (int round = 0; round < 7; round++) {
        int n = 200000, ok = 0;
        double t0 = now_ns();
        for (int i = 0; i < n; i++)
            ok += mcp_schema_validate(s, args, NULL) == MCP_OK;
        double ns = (now_ns() - t0) / n;
        if (ok != n)
            return 1;
        if (ns < best)
            best = ns;
    }
    mcp_schema_free(s);
    mcp_json_doc_free(sd);
    mcp_json_doc_free(md);
    double ajv = 0;
    if (argc == 6) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' '%s' '%s'", argv[3], argv[5], argv[4], argv[1],
                 argv[2]);
        FILE *p = popen(cmd, "r");
        if (!p || fscanf(p, "%lf", &ajv) != 1)
            ajv = 0;
        if (p)
            pclose(p);
    }
    if (ajv > 0)
        printf("schema validate tools/call args: own=%.0f ajv=%.0f ratio=%.2f\n", best, ajv,
               ajv / best);
    else
        printf("schema validate tools/call args: own=%.0f (ajv not run)\n", best);
    return 0;
}
