/* SPDX-License-Identifier: MIT */
/*
 * A transport that wraps another and fails its Nth send, the way a peer
 * that goes away makes a write fail: through the vtable, so a server or a
 * client runs over it unchanged. Loop thread only.
 */
#ifndef MCP_TEST_FAULT_TRANSPORT_H
#define MCP_TEST_FAULT_TRANSPORT_H

#include "transport/transport.h"

/* What the wrapper saw, kept by the caller: the wrapper is freed when its
 * owner closes it, often before the test looks. */
typedef struct fault_record {
    int sends;  /* sends so far, the failing one included */
    bool fired; /* the failure happened */
} fault_record;

/* Wrap inner (taken over: closed with the wrapper). fail_at 0: never.
 * record (borrowed, may be NULL) must outlive the wrapper; it is written on
 * the loop thread. NULL when out of memory (inner is then closed). */
mcp__transport *fault_transport_new(mcp__transport *inner, int fail_at, fault_record *record);

#endif
