/* SPDX-License-Identifier: MIT */
/*
 * schema validate tools/call args: our validator against Ajv on the same
 * 2020-12 schema and the same 1 KB arguments (bench/data), each timed in its
 * own process as the best of 7 rounds of 200,000 validations of the parsed
 * arguments (compiling is done once, outside the timing, as a server does
 * at registration). Prints own, ajv and ratio (ajv / own: above 1 is
 * faster than Ajv). Without node or Ajv, prints own only.
 *
 * Two more schemas, written here, are timed the same way, so that a change
 * made for the first does not cost the others: a tool's outputSchema with
 * ten result records (arrays of objects, required, additionalProperties,
 * a pattern per record), and a composed one ($ref, allOf, oneOf of objects
 * told apart by a const, unevaluatedProperties). Ajv gets each through
 * temporary files, as it gets the first.
 *
 * With --count N, nothing is timed and Ajv is not run: the first schema
 * (or, with --case NAME, another) validates its instance N times, for
 * instruction counts that the machine's load does not move:
 *
 *   valgrind --tool=callgrind --toggle-collect=mcp_schema_validate \
 *       bench_schema --count 10000 SCHEMA MESSAGE
 *
 * (instructions per validation: the total divided by N).
 *
 * usage: bench_schema [--count N [--case NAME]] SCHEMA MESSAGE
 *                     [NODE INTEROP_DIR AJV_SCRIPT]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

static mcp_json_doc *parse_text(const char *what, const char *text, size_t len)
{
    mcp_json_doc *d = NULL;
    if (!text || mcp_json_parse(text, len, NULL, NULL, &d, NULL) != MCP_OK) {
        fprintf(stderr, "bench_schema: cannot read %s\n", what);
        exit(1);
    }
    return d;
}

static mcp_json_doc *load(const char *path)
{
    size_t len = 0;
    char *text = slurp(path, &len);
    mcp_json_doc *d = parse_text(path, text, len);
    free(text);
    return d;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The schemas written here, with one instance each (valid: the benchmark
 * times the answer a server gives most). */
#define RECORD(id, title, score, tags)                                                         \
    "{\"id\":\"r-" id "\",\"title\":\"" title "\",\"score\":" score                              \
    ",\"url\":\"https://example.com/r/" id "\",\"tags\":[" tags "],\"published\":\"2025-09-" id   \
    "\"}"

static const char records_schema[] =
    "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","
    "\"properties\":{"
    "\"results\":{\"type\":\"array\",\"maxItems\":100,\"items\":{\"type\":\"object\","
    "\"properties\":{\"id\":{\"type\":\"string\",\"minLength\":1},"
    "\"title\":{\"type\":\"string\",\"maxLength\":300},"
    "\"score\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1},"
    "\"url\":{\"type\":\"string\",\"pattern\":\"^https://\"},"
    "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":10},"
    "\"published\":{\"type\":\"string\",\"pattern\":\"^[0-9]{4}-[0-9]{2}-[0-9]{2}$\"}},"
    "\"required\":[\"id\",\"title\",\"score\"],\"additionalProperties\":false}},"
    "\"total\":{\"type\":\"integer\",\"minimum\":0},"
    "\"next_cursor\":{\"type\":[\"string\",\"null\"]}},"
    "\"required\":[\"results\",\"total\"],\"additionalProperties\":false}";

static const char records_instance[] =
    "{\"results\":["
    RECORD("10", "Quarterly revenue report Q3", "0.98", "\"finance\",\"q3\"") ","
    RECORD("11", "Revenue by region", "0.91", "\"finance\"") ","
    RECORD("12", "Board summary, September", "0.87", "\"board\",\"summary\"") ","
    RECORD("13", "Growth percentages 2024-2025", "0.8", "") ","
    RECORD("14", "Internal draft: forecast", "0.77", "\"draft\"") ","
    RECORD("15", "Costs and margins", "0.7", "\"finance\",\"costs\"") ","
    RECORD("16", "Sales pipeline", "0.66", "\"sales\"") ","
    RECORD("17", "Annual report 2024", "0.61", "\"annual\"") ","
    RECORD("18", "Investor letter", "0.55", "\"investors\",\"letter\"") ","
    RECORD("19", "Appendix: tables", "0.5", "\"appendix\"")
    "],\"total\":137,\"next_cursor\":\"c-20\"}";

static const char composed_schema[] =
    "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\","
    "\"allOf\":[{\"$ref\":\"#/$defs/base\"}],"
    "\"properties\":{\"steps\":{\"type\":\"array\",\"minItems\":1,"
    "\"items\":{\"$ref\":\"#/$defs/action\"}}},"
    "\"required\":[\"steps\"],\"unevaluatedProperties\":false,"
    "\"$defs\":{"
    "\"base\":{\"type\":\"object\",\"properties\":{\"session\":{\"type\":\"string\"},"
    "\"dry_run\":{\"type\":\"boolean\"}},\"required\":[\"session\"]},"
    "\"action\":{\"oneOf\":["
    "{\"type\":\"object\",\"properties\":{\"kind\":{\"const\":\"move\"},"
    "\"x\":{\"type\":\"integer\",\"minimum\":0},\"y\":{\"type\":\"integer\",\"minimum\":0}},"
    "\"required\":[\"kind\",\"x\",\"y\"],\"additionalProperties\":false},"
    "{\"type\":\"object\",\"properties\":{\"kind\":{\"const\":\"click\"},"
    "\"button\":{\"enum\":[\"left\",\"right\",\"middle\"]},"
    "\"count\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":3}},"
    "\"required\":[\"kind\",\"button\"],\"additionalProperties\":false},"
    "{\"type\":\"object\",\"properties\":{\"kind\":{\"const\":\"type\"},"
    "\"text\":{\"type\":\"string\",\"maxLength\":1000}},"
    "\"required\":[\"kind\",\"text\"],\"additionalProperties\":false}]}}}";

static const char composed_instance[] =
    "{\"session\":\"s-42\",\"dry_run\":false,\"steps\":["
    "{\"kind\":\"move\",\"x\":120,\"y\":48},{\"kind\":\"click\",\"button\":\"left\"},"
    "{\"kind\":\"type\",\"text\":\"quarterly revenue\"},"
    "{\"kind\":\"move\",\"x\":300,\"y\":200},{\"kind\":\"click\",\"button\":\"left\",\"count\":2},"
    "{\"kind\":\"type\",\"text\":\"Q3\"},{\"kind\":\"click\",\"button\":\"right\"}]}";

typedef struct bench_case {
    const char *id;      /* for --case */
    const char *name;    /* printed after "schema validate " */
    const char *schema;  /* JSON text, or NULL: from the command line */
    const char *instance;
} bench_case;

static const bench_case cases[] = {
    {"args", "tools/call args", NULL, NULL},
    {"records", "tool result records", records_schema, records_instance},
    {"composed", "composed oneOf/unevaluated", composed_schema, composed_instance},
};
#define NCASES (sizeof cases / sizeof cases[0])

static int write_file(const char *path, const char *a, const char *b, const char *c)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(a, f);
    fputs(b, f);
    fputs(c, f);
    return fclose(f);
}

/* Ajv's best ns per validation of the case, or 0 when it could not run. */
static double run_ajv(char **argv, const char *schema_path, const char *message_path)
{
    char cmd[4096];
    double ajv = 0;
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' '%s' '%s'", argv[3], argv[5], argv[4], schema_path,
             message_path);
    FILE *p = popen(cmd, "r");
    if (!p || fscanf(p, "%lf", &ajv) != 1)
        ajv = 0;
    if (p)
        pclose(p);
    return ajv;
}

int main(int argc, char **argv)
{
    long count = 0;
    const char *only = "args";
    while (argc > 1 && argv[1][0] == '-' && argv[1][1] == '-') {
        if (argc > 2 && strcmp(argv[1], "--count") == 0)
            count = atol(argv[2]);
        else if (argc > 2 && strcmp(argv[1], "--case") == 0)
            only = argv[2];
        else
            break;
        argc -= 2;
        argv += 2;
    }
    if (argc != 3 && argc != 6) {
        fputs("usage: bench_schema [--count N [--case args|records|composed]] SCHEMA MESSAGE "
              "[NODE INTEROP_DIR AJV_SCRIPT]\n",
              stderr);
        return 2;
    }
    char dir[] = "/tmp/bench_schema.XXXXXX";
    bool have_dir = argc == 6 && count <= 0 && mkdtemp(dir) != NULL;
    for (size_t c = 0; c < NCASES; c++) {
        const bench_case *bc = &cases[c];
        if (count > 0 && strcmp(bc->id, only) != 0)
            continue;
        mcp_json_doc *sd, *md;
        const mcp_json *args;
        if (!bc->schema) {
            sd = load(argv[1]);
            md = load(argv[2]);
            args = mcp_json_object_get(mcp_json_object_get(mcp_json_doc_root(md), "params"),
                                       "arguments");
        } else {
            sd = parse_text(bc->name, bc->schema, strlen(bc->schema));
            md = parse_text(bc->name, bc->instance, strlen(bc->instance));
            args = mcp_json_doc_root(md);
        }
        mcp_schema *s;
        char why[200];
        if (mcp_schema_compile(mcp_json_doc_root(sd), NULL, &s, why, sizeof why) != MCP_OK) {
            fprintf(stderr, "bench_schema: %s: the schema is refused: %s\n", bc->name, why);
            return 1;
        }
        mcp_schema_error err;
        if (mcp_schema_validate(s, args, &err) != MCP_OK) {
            fprintf(stderr, "bench_schema: %s: the instance does not validate: %s %s %s\n",
                    bc->name, err.instance_path, err.keyword, err.message);
            return 1;
        }
        if (count > 0) {
            long ok = 0;
            for (long i = 0; i < count; i++)
                ok += mcp_schema_validate(s, args, NULL) == MCP_OK;
            printf("schema validate %s: %ld validations\n", bc->name, ok);
            mcp_schema_free(s);
            mcp_json_doc_free(sd);
            mcp_json_doc_free(md);
            continue;
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
        if (argc == 6 && !bc->schema) {
            ajv = run_ajv(argv, argv[1], argv[2]);
        } else if (have_dir) {
            char sp[64], mp[64];
            snprintf(sp, sizeof sp, "%s/schema.json", dir);
            snprintf(mp, sizeof mp, "%s/message.json", dir);
            if (write_file(sp, bc->schema, "", "") == 0 &&
                write_file(mp, "{\"params\":{\"arguments\":", bc->instance, "}}") == 0)
                ajv = run_ajv(argv, sp, mp);
            unlink(sp);
            unlink(mp);
        }
        if (ajv > 0)
            printf("schema validate %s: own=%.0f ajv=%.0f ratio=%.2f\n", bc->name, best, ajv,
                   ajv / best);
        else
            printf("schema validate %s: own=%.0f (ajv not run)\n", bc->name, best);
        fflush(stdout);
    }
    if (have_dir)
        rmdir(dir);
    return 0;
}
