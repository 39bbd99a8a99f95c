#include "core/u64map.h"

#include <stdbool.h>

#include "core/hash.h"
#include "core/mem.h"

static uint32_t home(const mcp__u64map *m, uint64_t key)
{
    return (uint32_t)mcp__hash_u64(key) & (m->size - 1);
}

void *mcp__u64map_get(const mcp__u64map *m, uint64_t key)
{
    if (!m->size)
        return NULL;
    for (uint32_t h = home(m, key);; h = (h + 1) & (m->size - 1)) {
        const mcp__u64map_entry *e = &m->slots[h];
        if (!e->value || e->key == key)
            return e->value;
    }
}

static void place(mcp__u64map *m, uint64_t key, void *value)
{
    uint32_t h = home(m, key);
    while (m->slots[h].value)
        h = (h + 1) & (m->size - 1);
    m->slots[h].key = key;
    m->slots[h].value = value;
}

int mcp__u64map_put(mcp__u64map *m, const mcp_mem *mem, uint64_t key, void *value)
{
    if ((m->count + 1) * 2 > m->size) {
        mcp__u64map old = *m;
        uint32_t size = m->size ? m->size * 2 : 64;
        mcp__u64map_entry *slots = mcp__calloc(mem, size, sizeof *slots);
        if (!slots)
            return MCP_ERR_NOMEM;
        m->slots = slots;
        m->size = size;
        for (uint32_t i = 0; i < old.size; i++)
            if (old.slots[i].value)
                place(m, old.slots[i].key, old.slots[i].value);
        mcp__free(mem, old.slots);
    }
    place(m, key, value);
    m->count++;
    return MCP_OK;
}

void *mcp__u64map_take(mcp__u64map *m, uint64_t key)
{
    if (!m->size)
        return NULL;
    uint32_t mask = m->size - 1, hole = home(m, key);
    while (m->slots[hole].value && m->slots[hole].key != key)
        hole = (hole + 1) & mask;
    void *value = m->slots[hole].value;
    if (!value)
        return NULL;
    /* Shift later members of the cluster back into the hole when their
     * home slot is not between the hole and where they sit. */
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
    return value;
}

void mcp__u64map_free(mcp__u64map *m, const mcp_mem *mem)
{
    mcp__free(mem, m->slots);
    m->slots = NULL;
    m->size = m->count = 0;
}
