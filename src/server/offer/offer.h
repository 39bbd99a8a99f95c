/* SPDX-License-Identifier: MIT */
/*
 * What a server offers, apart from serving it: tools, resources, resource
 * templates and prompts as registered (checked, copied, each list item
 * serialized once), and the immutable snapshots served from them with
 * their pages. No I/O, no loop, no session: the serving side (core/,
 * methods/) reads snapshots and answers with their bytes.
 *
 * Threads: a snapshot is immutable and refcounted, readable from any
 * thread; mcp__offers is guarded by its own mutex.
 */
#ifndef MCP_SERVER_OFFER_H
#define MCP_SERVER_OFFER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "json/writer.h"
#include "mcp/schema.h"
#include "mcp/server.h"
#include "mcp/uri_template.h"

/* What every listed item has: its place in registration order (seq, the
 * key a cursor names) and its list item, serialized once. */
typedef struct listed {
    uint64_t seq;
    char *item;
    size_t item_len;
} listed;

/* A registered tool: immutable once built, shared by the snapshots that
 * list it and the calls that run it. */
typedef struct tool {
    atomic_uint refs;
    listed l;
    char *name;
    mcp_json_doc *input_schema, *output_schema, *required_caps;
    mcp_schema *input_check, *output_check; /* compiled once */
    bool param_headers; /* a member x-mcp-header is somewhere in its input
                           schema: http/ checks the headers it names */
    mcp_tool_fn handler;
    void *user_data;
    unsigned flags;
    mcp_task_support task_support;
    char **scopes; /* what a call needs (NULL-terminated), or NULL */
} tool;

/* Resources, resource templates and prompts (catalog.c). */
typedef enum { ENTRY_RESOURCE, ENTRY_TEMPLATE, ENTRY_PROMPT } entry_kind;

typedef struct entry {
    atomic_uint refs;
    listed l;
    entry_kind kind;
    char *key; /* the URI, the URI template or the prompt's name */
    mcp_uri_template *tmpl;        /* ENTRY_TEMPLATE */
    char **arg_names;              /* ENTRY_PROMPT: as declared */
    bool *arg_required;
    size_t nargs;
    mcp_tool_fn handler, complete; /* read or get; completion (optional) */
    void *user_data;
    unsigned flags;
    char **scopes; /* what a read or get needs (NULL-terminated), or NULL */
} entry;

/* The lists: registration order, ascending seq. */
enum { LIST_TOOLS, LIST_RESOURCES, LIST_TEMPLATES, LIST_PROMPTS, LIST_KINDS };

typedef struct item_list {
    void **v; /* tool * for LIST_TOOLS, entry * for the others */
    size_t n, cap;
} item_list;

/* What the server offers at one moment: an immutable snapshot, shared
 * read-only by every connection and kept by each request that started
 * with it. Each list's first page is serialized once per snapshot. */
typedef struct registry {
    atomic_uint refs;
    item_list lists[LIST_KINDS];
    size_t page_size;
    uint64_t ttl_ms;
    mcp_cache_scope scope;
    char *first[LIST_KINDS][2]; /* the first page, legacy and 2026-07-28 */
    size_t first_len[LIST_KINDS][2];
} registry;

/* tool.c, catalog.c: items built from the application's specs (seq: their
 * place in registration order). MCP_ERR_INVALID_ARG for a spec that is not
 * valid, MCP_ERR_NOMEM. */
int mcp__tool_new(const mcp_tool *spec, tool **out, uint64_t seq);
void mcp__tool_unref(tool *t);
int mcp__resource_new(const mcp_resource *spec, entry **out, uint64_t seq);
int mcp__template_new(const mcp_resource_template *spec, entry **out, uint64_t seq,
                      char *why, size_t why_len);
int mcp__prompt_new(const mcp_prompt *spec, entry **out, uint64_t seq);
void mcp__entry_unref(entry *e);
/* The place of prompt e's argument name (n bytes) among its arguments, or
 * e->nargs when it declares none of that name. */
size_t mcp__prompt_argument(const entry *e, const char *name, size_t n);
/* Write the members "annotations" (an object), "icons" (an array) and
 * "_meta" (an object) from their JSON texts (each may be NULL).
 * MCP_ERR_INVALID_ARG when one is not JSON of its type. */
int mcp__catalog_extras(mcp__jw *w, const char *annotations, const char *icons,
                        const char *meta);
/* An item's scopes copied (catalog.c): *out NULL for none (in NULL or
 * empty). MCP_ERR_INVALID_ARG for one that is not a scope-token (RFC 6749
 * section 3.3: 1*( %x21 / %x23-5B / %x5D-7E ), at most 256 bytes) or more
 * than 64 of them; MCP_ERR_NOMEM. Free with mcp__scopes_free. */
int mcp__scopes_copy(const char *const *in, char ***out);
void mcp__scopes_free(char **scopes);
/* Release a list item of list kind k (a tool or an entry). */
void mcp__item_unref(int k, void *item);
/* The key an item of list k is found by (a tool's name, an entry's key). */
const char *mcp__item_key(int k, const void *item);

/* registry.c: a snapshot of the lists (each item gains a reference), its
 * first pages serialized. NULL when out of memory. */
registry *mcp__registry_build(const item_list lists[LIST_KINDS], size_t page_size,
                              uint64_t ttl_ms, mcp_cache_scope scope);
void mcp__registry_ref(registry *r);
void mcp__registry_unref(registry *r);
const tool *mcp__registry_find(const registry *r, const char *name, size_t len);
const entry *mcp__registry_entry(const registry *r, int k, const char *key, size_t len);
/* The entry a resources/read of uri (n bytes) is served by: the resource
 * of that URI, else the first template that matches it (its variables
 * into *vars when vars is not NULL, else dropped). NULL when none, or out
 * of memory (*nomem). */
const entry *mcp__registry_read_entry(const registry *r, const char *uri, size_t n,
                                      mcp_json_doc **vars, bool *nomem);
/* The scopes the item a request names needs (tools/call and prompts/get
 * by params.name, resources/read by params.uri), into *out (owned by r;
 * NULL: none, another method, or no such item: the method answers that).
 * MCP_OK or MCP_ERR_NOMEM. */
int mcp__registry_needs(const registry *r, const char *method, size_t mlen,
                        const mcp_json *params, const char *const **out);
/* The first page of list k (modern: with the 2026-07-28 caching hints),
 * owned by r. */
const char *mcp__registry_first_page(const registry *r, int k, bool modern, size_t *len);
/* The page of list k that cursor (n bytes) names, appended to out.
 * MCP_ERR_NOT_FOUND for a cursor this server never gave for this list;
 * MCP_ERR_NOMEM. */
int mcp__registry_page(const registry *r, int k, const char *cursor, size_t n, bool modern,
                       mcp_buf *out);

/* offers.c: what is registered now, changed from any thread. */
typedef struct mcp__offers {
    pthread_mutex_t mu;      /* guards everything below */
    item_list lists[LIST_KINDS];
    uint64_t next_seq;
    registry *current;       /* the snapshot served now (NULL: build it) */
    size_t page_size;
    uint64_t ttl_ms;
    mcp_cache_scope scope;
} mcp__offers;

void mcp__offers_init(mcp__offers *o, size_t page_size, uint64_t ttl_ms, mcp_cache_scope scope);
void mcp__offers_destroy(mcp__offers *o);
/* The snapshot to serve a new request with, referenced; NULL when out of
 * memory. */
registry *mcp__offers_snapshot(mcp__offers *o);
/* A number for the item about to be registered: its place in every list's
 * order, and what a cursor names. */
uint64_t mcp__offers_next_seq(mcp__offers *o);
/* Register item (ours now, released on failure) in list k: a new snapshot
 * is made now if one is being served. MCP_ERR_INVALID_ARG when its key is
 * registered already. */
int mcp__offers_add(mcp__offers *o, int k, void *item);
/* MCP_ERR_NOT_FOUND when nothing of list k has that key. */
int mcp__offers_remove(mcp__offers *o, int k, const char *key);
size_t mcp__offers_count(mcp__offers *o, int k);

#endif
