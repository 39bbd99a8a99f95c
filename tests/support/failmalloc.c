/* SPDX-License-Identifier: MIT */
#include "failmalloc.h"

#include <stdlib.h>

static void *fm_malloc(void *ud, size_t n)
{
    failmalloc *f = ud;
    if (++f->calls == f->fail_at) {
        f->failed = 1;
        return NULL;
    }
    void *p = malloc(n);
    if (p)
        f->live++;
    return p;
}

static void *fm_realloc(void *ud, void *p, size_t n)
{
    failmalloc *f = ud;
    if (++f->calls == f->fail_at) {
        f->failed = 1;
        return NULL;
    }
    void *q = realloc(p, n);
    if (q && !p)
        f->live++;
    return q;
}

static void fm_free(void *ud, void *p)
{
    failmalloc *f = ud;
    if (p)
        f->live--;
    free(p);
}

void failmalloc_init(failmalloc *f, long fail_at)
{
    f->fail_at = fail_at;
    f->calls = 0;
    f->live = 0;
    f->failed = 0;
    f->mem.user_data = f;
    f->mem.malloc = fm_malloc;
    f->mem.realloc = fm_realloc;
    f->mem.free = fm_free;
}
