/* SPDX-License-Identifier: MIT */
/*
 * mcp resources, templates, read, prompts, prompt, complete: a server's
 * resources, prompts and completion. Each connects, asks, prints and
 * disconnects (cli_run_command); what the user gives is checked before
 * any server is started.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "text.h"

typedef struct feature_args {
    const char *first, *second;        /* the positional arguments */
    const char *prompt, *template_uri;  /* complete: --prompt or --template */
    const char *context_text;           /* complete: --context */
    mcp_json_doc *json;                 /* prompt: ARGS_JSON; complete: --context */
} feature_args;

/* Run cmd with its arguments' state, and drop what they held. */
static int run_feature(const cli_command *cmd, int argc, char **argv)
{
    feature_args f = {0};
    int code = cli_run_command(cmd, &f, argc, argv);
    mcp_json_doc_free(f.json);
    return code;
}

/* Checks ------------------------------------------------------------------------------------- */

static bool utf8(const char *what, const char *s)
{
    if (!*s) {
        fprintf(stderr, "mcp: the %s is empty\n", what);
        return false;
    }
    if (mcp_utf8_validate(s, strlen(s), NULL) != MCP_OK) {
        fprintf(stderr, "mcp: the %s '%s' is not valid UTF-8\n", what, cli_safe(s));
        return false;
    }
    return true;
}

/* text as a JSON object whose values are all strings (prompt arguments,
 * completion context), into *out; else false after saying why. */
static bool strings_object(const char *what, const char *text, mcp_json_doc **out)
{
    mcp_json_error err;
    if (mcp_json_parse(text, strlen(text), NULL, NULL, out, &err) != MCP_OK) {
        fprintf(stderr, "mcp: %s is not valid JSON: %s\n", what, err.message);
        return false;
    }
    const mcp_json *root = mcp_json_doc_root(*out);
    const char *bad = NULL;
    size_t bad_len = 0;
    for (size_t i = 0; i < mcp_json_object_size(root) && !bad; i++)
        if (mcp_json_typeof(mcp_json_object_at(root, i, &bad, &bad_len)) == MCP_JSON_STRING)
            bad = NULL;
    if (mcp_json_typeof(root) == MCP_JSON_OBJECT && !bad)
        return true;
    if (bad)
        fprintf(stderr, "mcp: %s: \"%s\" is not a string (every value must be one, like "
                        "'{\"code\":\"x = 1\"}')\n", what, cli_safe_n(bad, bad_len));
    else
        fprintf(stderr, "mcp: %s must be a JSON object of strings, like '{\"code\":\"x = 1\"}'\n",
                what);
    mcp_json_doc_free(*out);
    *out = NULL;
    return false;
}

static bool needs(int n, int min, const char *what)
{
    if (n >= min)
        return true;
    fprintf(stderr, "mcp: missing %s\n", what);
    return false;
}

/* Say why a request failed, and drop what it left: the exit code. */
static int failed(mcp_client *c, const char *method, int rc, mcp_client_call_result *r)
{
    int code = cli_request_failed(c, method, rc, r);
    mcp_client_call_result_release(r);
    return code;
}

/* Lists --------------------------------------------------------------------------------------- */

typedef int (*list_fn)(mcp_client *, const mcp_client_call_options *, mcp_json_doc **,
                       mcp_cache_hint *);

/* Print a list (one line an item: key, name or title, description), or as JSON. */
static int print_list(mcp_client *c, const mcp_client_call_options *co,
                      const cli_client_args *a, list_fn fn, const char *method,
                      const char *key)
{
    mcp_json_doc *doc = NULL;
    mcp_cache_hint hint = {.size = sizeof hint};
    int rc = fn(c, co, &doc, &hint);
    if (rc != MCP_OK)
        return cli_request_failed(c, method, rc, NULL);
    const mcp_json *list = mcp_json_doc_root(doc);
    if (a->json) {
        cli_print_json(list);
        mcp_json_doc_free(doc);
        return 0;
    }
    for (size_t i = 0; i < mcp_json_array_size(list); i++) {
        const mcp_json *item = mcp_json_array_at(list, i);
        size_t kn, nn, dn;
        const char *k = mcp_json_string(mcp_json_object_get(item, key), &kn);
        const char *name = mcp_json_string(mcp_json_object_get(item, "title"), &nn);
        if (!name)
            name = mcp_json_string(mcp_json_object_get(item, "name"), &nn);
        const char *desc = mcp_json_string(mcp_json_object_get(item, "description"), &dn);
        if (!strcmp(key, "name")) /* a prompt: its name is the key */
            printf("%-20s %s\n", cli_safe_n(k, kn), desc ? cli_safe_n(desc, dn) : "");
        else
            printf("%-30s %-20s %s\n", cli_safe_n(k, kn), cli_safe_n(name, nn),
                   desc ? cli_safe_n(desc, dn) : "");
        const mcp_json *args = mcp_json_object_get(item, "arguments");
        for (size_t j = 0; j < mcp_json_array_size(args); j++) {
            const mcp_json *arg = mcp_json_array_at(args, j);
            bool required = false;
            mcp_json_get_bool(mcp_json_object_get(arg, "required"), &required);
            const char *an = mcp_json_string(mcp_json_object_get(arg, "name"), &nn);
            const char *ad = mcp_json_string(mcp_json_object_get(arg, "description"), &dn);
            printf("    %s%s%s%s\n", cli_safe_n(an, nn), required ? " (required)" : "",
                   ad ? ": " : "", ad ? cli_safe_n(ad, dn) : "");
        }
    }
    cli_print_cache_hint(c, &hint);
    mcp_json_doc_free(doc);
    return 0;
}

static int run_resources(void *st, mcp_client *c, const mcp_client_call_options *co,
                         const cli_client_args *a)
{
    return print_list(c, co, a, mcp_client_list_resources, "resources/list", "uri");
}

static int run_templates(void *st, mcp_client *c, const mcp_client_call_options *co,
                         const cli_client_args *a)
{
    return print_list(c, co, a, mcp_client_list_resource_templates, "resources/templates/list",
                      "uriTemplate");
}

static int run_prompts(void *st, mcp_client *c, const mcp_client_call_options *co,
                       const cli_client_args *a)
{
    return print_list(c, co, a, mcp_client_list_prompts, "prompts/list", "name");
}

int cli_resources(int argc, char **argv)
{
    static const cli_command cmd = {"resources", 0, NULL, NULL, run_resources};
    return cli_run_command(&cmd, NULL, argc, argv);
}

int cli_templates(int argc, char **argv)
{
    static const cli_command cmd = {"templates", 0, NULL, NULL, run_templates};
    return cli_run_command(&cmd, NULL, argc, argv);
}

int cli_prompts(int argc, char **argv)
{
    static const cli_command cmd = {"prompts", 0, NULL, NULL, run_prompts};
    return cli_run_command(&cmd, NULL, argc, argv);
}

/* mcp read -------------------------------------------------------------------------------------- */

static bool check_read(void *st, int n, char **args)
{
    feature_args *f = st;
    if (!needs(n, 1, "the URI of the resource to read"))
        return false;
    f->first = args[0];
    return utf8("URI", f->first);
}

/* One item of a resource's contents. Into a file or a pipe, its bytes as
 * they are (text, or a blob decoded), so that `mcp read URI > file` copies
 * the resource; on a terminal, text made safe and a blob summarised. */
static bool print_contents(const mcp_json *item, bool tty)
{
    size_t n, un;
    const char *text = mcp_json_string(mcp_json_object_get(item, "text"), &n);
    if (text) {
        cli_write_payload(text, n);
        if (tty && (n == 0 || text[n - 1] != '\n'))
            fputc('\n', stdout);
        return true;
    }
    mcp_buf bytes;
    mcp_buf_init(&bytes, SIZE_MAX, NULL);
    int rc = mcp_resource_blob_decode(item, &bytes);
    if (rc != MCP_OK) {
        fprintf(stderr, "mcp: cannot decode the resource's blob: %s\n", mcp_strerror(rc));
        mcp_buf_free(&bytes);
        return false;
    }
    if (tty) {
        const char *uri = mcp_json_string(mcp_json_object_get(item, "uri"), &un);
        const char *mime = mcp_json_string(mcp_json_object_get(item, "mimeType"), &n);
        printf("[binary %s, %zu bytes%s%s; redirect stdout to a file to get them]\n",
               cli_safe_n(uri, un), bytes.len, mime ? ", " : "", mime ? cli_safe_n(mime, n) : "");
    } else {
        fwrite(bytes.data, 1, bytes.len, stdout);
    }
    mcp_buf_free(&bytes);
    return true;
}

static int run_read(void *st, mcp_client *c, const mcp_client_call_options *co,
                    const cli_client_args *a)
{
    feature_args *f = st;
    mcp_client_call_result r = {.size = sizeof r};
    int rc = mcp_client_read_resource(c, f->first, co, &r);
    if (rc != MCP_OK)
        return failed(c, "resources/read", rc, &r);
    int code = 0;
    if (a->json) {
        cli_print_json(r.result);
    } else {
        bool tty = isatty(STDOUT_FILENO);
        const mcp_json *contents = mcp_json_object_get(r.result, "contents");
        for (size_t i = 0; i < mcp_json_array_size(contents) && !code; i++)
            if (!print_contents(mcp_json_array_at(contents, i), tty))
                code = EXIT_CONNECTION;
    }
    mcp_client_call_result_release(&r);
    return code;
}

int cli_read(int argc, char **argv)
{
    static const cli_command cmd = {"read", 1, NULL, check_read, run_read};
    return run_feature(&cmd, argc, argv);
}

/* mcp prompt --------------------------------------------------------------------------------- */

static bool check_prompt(void *st, int n, char **args)
{
    feature_args *f = st;
    if (!needs(n, 1, "the NAME of the prompt"))
        return false;
    f->first = args[0];
    return utf8("prompt NAME", f->first) &&
           (n < 2 || strings_object("ARGS_JSON", args[1], &f->json));
}

/* A message's content: text as the result itself (as mcp call writes a
 * tool's), anything else named in one line. */
static void print_content(const mcp_json *content)
{
    size_t n, un;
    const char *type = mcp_json_string(mcp_json_object_get(content, "type"), &n);
    const char *text = mcp_json_string(mcp_json_object_get(content, "text"), &n);
    const mcp_json *res = mcp_json_object_get(content, "resource");
    const char *res_text = mcp_json_string(mcp_json_object_get(res, "text"), &un);
    if (!strcmp(type, "text") && text) {
        cli_write_payload(text, n);
        fputc('\n', stdout);
    } else if (!strcmp(type, "resource") && res_text) {
        cli_write_payload(res_text, un);
        fputc('\n', stdout);
    } else {
        const char *uri = mcp_json_string(mcp_json_object_get(res ? res : content, "uri"), &un);
        const char *mime = mcp_json_string(mcp_json_object_get(res ? res : content, "mimeType"),
                                           &n);
        printf("[%s%s%s%s%s]\n", cli_safe(type), uri ? " " : "", uri ? cli_safe_n(uri, un) : "",
               mime ? " " : "", mime ? cli_safe_n(mime, n) : "");
    }
}

static int run_prompt(void *st, mcp_client *c, const mcp_client_call_options *co,
                      const cli_client_args *a)
{
    feature_args *f = st;
    mcp_client_call_result r = {.size = sizeof r};
    int rc = mcp_client_get_prompt(c, f->first, mcp_json_doc_root(f->json), co, &r);
    if (rc != MCP_OK)
        return failed(c, "prompts/get", rc, &r);
    if (a->json) {
        cli_print_json(r.result);
    } else {
        size_t n;
        const char *desc = mcp_json_string(mcp_json_object_get(r.result, "description"), &n);
        if (desc)
            fprintf(stderr, "(%s)\n", cli_safe_n(desc, n));
        const mcp_json *messages = mcp_json_object_get(r.result, "messages");
        for (size_t i = 0; i < mcp_json_array_size(messages); i++) {
            const mcp_json *m = mcp_json_array_at(messages, i);
            printf("[%s]\n", cli_safe(mcp_json_string(mcp_json_object_get(m, "role"), NULL)));
            print_content(mcp_json_object_get(m, "content"));
        }
    }
    mcp_client_call_result_release(&r);
    return 0;
}

int cli_prompt(int argc, char **argv)
{
    static const cli_command cmd = {"prompt", 2, NULL, check_prompt, run_prompt};
    return run_feature(&cmd, argc, argv);
}

/* mcp complete --------------------------------------------------------------------------------- */

static int complete_option(void *st, int argc, char **argv, int *i)
{
    feature_args *f = st;
    const char *s = argv[*i];
    const char **dst = !strcmp(s, "--prompt")     ? &f->prompt
                       : !strcmp(s, "--template") ? &f->template_uri
                       : !strcmp(s, "--context")  ? &f->context_text
                                                  : NULL;
    if (!dst)
        return 0;
    const char *v = cli_option_value(argc, argv, *i,
                                     dst == &f->prompt     ? "a prompt's name"
                                     : dst == &f->template_uri ? "a resource template's URI"
                                                           : "a JSON object of strings");
    if (!v)
        return -1;
    *dst = v;
    ++*i;
    return 1;
}

static bool check_complete(void *st, int n, char **args)
{
    feature_args *f = st;
    if (!f->prompt == !f->template_uri) {
        fputs("mcp: complete needs exactly one of --prompt NAME and --template URI\n", stderr);
        return false;
    }
    if (!needs(n, 2, n ? "the VALUE to complete" : "the ARG to complete and its VALUE"))
        return false;
    f->first = args[0];
    f->second = args[1];
    if (mcp_utf8_validate(f->second, strlen(f->second), NULL) != MCP_OK) {
        fprintf(stderr, "mcp: the VALUE '%s' is not valid UTF-8\n", cli_safe(f->second));
        return false;
    }
    return (f->prompt ? utf8("prompt NAME", f->prompt) : utf8("template URI", f->template_uri)) &&
           utf8("ARG", f->first) &&
           (!f->context_text || strings_object("--context", f->context_text, &f->json));
}

static int run_complete(void *st, mcp_client *c, const mcp_client_call_options *co,
                        const cli_client_args *a)
{
    feature_args *f = st;
    mcp_client_call_result r = {.size = sizeof r};
    mcp_completion comp = {.size = sizeof comp};
    int rc = mcp_client_complete(c, f->prompt ? MCP_COMPLETE_PROMPT : MCP_COMPLETE_RESOURCE_TEMPLATE,
                                 f->prompt ? f->prompt : f->template_uri, f->first, f->second,
                                 mcp_json_doc_root(f->json), co, &r, &comp);
    if (rc != MCP_OK)
        return failed(c, "completion/complete", rc, &r);
    if (a->json) {
        cli_print_json(mcp_json_object_get(r.result, "completion"));
    } else {
        for (size_t i = 0; i < comp.count; i++) {
            size_t n;
            const char *v = mcp_json_string(mcp_json_array_at(comp.values, i), &n);
            printf("%s\n", cli_safe_n(v, n));
        }
        if (comp.has_total)
            fprintf(stderr, "(%zu of %llu%s)\n", comp.count, (unsigned long long)comp.total,
                    comp.has_more ? ", more available" : "");
        else if (comp.has_more)
            fprintf(stderr, "(%zu, more available)\n", comp.count);
    }
    mcp_client_call_result_release(&r);
    return 0;
}

int cli_complete(int argc, char **argv)
{
    static const cli_command cmd = {"complete", 2, complete_option, check_complete, run_complete};
    return run_feature(&cmd, argc, argv);
}
