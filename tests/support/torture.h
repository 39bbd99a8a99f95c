/* SPDX-License-Identifier: MIT */
/*
 * Torture builds of the engine's rule tests (compiled with MCP_TORTURE):
 * every test runs again once per send it makes, with that send failing
 * (each of the fault modes of peer.h), until a run makes fewer sends than
 * the fault's position. The tests' content assertions become expectations
 * that may go another way once a write has failed (peer_expect), so each
 * run still reaches its end and frees what it made; what must hold however
 * the conversation goes stays fatal (in peer.c: every request ends exactly
 * once, nothing is sent or called back after a settle or for a request
 * reported failed), and ASan, UBSan and valgrind watch the memory. Include
 * after cmocka.h and peer.h.
 */
#ifndef MCP_TEST_TORTURE_H
#define MCP_TEST_TORTURE_H

#ifdef MCP_TORTURE
#include <stdio.h>
#include <string.h>

#include "peer.h"

static inline bool torture_streq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

#undef assert_true
#undef assert_false
#undef assert_int_equal
#undef assert_int_not_equal
#undef assert_non_null
#undef assert_null
#undef assert_string_equal
#undef assert_ptr_equal
#undef assert_memory_equal
#define assert_true(c) PEER_EXPECT((c) != 0)
#define assert_false(c) PEER_EXPECT(!(c))
#define assert_int_equal(a, b) PEER_EXPECT((a) == (b))
#define assert_int_not_equal(a, b) PEER_EXPECT((a) != (b))
#define assert_non_null(a) PEER_EXPECT((a) != NULL)
#define assert_null(a) PEER_EXPECT((a) == NULL)
#define assert_string_equal(a, b) PEER_EXPECT(torture_streq((a), (b)))
#define assert_ptr_equal(a, b) PEER_EXPECT((a) == (b))
#define assert_memory_equal(a, b, n) PEER_EXPECT(memcmp((a), (b), (n)) == 0)

/* Run every test under every fault: the runner replaces cmocka's. */
static inline int torture_run(const struct CMUnitTest *tests, size_t n)
{
    long runs = 0, diverged = 0;
    for (size_t t = 0; t < n; t++) {
        for (int mode = PEER_FAIL_RETURN; mode <= PEER_FAIL_CLOSE; mode++) {
            for (int at = 1;; at++) {
                memset(&peer_faults, 0, sizeof peer_faults);
                peer_faults.at = at;
                peer_faults.mode = mode;
                tests[t].test_func(NULL);
                runs++;
                diverged += peer_faults.diverged > 0;
                if (!peer_faults.fired)
                    break; /* past the test's last send */
            }
        }
        printf("[ TORTURE  ] %s\n", tests[t].name);
    }
    memset(&peer_faults, 0, sizeof peer_faults);
    printf("torture: %zu tests, %ld runs with a failing send, %ld of them went another way\n",
           n, runs, diverged);
    return 0;
}
#undef cmocka_run_group_tests
#define cmocka_run_group_tests(tests, setup, teardown)                                  \
    torture_run((tests), sizeof(tests) / sizeof((tests)[0]))
#endif /* MCP_TORTURE */

#endif
