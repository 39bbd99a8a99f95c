/* SPDX-License-Identifier: MIT */
/*
 * Tokens a resource server has accepted, so that the same token on the
 * next request (a client sends one until it expires) costs a lookup, not
 * a check: the Authorization header's exact bytes, the key set it was
 * checked against, until when it stays good, and whom it names.
 *
 * Direct-mapped by a hash of the header, so bounded in size; an entry
 * counts only for the key set it was checked with (a new set, after a
 * rotation, finds none) and only before its end (the token's exp with
 * the check's skew). Only accepted tokens get in.
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
    char *principal;
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

char *mcp__token_cache_get(mcp__token_cache *c, uint64_t keys, const char *header,
                           int64_t now_s)
{
    size_t len = header ? strlen(header) : 0;
    if (!c || !len || len > HEADER_MAX)
        return NULL;
    char *principal = NULL;
    pthread_mutex_lock(&c->lock);
    entry *e = &c->slot[slot_of(header, len)];
    if (e->header && e->len == len && e->keys == keys && !memcmp(e->header, header, len)) {
        if (now_s < e->until_s) /* until_s is exp + skew: jwt.c's first refused second */
            principal = strdup(e->principal);
        else
            clear(e); /* expired: checked again, and refused, next time */
    }
    pthread_mutex_unlock(&c->lock);
    return principal;
}

void mcp__token_cache_put(mcp__token_cache *c, uint64_t keys, const char *header,
                          int64_t until_s, const char *principal)
{
    size_t len = header ? strlen(header) : 0;
    if (!c || !len || len > HEADER_MAX)
        return;
    char *h = malloc(len), *p = strdup(principal);
    if (!h || !p) {
        free(h);
        free(p);
        return; /* not kept: checked again next time */
    }
    memcpy(h, header, len);
    pthread_mutex_lock(&c->lock);
    entry *e = &c->slot[slot_of(header, len)];
    clear(e);
    *e = (entry){h, len, keys, until_s, p};
    pthread_mutex_unlock(&c->lock);
}
