/* SPDX-License-Identifier: MIT */
/*
 * The features the server is built with: each brings its methods (and,
 * through its hooks, its behaviour and per-connection state). A new
 * feature is its own files and one line here. Order matters only where
 * two register the same method name: the later one takes it over.
 */
#include "server/ask/ask.h"
#include "server/gateway/gateway.h"
#include "server/methods/methods.h"
#include "server/tasks/tasks.h"

const mcp__feature *const mcp__server_features[] = {
    &mcp__lists_feature,       &mcp__tools_call_feature, &mcp__resources_read_feature,
    &mcp__prompts_get_feature, &mcp__completion_feature, &mcp__subscriptions_feature,
    &mcp__ask_feature,         &mcp__tasks_feature,      &mcp__gateway_feature,
    NULL,
};
