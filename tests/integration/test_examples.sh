#!/bin/sh
# SPDX-License-Identifier: MIT
# The two examples, run as a newcomer would: the client cancels the
# server's countdown after 1.5 s.
. "$(dirname "$0")/lib.sh"
BIN=$1
expect_exit 0 "example client cancels the example server's call" -- \
    "$BIN/example_client" "$BIN/example_server"
contains "$WORK/out" "progress 1/10" "progress reached the client"
contains "$WORK/out" "call ended: cancelled" "the call ended as cancelled"
contains "$WORK/err" 'reason="the example had seen enough"' "the server logged the reason"
contains "$WORK/err" "countdown: stopped at" "the tool saw its token fire"
