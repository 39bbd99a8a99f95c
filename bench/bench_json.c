/* SPDX-License-Identifier: MIT */
/*
 * JSON parse and parse+write of the 1 KB tools/call message in
 * bench/data/, with our JSON and with jansson, in the same process.
 * Prints the median time per operation over several rounds and the ratio
 * jansson/own (higher is better for us).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/json.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static const char *text;
static size_t text_len;
static volatile size_t sink;

static void own_parse(void)
{
    mcp_json_doc *doc;
    if (mcp_json_parse(text, text_len, NULL, NULL, &doc, NULL) != MCP_OK)
        abort();
    sink += mcp_json_object_size(mcp_json_doc_root(doc));
    mcp_json_doc_free(doc);
}

static void own_parse_write(void)
{
    static mcp_buf buf;
    static int init;
    if (!init) {
        mcp_buf_init(&buf, 0, NULL);
        init = 1;
    }
    mcp_json_doc *doc;
    if (mcp_json_parse(text, text_len, NULL, NULL, &doc, NULL) != MCP_OK)
        abort();
    mcp_buf_reset(&buf);
    if (mcp_json_write(mcp_json_doc_root(doc), &buf) != MCP_OK)
        abort();
    sink += buf.len;
    mcp_json_doc_free(doc);
}

static void jansson_parse(void)
{
    json_t *j = json_loadb(text, text_len, JSON_REJECT_DUPLICATES, NULL);
    if (!j)
        abort();
    sink += json_object_size(j);
    json_decref(j);
}

static void jansson_parse_write(void)
{
    static char out[4096];
    json_t *j = json_loadb(text, text_len, JSON_REJECT_DUPLICATES, NULL);
    if (!j)
        abort();
    size_t n = json_dumpb(j, out, sizeof out, JSON_COMPACT);
    if (n == 0 || n > sizeof out)
        abort();
    sink += n;
    json_decref(j);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median over rounds of the mean ns per call, each round ~50 ms. */
static double measure(void (*fn)(void))
{
    long iters = 1;
    for (;;) {
        double t0 = now_ns();
        for (long i = 0; i < iters; i++)
            fn();
        if (now_ns() - t0 > 5e6)
            break;
        iters *= 2;
    }
    iters *= 10;
    double rounds[9];
    for (int r = 0; r < 9; r++) {
        double t0 = now_ns();
        for (long i = 0; i < iters; i++)
            fn();
        rounds[r] = (now_ns() - t0) / (double)iters;
    }
    qsort(rounds, 9, sizeof rounds[0], cmp_double);
    return rounds[4];
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "bench/data/tools_call_1k.json";
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    static char data[1 << 16];
    text_len = fread(data, 1, sizeof data, f);
    fclose(f);
    text = data;

    double op = measure(own_parse), jp = measure(jansson_parse);
    double opw = measure(own_parse_write), jpw = measure(jansson_parse_write);
    printf("json parse 1KB: own=%.0f jansson=%.0f ratio=%.1f\n", op, jp, jp / op);
    printf("json parse+write 1KB: own=%.0f jansson=%.0f ratio=%.1f\n", opw, jpw,
           jpw / opw);
    return 0;
}
