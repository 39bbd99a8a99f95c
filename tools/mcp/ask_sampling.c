/* SPDX-License-Identifier: MIT */
/*
 * Sampling (a model's answer): declined, and said so, unless the user gave
 * --sampling-command CMD: then `sh -c CMD` gets the request on its stdin,
 * one line of JSON {"method":"sampling/createMessage","params":{...}}, and
 * its stdout is the answer: a CreateMessageResult object, or any other text
 * (the model's reply, as a text message). A failing command (non-zero exit)
 * answers an error, and so does an answer over 4 MiB (refused, not cut).
 * It runs in a process group of its own (mcp_process_run), killed (TERM,
 * then KILL) when the question is withdrawn.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ask.h"
#include "text.h"

/* The most a sampling command may answer: a model's reply, not a file. */
#define COMMAND_OUTPUT_CAP ((size_t)4 << 20)

void ask_sample(mcp_question *q, cli_asker *a)
{
    mcp_buf req, out, b;
    mcp_buf_init(&req, 0, NULL);
    mcp_buf_init(&out, COMMAND_OUTPUT_CAP, NULL);
    mcp_buf_init(&b, 0, NULL);
    mcp_buf_append(&req, MCP_LITERAL("{\"method\":\"sampling/createMessage\",\"params\":"));
    mcp_json_write(mcp_question_params(q), &req);
    mcp_buf_append(&req, MCP_LITERAL("}\n"));
    /* In a process group of its own: a Ctrl-C at the terminal is ours (it
     * cancels the call), and a withdrawn question kills the whole group. */
    const char *argv[] = {"sh", "-c", a->sampling_command, NULL};
    mcp_process_options run = {.size = sizeof run, .argv = argv, .output = &out,
                               .input = req.data ? req.data : "", .input_len = req.len};
    int status = 0;
    int rc = mcp_process_run(&run, mcp_question_token(q), &status);
    char why[400];
    if (rc == MCP_ERR_CANCELLED) {
        mcp_question_decline(q); /* withdrawn: dropped */
    } else if (rc != MCP_OK || status != 0) {
        if (rc == MCP_ERR_SPAWN)
            snprintf(why, sizeof why, "the sampling command could not run: %s", strerror(errno));
        else if (rc == MCP_ERR_LIMIT)
            snprintf(why, sizeof why, "the sampling command's answer is over %zu MiB: refused",
                     COMMAND_OUTPUT_CAP >> 20);
        else if (rc != MCP_OK)
            snprintf(why, sizeof why, "the sampling command's answer was lost: %s",
                     mcp_strerror(rc));
        else
            snprintf(why, sizeof why, "the sampling command failed (exit status %d)", status);
        mcp_question_answer_error(q, -32603, why); /* first: not after a form */
        ask_say("mcp: %s\n", why);
    } else {
        /* Its answer: a result object, or text, the model's reply. */
        while (out.len && (out.data[out.len - 1] == '\n' || out.data[out.len - 1] == '\r'))
            out.len--;
        mcp_json_doc *d = NULL;
        rc = MCP_ERR_INVALID_ARG;
        if (out.len && mcp_json_parse(out.data, out.len, NULL, NULL, &d, NULL) == MCP_OK &&
            mcp_json_typeof(mcp_json_doc_root(d)) == MCP_JSON_OBJECT) {
            rc = mcp_question_answer(q, mcp_json_doc_root(d), why, sizeof why);
        } else if (out.len && mcp_utf8_validate(out.data, out.len, NULL) == MCP_OK) {
            mcp_json_doc_free(d);
            d = mcp_json_doc_new(NULL);
            mcp_json *r = d ? mcp_json_new_object(d) : NULL;
            mcp_json *c = d ? mcp_json_new_object(d) : NULL;
            if (r && c) {
                mcp_json_object_set(d, c, "type", mcp_json_new_string(d, "text"));
                mcp_json_object_set(d, c, "text", mcp_json_new_stringn(d, out.data, out.len));
                mcp_json_object_set(d, r, "role", mcp_json_new_string(d, "assistant"));
                mcp_json_object_set(d, r, "content", c);
                mcp_json_object_set(d, r, "model", mcp_json_new_string(d, "mcp --sampling-command"));
                mcp_json_object_set(d, r, "stopReason", mcp_json_new_string(d, "endTurn"));
            }
            rc = r && c && mcp_json_doc_error(d) == MCP_OK
                     ? mcp_question_answer(q, r, why, sizeof why)
                     : MCP_ERR_NOMEM;
        } else {
            snprintf(why, sizeof why, "%s", out.len ? "its output is not UTF-8" : "it printed nothing");
        }
        mcp_json_doc_free(d);
        if (rc != MCP_OK && rc != MCP_ERR_CANCELLED) {
            char text[500];
            snprintf(text, sizeof text, "the sampling command's answer cannot be used: %s", why);
            mcp_question_answer_error(q, -32603, text);
            ask_say("mcp: %s\n", ask_safe(&b, text, strlen(text)));
        }
    }
    mcp_buf_free(&req);
    mcp_buf_free(&out);
    mcp_buf_free(&b);
}
