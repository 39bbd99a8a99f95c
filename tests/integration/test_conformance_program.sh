#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp-conformance, the conformance fixtures' program (tests/conformance):
# its server serves the fixtures with the options of mcp serve, its client
# refuses what it cannot play; and mcp itself no longer carries them.
# $1: mcp-conformance; $2: mcp.
. "$(dirname "$0")/lib.sh"
requires python3
CONF=$1
MCP=$2

for c in server client; do
    expect_exit 0 "$c --help" -- "$CONF" $c --help
    contains "$WORK/out" "usage: mcp-conformance $c" "$c has its own help"
done
expect_exit 2 "no command" -- "$CONF"
expect_exit 2 "an unknown command" -- "$CONF" serve
# Every option of mcp serve, checked as mcp serve checks it (one parser).
expect_exit 2 "server: a bad option" -- "$CONF" server --max-connections 0
contains "$WORK/err" "mcp-conformance server: --max-connections takes a number of connections" "says why"
expect_exit 2 "server: HTTP options without --http" -- "$CONF" server --token t
contains "$WORK/err" "HTTP options need --http" "says why"
# The fixtures are no longer the product's: mcp has neither form.
expect_exit 2 "mcp serve --conformance is gone" -- "$MCP" serve --conformance
contains "$WORK/err" "unexpected argument '--conformance'" "mcp serve refuses it"
expect_exit 2 "mcp conformance-client is gone" -- "$MCP" conformance-client http://127.0.0.1:9/
contains "$WORK/err" "unknown command or option 'conformance-client'" "mcp refuses it"
expect_exit 0 "mcp --help" -- "$MCP" --help
lacks "$WORK/out" "conformance" "mcp's help names no fixture"

# Over HTTP with the options the runner uses (tests/interop/run_conformance.sh),
# and a token: the same listener as mcp serve's.
"$CONF" server --http 127.0.0.1:0 --poll-retry 500 --response sse --token secret 2>"$WORK/srv" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$WORK"' EXIT
wait_for "$WORK/srv" "listening on http://127.0.0.1:" 10
port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/srv" | head -n 1)
expect_exit 3 "HTTP without the token" -- "$MCP" tools --url "http://127.0.0.1:$port/mcp"
expect_exit 0 "HTTP with the token" -- "$MCP" tools --json --url "http://127.0.0.1:$port/mcp" \
    --header 'Authorization: Bearer secret'
contains "$WORK/out" '"name":"test_simple_text"' "the fixtures over HTTP"
kill -TERM $server
wait $server || fail "mcp-conformance server did not end cleanly on SIGTERM"
trap 'rm -rf "$WORK"' EXIT
contains "$WORK/srv" "mcp-conformance server: SIGTERM: stopping" "said so"

# The conformance suite's fixtures on stdio as well (the suite drives them
# over HTTP: tests/interop/run_conformance.sh).
expect_exit 0 "tools of mcp-conformance server" -- "$MCP" tools --json -- "$CONF" server
for t in test_simple_text test_image_content test_audio_content test_embedded_resource \
    test_multiple_content_types test_tool_with_logging test_tool_with_progress \
    test_error_handling test_reconnection json_schema_2020_12_tool test_missing_capability \
    test_streaming_elicitation test_logging_tool test_trigger_tool_change test_custom_header; do
    contains "$WORK/out" "\"name\":\"$t\"" "the fixtures include $t"
done
lacks "$WORK/out" '"name":"echo"' "no demo tool among the fixtures"
for v in 2025-11-25 2026-07-28; do
    expect_exit 0 "mixed content, $v" -- "$MCP" call --json --protocol $v test_multiple_content_types \
        -- "$CONF" server
    contains "$WORK/out" '"uri":"test://mixed-content-resource"' "the embedded resource ($v)"
    # mcp call declares sampling (it answers with --sampling-command, or
    # declines saying how to): a tool that needs it runs. The refusal of a
    # client without it is test_server_conns' (-32021).
    expect_exit 0 "sampling required, $v" -- "$MCP" call --protocol $v test_missing_capability \
        -- "$CONF" server
    contains "$WORK/out" "The client declared the sampling capability." "sampling declared ($v)"
done

# The conformance client's own refusals (the suite runs it:
# tests/interop/run_conformance.sh): usage, an unknown scenario, one it
# cannot play yet, an unknown revision; none of them reaches the network.
expect_exit 2 "the client without a URL" -- env MCP_CONFORMANCE_SCENARIO=initialize "$CONF" client
contains "$WORK/err" "missing URL" "says what is missing"
expect_exit 2 "the client without a scenario" -- env -u MCP_CONFORMANCE_SCENARIO "$CONF" client http://127.0.0.1:9/
contains "$WORK/err" "MCP_CONFORMANCE_SCENARIO is not set" "names the variable"
expect_exit 2 "the client, unknown scenario" -- env MCP_CONFORMANCE_SCENARIO=no-such "$CONF" client http://127.0.0.1:9/
contains "$WORK/err" "scenario 'no-such' is unknown" "names the scenario"
expect_exit 2 "the client, a skills scenario" -- env MCP_CONFORMANCE_SCENARIO=sep-2640-client-no-prefetch "$CONF" client http://127.0.0.1:9/
contains "$WORK/err" "needs what this client does not have yet: the skills extension" "says what it needs"
expect_exit 2 "the client, an OAuth scenario with a context that is not JSON" -- env MCP_CONFORMANCE_SCENARIO=auth/pre-registration MCP_CONFORMANCE_CONTEXT='{' "$CONF" client http://127.0.0.1:9/
contains "$WORK/err" "MCP_CONFORMANCE_CONTEXT is not JSON" "names the variable"
expect_exit 2 "the client, unknown revision" -- env MCP_CONFORMANCE_SCENARIO=initialize MCP_CONFORMANCE_PROTOCOL_VERSION=2024-01-01 "$CONF" client http://127.0.0.1:9/
contains "$WORK/err" "not a revision we speak: '2024-01-01'" "names the revision"
expect_exit 2 "the client, not an HTTP URL" -- env MCP_CONFORMANCE_SCENARIO=initialize "$CONF" client ftp://x/
expect_exit 3 "the client, nothing listening" -- env MCP_CONFORMANCE_SCENARIO=initialize MCP_CONFORMANCE_PROTOCOL_VERSION=2025-11-25 "$CONF" client http://127.0.0.1:9/
expect_exit 1 "conformance tool error" -- "$MCP" call test_error_handling -- "$CONF" server
contains "$WORK/out" "This tool intentionally returns an error for testing" "its text"
expect_exit 0 "conformance progress" -- "$MCP" call --trace test_tool_with_progress -- "$CONF" server
contains "$WORK/err" '"progress":100,"total":100' "progress to 100 of 100"

# The conformance client calls a tool by its whole name: "nul\u0000x"
# is not "nul" (attack round 3, F8.16).
python3 "$(dirname "$0")/hostile_http_server.py" nultool >"$WORK/nul.port" 2>"$WORK/nul.log" &
nulpid=$!
for _ in $(seq 100); do grep -q listening "$WORK/nul.port" && break; sleep 0.1; done
expect_exit 0 "the client with a NUL in a tool name" -- env \
    MCP_CONFORMANCE_SCENARIO=http-standard-headers "$CONF" client \
    "http://127.0.0.1:$(awk '{print $2}' "$WORK/nul.port")/mcp"
kill $nulpid
contains "$WORK/nul.log" "call name='nul\\x00x'" "the whole name was sent"
lacks "$WORK/nul.log" "call name='nul'" "not the name cut at the NUL"
