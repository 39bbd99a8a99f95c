/* SPDX-License-Identifier: MIT */
/* Requests about tasks over a serve_harness: the taskId of an answer, and
 * 2026-07-28 requests that declare the io.modelcontextprotocol/tasks
 * extension. */
#ifndef MCP_TEST_TASK_HARNESS_H
#define MCP_TEST_TASK_HARNESS_H

#include "serve_harness.h"

/* More client capabilities for the next ext_ requests (members, with a
 * trailing comma, such as "\"elicitation\":{},"), or "". */
extern const char *ext_caps;

/* The taskId of a CreateTaskResult (or a Task) in answer, into id. */
void task_id_of(const char *answer, char id[33]);
/* A 2026-07-28 request declaring the extension (meta: more members of its
 * _meta, or ""): its answer (caller frees). */
char *ext_req_meta(harness *h, int id, const char *method, const char *params,
                   const char *meta);
char *ext_req(harness *h, int id, const char *method, const char *params);
/* method with params {"taskId": task_id}. */
char *ext_on_task(harness *h, int id, const char *method, const char task_id[33]);
/* tasks/get (request id) until its answer holds status ("\"completed\"",
 * ...), within 2 s: the last answer (caller frees). */
char *ext_until(harness *h, int id, const char task_id[33], const char *status);

#endif
