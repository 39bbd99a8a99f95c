/*
 * What each protocol revision allows, in one table (design.md: eras are
 * data, not branches). Newest first. Later revisions (2026-07-28: no
 * initialize, client-only cancel, HTTP disconnect cancels) add rows and
 * columns here rather than conditions scattered through the engine.
 */
#include <string.h>

#include "session/internal.h"

static const mcp__era eras[] = {
    /* version       speaks init  batch  client server cancels */
    {"2025-11-25",   true,  true, false, true,  true},
    {"2025-06-18",   true,  true, false, true,  true},
    /* Older peers we accept: we answer in their revision. */
    {"2025-03-26",   false, true, true,  true,  true},
    {"2024-11-05",   false, true, false, true,  true},
};

const mcp__era *mcp__era_find(const char *version, size_t len)
{
    for (size_t i = 0; i < sizeof eras / sizeof eras[0]; i++)
        if (strlen(eras[i].version) == len && memcmp(eras[i].version, version, len) == 0)
            return &eras[i];
    return NULL;
}

const mcp__era *mcp__era_latest(void)
{
    return &eras[0];
}
