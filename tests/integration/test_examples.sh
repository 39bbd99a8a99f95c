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

# The README's two programs, as they stand there: the first call times out
# after 1 s (cancelled on the wire), the second is cancelled by the client.
expect_exit 0 "the README's client against the README's server" -- \
    "$BIN/readme_client" "$BIN/readme_server"
contains "$WORK/out" "first call: request timed out" "the first call timed out"
contains "$WORK/out" "second call: request cancelled by the caller" "the second call was cancelled"
contains "$WORK/err" 'reason="changed my mind"' "the server logged the client's reason"
contains "$WORK/err" 'reason="timed out after 1000 ms"' "the server logged the timed-out call's cancel"
