/* SPDX-License-Identifier: MIT */
#include "core/map.h"

#include "core/hash.h"
#include "core/mem.h"

static uint32_t home(const mcp__map *m, uint64_t key)
{
    return (uint32_t)mcp__hash_u64(key) & (m->size - 1);
}

void *mcp__map_get(const mcp__map *m, uint64_t key)
{
    if (!m->size)
        return NULL;
    for (uint32_t h = home(m, key);; h = (h + 1) & (m->size - 1)) {
        const mcp__map_entry *e = &m->slots[h];
        if (!e->value || e->key == key)
            return e->value;
    }
}

void *mcp__map_find(const mcp__map *m, uint64_t key, mcp__map_match_fn match,
                    const void *ctx)
{
    if (!m->size)
        return NULL;
    for (uint32_t h = home(m, key);; h = (h + 1) & (m->size - 1)) {
        const mcp__map_entry *e = &m->slots[h];
        if (!e->value)
            return NULL;
        if (e->key == key && match(e->value, ctx))
            return e->value;
    }
}

static void place(mcp__map *m, uint64_t key, void *value)
{
    uint32_t h = home(m, key);
    while (m->slots[h].value)
        h = (h + 1) & (m->size - 1);
    m->slots[h].key = key;
    m->slots[h].value = value;
}

int mcp__map_reserve(mcp__map *m, const mcp_mem *mem, uint32_t more)
{
    /* At most half full. */
    if (more > UINT32_MAX / 4 - m->count)
        return MCP_ERR_NOMEM;
    uint64_t need = ((uint64_t)m->count + more) * 2;
    if (need <= m->size)
        return MCP_OK;
    uint32_t size = m->size ? m->size : 8;
    while (size < need)
        size *= 2;
    mcp__map old = *m;
    mcp__map_entry *slots = mcp__calloc(mem, size, sizeof *slots);
    if (!slots)
        return MCP_ERR_NOMEM;
    m->slots = slots;
    m->size = size;
    for (uint32_t i = 0; i < old.size; i++)
        if (old.slots[i].value)
            place(m, old.slots[i].key, old.slots[i].value);
    mcp__free(mem, old.slots);
    return MCP_OK;
}

int mcp__map_put(mcp__map *m, const mcp_mem *mem, uint64_t key, void *value)
{
    int rc = mcp__map_reserve(m, mem, 1);
    if (rc)
        return rc;
    place(m, key, value);
    m->count++;
    return MCP_OK;
}

/* Empty slot i; later members of its cluster move back into the hole when
 * their home is not cyclically between the hole and where they sit. */
static void remove_at(mcp__map *m, uint32_t hole)
{
    uint32_t mask = m->size - 1;
    for (uint32_t i = hole;;) {
        i = (i + 1) & mask;
        if (!m->slots[i].value)
            break;
        uint32_t h = home(m, m->slots[i].key);
        bool between = hole <= i ? (h > hole && h <= i) : (h > hole || h <= i);
        if (!between) {
            m->slots[hole] = m->slots[i];
            hole = i;
        }
    }
    m->slots[hole].value = NULL;
    m->count--;
}

void *mcp__map_take(mcp__map *m, uint64_t key)
{
    if (!m->size)
        return NULL;
    for (uint32_t h = home(m, key);; h = (h + 1) & (m->size - 1)) {
        void *value = m->slots[h].value;
        if (!value)
            return NULL;
        if (m->slots[h].key == key) {
            remove_at(m, h);
            return value;
        }
    }
}

bool mcp__map_remove(mcp__map *m, uint64_t key, const void *value)
{
    if (!m->size)
        return false;
    for (uint32_t h = home(m, key);; h = (h + 1) & (m->size - 1)) {
        const mcp__map_entry *e = &m->slots[h];
        if (!e->value)
            return false;
        if (e->key == key && e->value == value) {
            remove_at(m, h);
            return true;
        }
    }
}

void mcp__map_free(mcp__map *m, const mcp_mem *mem)
{
    mcp__free(mem, m->slots);
    m->slots = NULL;
    m->size = m->count = 0;
}
