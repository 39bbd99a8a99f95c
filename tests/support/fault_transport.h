/* SPDX-License-Identifier: MIT */
/*
 * A transport that wraps another and fails its Nth send, the way a peer
 * that goes away makes a write fail: through the vtable, so a server or a
 * client runs over it unchanged. Loop thread only.
 */
#ifndef MCP_TEST_FAULT_TRANSPORT_H
#define MCP_TEST_FAULT_TRANSPORT_H

#include "transport/transport.h"

/* Wrap inner (taken over: closed with the wrapper). fail_at 0: never.
 * NULL when out of memory (inner is then closed). */
mcp__transport *fault_transport_new(mcp__transport *inner, int fail_at);

/* Sends so far, and whether the failure happened. */
int fault_transport_sends(const mcp__transport *t);
bool fault_transport_fired(const mcp__transport *t);

#endif
