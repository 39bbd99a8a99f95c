/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "updates.h"

void resource_updates_hook(void *ud, const mcp_message *m)
{
    resource_updates *u = ud;
    if (!mcp_message_method_is(m, "notifications/resources/updated"))
        return;
    u->count++;
    const char *uri = mcp_json_string(mcp_json_object_get(m->params, "uri"), NULL);
    snprintf(u->uri, sizeof u->uri, "%s", uri ? uri : "(none)");
}
