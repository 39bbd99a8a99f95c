/* SPDX-License-Identifier: MIT */
/* Counting notifications/resources/updated through a client's
 * on_notification hook (mcp_client_options.notification_user_data: a
 * resource_updates). */
#ifndef MCP_TEST_UPDATES_H
#define MCP_TEST_UPDATES_H

#include "mcp/mcp.h"

typedef struct resource_updates {
    int count;
    char uri[128]; /* the last one's params.uri, or "(none)" */
} resource_updates;

/* An on_notification hook: other notifications are ignored. */
void resource_updates_hook(void *resource_updates, const mcp_message *m);

#endif
