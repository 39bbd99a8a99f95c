/* SPDX-License-Identifier: MIT */
/*
 * Tokens a resource server has judged, so that the same token on the
 * next request (a client sends one until it expires) costs a lookup, not
 * a check (or an introspection): the Authorization header's exact bytes,
 * the key set it was checked against, until when the verdict stands, and
 * whom it names with what scope (or that it was refused: an introspected
 * token the authorization server called inactive, so that a flood of bad
 * tokens does not become a flood of introspections).
 *
 * Direct-mapped by a hash of the header, so bounded in size; an entry
 * counts only for the key set it was checked with (a new set, after a
 * rotation, finds none) and only before its end (the token's exp with
 * the check's skew, or the introspection's bound).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "server/auth/auth.h"

#define SLOTS 512
#define HEADER_MAX 8192

typedef struct entry {
    char *header;
    size_t len;
    uint64_t keys;
    int64_t until_s;
    char *principal; /* NULL: refused */
    char *scope;
} entry;

struct mcp__token_cache {
    pthread_mutex_t lock;
    entry slot[SLOTS];
};

mcp__token_cache *mcp__token_cache_new(void)
{
    mcp__token_cache *c = calloc(1, sizeof *c);
    if (c)
        pthread_mutex_init(&c->lock, NULL);
    return c;
}

static void clear(entry *e)
{
    free(e->header);
    free(e->principal);
    free(e->scope);
    memset(e, 0, sizeof *e);
}

void mcp__token_cache_free(mcp__token_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < SLOTS; i++)
        clear(&c->slot[i]);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* FNV-1a: spreads headers that differ anywhere over the slots. */
static size_t slot_of(const char *header, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)header[i]) * 1099511628211ull;
    return (size_t)(h % SLOTS);
}

int mcp__token_cache_get(mcp__token_cache *c, uint64_t keys, const char *header, int64_t now_s,
                         char **principal, char **scope)
{
    *principal = *scope = NULL;
    size_t len = header ? strlen(header) : 0;
    if (!c || !len || len > HEADER_MAX)
        return 0;
    int found = 0;
    pthread_mutex_lock(&c->lock);
    entry *e = &c->slot[slot_of(header, len)];
    if (e->header && e->len == len && e->keys == keys && !memcmp(e->header, header, len)) {
        if (now_s >= e->until_s) { /* until_s: jwt.c's first refused second */
            clear(e); /* expired: checked again, and refused, next time */
        } else if (!e->principal) {
            found = -1;
        } else {
            *principal = strdup(e->principal);
            *scope = e->scope ? strdup(e->scope) : NULL;
            if (*principal && (*scope || !e->scope)) {
                found = 1;
            } else {
                free(*principal);
                free(*scope);
                *principal = *scope = NULL;
            }
        }
    }
    pthread_mutex_unlock(&c->lock);
    return found;
}

void mcp__token_cache_put(mcp__token_cache *c, uint64_t keys, const char *header,
                          int64_t until_s, const char *principal, const char *scope)
{
    size_t len = header ? strlen(header) : 0;
    if (!c || !len || len > HEADER_MAX)
        return;
    char *h = malloc(len), *p = principal ? strdup(principal) : NULL;
    char *sc = principal && scope ? strdup(scope) : NULL;
    if (!h || (principal && !p) || (principal && scope && !sc)) {
        free(h);
        free(p);
        free(sc);
        return; /* not kept: checked again next time */
    }
    memcpy(h, header, len);
    pthread_mutex_lock(&c->lock);
    entry *e = &c->slot[slot_of(header, len)];
    clear(e);
    *e = (entry){h, len, keys, until_s, p, sc};
    pthread_mutex_unlock(&c->lock);
}
