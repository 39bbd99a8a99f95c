/* SPDX-License-Identifier: MIT */
/*
 * Fuzzer for WWW-Authenticate (src/transport/http_auth.c). Input: the
 * header's value.
 * - MCP_OK has at least one challenge, each with a scheme, and either a
 *   token68 or parameters, never both; no parameter named twice in one.
 * - Each challenge with parameters, written back with mcp__auth_param_write
 *   (values with control bytes aside), reads back with the same parameters.
 * - An error leaves nothing to free but what free frees (no leak).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "transport/http_auth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                               \
    do {                                                                                       \
        if (!(c))                                                                              \
            abort();                                                                           \
    } while (0)

static void round_trip(const mcp__auth_challenge *ch)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    CHECK(mcp_buf_append(&b, ch->scheme, strlen(ch->scheme)) == MCP_OK);
    for (size_t i = 0; i < ch->nparams; i++)
        if (mcp__auth_param_write(&b, i == 0, ch->params[i].name, ch->params[i].value) != MCP_OK)
            goto done; /* a value with a control byte (from an escape) */
    mcp__auth_challenges again;
    CHECK(mcp__auth_challenges_parse(b.data, b.len, &again, NULL, 0) == MCP_OK);
    CHECK(again.count == 1 && again.list[0].nparams == ch->nparams);
    for (size_t i = 0; i < ch->nparams; i++)
        CHECK(!strcmp(mcp__auth_param_get(&again.list[0], ch->params[i].name),
                      ch->params[i].value));
    mcp__auth_challenges_free(&again);
done:
    mcp_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mcp__auth_challenges c;
    char why[200];
    int rc = mcp__auth_challenges_parse((const char *)data, size, &c, why, sizeof why);
    if (rc == MCP_OK) {
        CHECK(c.count >= 1);
        for (size_t i = 0; i < c.count; i++) {
            const mcp__auth_challenge *ch = &c.list[i];
            CHECK(ch->scheme && ch->scheme[0]);
            CHECK(!(ch->token68 && ch->nparams));
            for (size_t k = 0; k < ch->nparams; k++)
                for (size_t j = k + 1; j < ch->nparams; j++)
                    CHECK(strcasecmp(ch->params[k].name, ch->params[j].name));
            if (ch->nparams)
                round_trip(ch);
        }
    }
    mcp__auth_challenges_free(&c);
    return 0;
}
