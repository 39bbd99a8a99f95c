/* SPDX-License-Identifier: MIT */
/* What a protocol revision has, for the layers above the engine (server,
 * client): asked of the era table (era.c), never of version strings. */
#ifndef MCP_SESSION_REVISION_H
#define MCP_SESSION_REVISION_H

#include <stdbool.h>

typedef enum {
    MCP__HAS_ELICITATION,     /* elicitation/create (from 2025-06-18) */
    MCP__HAS_URL_ELICITATION, /* its URL mode (from 2025-11-25) */
    MCP__HAS_ELICITATION_IDS, /* elicitationId, -32042 and the completion
                                 notification (2025-11-25 only) */
    MCP__HAS_TASKS,           /* task-augmented requests and the tasks methods
                                 (2025-11-25; an extension in 2026-07-28) */
    MCP__HAS_TASK_EXTENSION   /* the io.modelcontextprotocol/tasks extension
                                 (2026-07-28) */
} mcp__revision_feature;

/* Whether version (NUL-terminated; NULL or unknown: false) has f. Any
 * thread. */
bool mcp__revision_has(const char *version, mcp__revision_feature f);

#endif
