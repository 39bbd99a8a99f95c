#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp call answering the server's questions (mcp serve's confirm, an
# elicitation, summarize, a sampling, and roots), in both eras: declined
# with a message when nobody can answer (no terminal, no
# --sampling-command); --sampling-command answering with text or a result,
# failing, killed when the call is cancelled; roots/list answered with the
# --root URIs, and the option's errors; a form filled in on a terminal
# (pty_run.py), a bad value asked again, Ctrl-C cancelling the call while
# it is open. URL mode against url_server.py: the page shown (escaped, its
# host apart) and consented to or not on a terminal, declined without
# one, its completion said once and only when accepted; a -32042 error's
# pages listed, exit 3; mcp serve's connect, client and server both ours.
# $1: the mcp binary. $MCP_WRAP runs each mcp call under a checker.
. "$(dirname "$0")/lib.sh"
requires python3
MCP=$1
PTY="$(dirname "$0")/pty_run.py"
PAGES="$(dirname "$0")/url_server.py"
ESC=$(printf '\033')

# --root: the roots declared and answered (mcp serve's roots lists them).
for v in 2025-11-25 2026-07-28; do
    expect_exit 0 "--root answers roots/list ($v)" -- $MCP_WRAP "$MCP" call --protocol $v \
        --root file:///tmp/a --root 'file:///home/me/my project' roots -- "$MCP" serve </dev/null
    [ "$(sed '/^$/d' "$WORK/out")" = "$(printf 'file:///tmp/a\nfile:///home/me/my project')" ] ||
        { cat "$WORK/out"; fail "the roots are the --root URIs, in order ($v)"; }
done
expect_exit 1 "no --root: no roots" -- $MCP_WRAP "$MCP" call roots -- "$MCP" serve </dev/null
contains "$WORK/out" "it did not declare that it can answer" "no roots declared without --root"
expect_exit 2 "--root not file://" -- "$MCP" call --root https://example.com/ roots -- "$MCP" serve
contains "$WORK/err" "mcp: --root takes a file:// URI (roots are file:// URIs), not 'https://example.com/'" \
    "a root that is not file:// is refused"
expect_exit 2 "--root without a value" -- "$MCP" call roots --root -- "$MCP" serve
contains "$WORK/err" "mcp: --root needs a file:// URI" "a missing root is said"
set --
i=0
while [ $i -lt 17 ]; do i=$((i + 1)); set -- "$@" --root "file:///r$i"; done
expect_exit 2 "17 --root options" -- "$MCP" call "$@" roots -- "$MCP" serve
contains "$WORK/err" "mcp: at most 16 --root options" "too many roots are refused"
lacks "$WORK/err" "asks" "nothing was started"

for v in 2025-11-25 2026-07-28; do
    # No terminal: the form is declined, and said so.
    expect_exit 0 "form without a terminal ($v)" -- $MCP_WRAP "$MCP" call --protocol $v \
        confirm '{"question":"Deploy?"}' -- "$MCP" serve </dev/null
    contains "$WORK/out" "decline" "the tool got the decline ($v)"
    contains "$WORK/err" 'mcp: "mcp serve" asks (confirm): Deploy?' "the question is shown ($v)"
    contains "$WORK/err" "declined: nobody can answer, stdin or stderr is not a terminal" \
        "the decline is explained ($v)"

    # Sampling without a command: declined, naming the option.
    expect_exit 1 "sampling without a command ($v)" -- $MCP_WRAP "$MCP" call --protocol $v \
        summarize '{"text":"a long text"}' -- "$MCP" serve </dev/null
    contains "$WORK/err" "asks (summarize) for a model's answer (sampling)" "sampling shown ($v)"
    contains "$WORK/err" "declined: no model here; --sampling-command CMD names a command" \
        "the option is named ($v)"
    if [ $v = 2026-07-28 ]; then
        contains "$WORK/err" 'the call was abandoned: the question "summary" (sampling/createMessage) was answered with error -1: The user declined' \
            "2026-07-28 cannot send the error: the call ends"
    else
        contains "$WORK/out" "The user declined" "the tool got the error (2025)"
    fi

    # A command answering with text: it got the request, one line of JSON.
    expect_exit 0 "sampling command, text ($v)" -- $MCP_WRAP "$MCP" call --protocol $v \
        --sampling-command 'read -r line; case "$line" in "{\"method\":\"sampling/createMessage\",\"params\":{"*"a long text"*) echo "short text";; *) echo "unexpected: $line";; esac' \
        summarize '{"text":"a long text"}' -- "$MCP" serve </dev/null
    [ "$(cat "$WORK/out")" = "short text" ] || { cat "$WORK/out"; fail "the command's text is the answer ($v)"; }

    # ... with a CreateMessageResult.
    expect_exit 0 "sampling command, a result ($v)" -- $MCP_WRAP "$MCP" call --protocol $v \
        --sampling-command 'cat >/dev/null; echo "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"from JSON\"},\"model\":\"m\"}"' \
        summarize '{"text":"t"}' -- "$MCP" serve </dev/null
    [ "$(cat "$WORK/out")" = "from JSON" ] || { cat "$WORK/out"; fail "the command's result is the answer ($v)"; }

    # ... failing, or answering what is not a result.
    expect_exit 1 "sampling command failing ($v)" -- $MCP_WRAP "$MCP" call --protocol $v \
        --sampling-command 'exit 3' summarize '{"text":"t"}' -- "$MCP" serve </dev/null
    contains "$WORK/err" "mcp: the sampling command failed (exit status 3)" "the failure is said ($v)"
    expect_exit 1 "sampling command, not a result ($v)" -- $MCP_WRAP "$MCP" call --protocol $v \
        --sampling-command 'echo "{\"text\":\"no role\"}"' summarize '{"text":"t"}' -- "$MCP" serve </dev/null
    contains "$WORK/err" "the sampling command's answer cannot be used: a sampling answer needs \"role\"" \
        "a result of another shape is refused ($v)"

    # An answer over the cap (4 MiB) is refused, not cut and sent.
    expect_exit 1 "sampling command answering over 4 MiB ($v)" -- $MCP_WRAP "$MCP" call --protocol $v \
        --sampling-command "cat >/dev/null; head -c 4194305 /dev/zero | tr '\\0' x" \
        summarize '{"text":"t"}' -- "$MCP" serve </dev/null
    contains "$WORK/err" "mcp: the sampling command's answer is over 4 MiB: refused" \
        "the refusal is said ($v)"
    lacks "$WORK/out" "xxxx" "nothing of the answer was sent ($v)"

    # The call cancelled while the command runs: the command is killed.
    rm -f "$WORK/pid"
    expect_exit 130 "sampling command, call cancelled ($v)" -- $MCP_WRAP "$MCP" call --protocol $v \
        --cancel-after 1 --sampling-command "echo \$\$ > '$WORK/pid'; exec sleep 30" \
        summarize '{"text":"t"}' -- "$MCP" serve </dev/null
    [ -s "$WORK/pid" ] || fail "the sampling command ran ($v)"
    pid=$(cat "$WORK/pid")
    i=0
    while running "$pid"; do
        i=$((i + 1))
        [ $i -le 60 ] || fail "the sampling command $pid was left running ($v)"
        sleep 0.05
    done
    echo "ok: the sampling command was killed ($v)"
done

# The sampling command reads one line of JSON: any JSON parser takes it
# (a stray NUL byte after "params": once made it unreadable).
PARSE_REQUEST='import json, sys; line = sys.stdin.buffer.readline(); r = json.loads(line); print(r["method"], r["params"]["messages"][0]["content"]["text"], line.endswith(b"\n"))'
for v in 2025-11-25 2026-07-28; do
    expect_exit 0 "sampling command parsing its input as JSON ($v)" -- $MCP_WRAP "$MCP" call \
        --protocol $v --sampling-command "python3 -c '$PARSE_REQUEST'" \
        summarize '{"text":"a long text"}' -- "$MCP" serve </dev/null
    contains "$WORK/out" "sampling/createMessage" "the command parsed the request ($v)"
    contains "$WORK/out" "a long text True" "the request's params and its newline ($v)"
done

# A server asking 200 questions at once: all answered, at most 16 at once
# (each a thread, a sampling command a process), the others waiting their
# turn, said once; never 200 commands at once (they were: 200 processes,
# 200 threads). Each command notes how many ran when it started.
HOSTILE="$(dirname "$0")/hostile_server.py"
mkdir "$WORK/running"
expect_exit 0 "200 sampling requests at once" -- $MCP_WRAP "$MCP" call --protocol 2025-11-25 \
    --sampling-command "cat >/dev/null; mkdir '$WORK/running/'\$\$; ls '$WORK/running' | wc -l >> '$WORK/counts'; sleep 0.1; rmdir '$WORK/running/'\$\$; echo answer" \
    t -- python3 "$HOSTILE" sampling_flood 200 </dev/null
contains "$WORK/out" "results 200 errors 0" "every question answered"
[ "$(wc -l < "$WORK/counts")" -eq 200 ] || fail "not 200 sampling commands ran"
most=$(sort -n "$WORK/counts" | tail -n 1)
[ "$most" -le 16 ] || fail "$most sampling commands ran at once, expected at most 16"
[ "$(grep -c 'asks more than 16 questions at once: the others wait their turn' "$WORK/err")" -eq 1 ] ||
    { cat "$WORK/err"; fail "the wait is said once"; }

# URL mode without a terminal: shown, declined, said so; the server's
# completion of what was declined is not reported.
expect_exit 0 "a page without a terminal (2025-11-25)" -- $MCP_WRAP "$MCP" call --protocol 2025-11-25 \
    t -- python3 "$PAGES" ask </dev/null
contains "$WORK/out" "action: decline" "the server got the decline"
contains "$WORK/err" 'mcp: "pages" asks (t) to open a web page:' "the page is introduced"
contains "$WORK/err" '  Sign in to \x1b[31mExample' "its message is shown escaped"
contains "$WORK/err" "  url:  https://auth.example.com/connect?id=el-1" "the whole URL is shown"
contains "$WORK/err" "  host: auth.example.com" "its host apart"
contains "$WORK/err" "mcp: declined: nobody can answer, stdin or stderr is not a terminal" \
    "the decline is explained"
lacks "$WORK/err" "is complete" "a declined page's completion is not reported"
lacks "$WORK/err" "$ESC" "no raw escape reaches the terminal"
expect_exit 0 "a page without a terminal (2026-07-28)" -- $MCP_WRAP "$MCP" call --protocol 2026-07-28 \
    t -- python3 "$PAGES" ask2026 </dev/null
contains "$WORK/out" "action: decline" "the retry carries the decline (2026-07-28)"
contains "$WORK/err" "  host: auth.example.com" "the host is shown (2026-07-28)"

# A call refused until pages are visited (-32042): each named, exit 3.
expect_exit 3 "URLElicitationRequiredError" -- $MCP_WRAP "$MCP" call --protocol 2025-11-25 \
    t -- python3 "$PAGES" required </dev/null
contains "$WORK/err" "mcp: t needs you to open web pages first: This request requires more information. (JSON-RPC error -32042)" \
    "the error is said"
contains "$WORK/err" "  url:  https://files.example.com@xn--exmple-cua.com/connect?e=r1" "the first URL, whole"
contains "$WORK/err" "  host: xn--exmple-cua.com" "its host is what follows the @"
contains "$WORK/err" "warning: the URL has a user name before its host" "the user@ is warned of"
contains "$WORK/err" "warning: the host has Punycode (xn--)" "the Punycode is warned of"
contains "$WORK/err" '  Pay \x1b]0;PWNED\x07 now' "the second message, escaped"
contains "$WORK/err" "  host: pay.example.org" "the second host"
contains "$WORK/err" "note: not https" "plain http is noted"
contains "$WORK/err" "(an entry that is not a URL-mode elicitation: skipped)" "a form entry is skipped"
contains "$WORK/err" "open each in a browser yourself, finish there, then call t again" \
    "what to do is said"
lacks "$WORK/err" "$ESC" "no raw escape reaches the terminal (-32042)"
for v in 2025-11-25 2026-07-28; do
    # On a terminal: a bad value is asked again, then the form is accepted.
    expect_exit 0 "form on a terminal ($v)" -- python3 "$PTY" \
        '[["Go ahead * [y/n]", "maybe\n"], ["answer y or n", "y\n"], ["send it?", "a\n"]]' \
        -- $MCP_WRAP "$MCP" call --protocol $v confirm '{"question":"Deploy?"}' -- "$MCP" serve
    contains "$WORK/out" '"mcp serve" asks (confirm):' "the form is introduced ($v)"
    contains "$WORK/out" "Deploy?" "the message is shown ($v)"
    contains "$WORK/out" 'answer: {"ok":true}' "the answer is reviewed ($v)"
    contains "$WORK/out" "confirmed" "the tool got it ($v)"
    lacks "$WORK/out" "pty_run: never saw" "every prompt came ($v)"
    # Declined on the review.
    expect_exit 0 "form declined on a terminal ($v)" -- python3 "$PTY" \
        '[["[y/n]", "n\n"], ["send it?", "d\n"]]' \
        -- $MCP_WRAP "$MCP" call --protocol $v confirm -- "$MCP" serve
    contains "$WORK/out" "decline" "the tool got the decline ($v)"
    # Ctrl-C while the form is open cancels the call; the form stops.
    expect_exit 130 "Ctrl-C in the form ($v)" -- python3 "$PTY" '[["[y/n]", "\u0003"]]' \
        -- $MCP_WRAP "$MCP" call --protocol $v confirm -- "$MCP" serve
    contains "$WORK/out" "cancelling confirm" "the call is cancelled ($v)"
    contains "$WORK/out" "(withdrawn: cancelled by user)" "the form says why it stopped ($v)"
done

# A form's fields checked as typed: formats (email, uri, date), an
# integer, the legacy enumNames shown, a titled list's wrong choice answered
# with the choices.
expect_exit 0 "a form's fields checked on a terminal" -- python3 "$PTY" \
    '[["Email *", "nope\n"], ["not an email address: type one like name@example.com", "me@example.com\n"],
      ["Site [URI, like https://example.com/page]", "example dot com\n"], ["not a URI", "https://example.com\n"],
      ["Day *", "2025-02-30\n"], ["not a date: type one like 2025-12-31", "2025-02-28\n"],
      ["Count * [integer]", "2.5\n"], ["type a whole number, like 42", "3\n"],
      ["[one of: s (Small), m (Medium), l (Large)]", "m\n"],
      ["[one of: #f00 (Red), #0f0 (Green), #00f (Blue)]", "purple\n"],
      ["choose one of: #f00 (Red), #0f0 (Green), #00f (Blue)", "#0f0\n"], ["send it?", "a\n"]]' \
    -- $MCP_WRAP "$MCP" call --protocol 2025-11-25 t -- python3 "$PAGES" form
lacks "$WORK/out" "pty_run: never saw" "every check was shown"
lacks "$WORK/out" "must match one of" "no raw schema rule for a wrong choice"
contains "$WORK/out" 'action: accept content: {"email":"me@example.com","site":"https://example.com","day":"2025-02-28","count":3,"size":"m","color":"#0f0"}' \
    "the form's answer"

# A long answer (a pasted key) is taken whole, not cut (it was cut to 2047
# bytes and sent); a line longer than a terminal's line can be (one not in
# canonical mode) is refused, said, and asked again: never cut, its rest
# never taken for the next answer.
KEY=$(python3 -c 'print("k" * 3000)')
expect_exit 0 "a 3000-byte answer on a terminal" -- python3 "$PTY" \
    "[[\"Token *\", \"$KEY\\n\"], [\"send it?\", \"a\\n\"]]" \
    -- $MCP_WRAP "$MCP" call --protocol 2025-11-25 t -- python3 "$PAGES" token
grep -qF "action: accept content: {\"token\":\"$KEY\"}" "$WORK/out" ||
    fail "the whole key was sent: $(grep -o 'action: .\{0,60\}' "$WORK/out")"
LONG=$(python3 -c 'print("L" * 5000)')
expect_exit 0 "a 5000-byte line on a terminal" -- python3 "$PTY" \
    "[[\"Token *\", \"$LONG\\n\"], [\"too long: at most 4095 bytes\", \"short\\n\"], [\"send it?\", \"a\\n\"]]" \
    -- sh -c 'stty -icanon -echo; exec "$@"' sh $MCP_WRAP "$MCP" call --protocol 2025-11-25 t \
    -- python3 "$PAGES" token
lacks "$WORK/out" "pty_run: never saw" "the long line was refused"
contains "$WORK/out" 'action: accept content: {"token":"short"}' "the next line is the answer"

# A server's default that does not fit its field (its format, its type) is
# not taken by Enter unchecked (the email was sent as it was): said, asked
# again.
expect_exit 0 "defaults that do not fit, on a terminal" -- python3 "$PTY" \
    '[["Email [", "\n"], ["the default does not fit: not an email address", "me@example.com\n"],
      ["Count [", "\n"], ["the default does not fit: must be integer", "7\n"], ["send it?", "a\n"]]' \
    -- $MCP_WRAP "$MCP" call --protocol 2025-11-25 t -- python3 "$PAGES" defaults
lacks "$WORK/out" "pty_run: never saw" "each default was refused"
contains "$WORK/out" 'action: accept content: {"email":"me@example.com","count":7}' "what was typed instead"

# URL mode on a terminal: consent asked; yes accepts (the completion said
# once, the unknown and repeated ones not), anything else declines.
expect_exit 0 "a page accepted on a terminal (2025-11-25)" -- python3 "$PTY" \
    '[["accept? [y/N]", "y\n"]]' \
    -- $MCP_WRAP "$MCP" call --protocol 2025-11-25 t -- python3 "$PAGES" ask
contains "$WORK/out" '"pages" asks (t) to open a web page:' "the page is introduced (terminal)"
contains "$WORK/out" "  url:  https://auth.example.com/connect?id=el-1" "the URL (terminal)"
contains "$WORK/out" "  host: auth.example.com" "the host (terminal)"
contains "$WORK/out" "mcp does not open it" "mcp says it opens nothing"
contains "$WORK/out" "action: accept" "the server got the accept"
[ "$(grep -c 'says the interaction at auth.example.com is complete' "$WORK/out")" = 1 ] ||
    { cat "$WORK/out"; fail "the completion is said once"; }
lacks "$WORK/out" "interaction unknown" "an unknown id's completion is ignored"
lacks "$WORK/out" "pty_run: never saw" "the consent was asked"
expect_exit 0 "a page declined on a terminal (2025-11-25)" -- python3 "$PTY" \
    '[["accept? [y/N]", "n\n"]]' \
    -- $MCP_WRAP "$MCP" call --protocol 2025-11-25 t -- python3 "$PAGES" ask
contains "$WORK/out" "action: decline" "anything but yes declines"
lacks "$WORK/out" "is complete" "the declined page's completion is ignored"
expect_exit 0 "a page accepted on a terminal (2026-07-28)" -- python3 "$PTY" \
    '[["accept? [y/N]", "yes\n"]]' \
    -- $MCP_WRAP "$MCP" call --protocol 2026-07-28 t -- python3 "$PAGES" ask2026
contains "$WORK/out" "action: accept" "the retry carries the accept (2026-07-28)"
expect_exit 130 "Ctrl-C at the consent" -- python3 "$PTY" '[["accept? [y/N]", "\u0003"]]' \
    -- $MCP_WRAP "$MCP" call --protocol 2025-11-25 t -- python3 "$PAGES" ask
contains "$WORK/out" "cancelling t" "the call is cancelled at the consent"
contains "$WORK/out" "(withdrawn" "the consent says why it stopped"

# Against the library's own server: mcp serve's connect, accepted on a
# terminal; under 2025-11-25 the demo says the interaction complete at
# once, which is said (2026-07-28 has no such notification).
for v in 2025-11-25 2026-07-28; do
    expect_exit 0 "mcp serve's connect accepted ($v)" -- python3 "$PTY" \
        '[["accept? [y/N]", "y\n"]]' \
        -- $MCP_WRAP "$MCP" call --protocol $v connect '{"url":"https://accounts.example.net/link"}' \
        -- "$MCP" serve
    contains "$WORK/out" "  host: accounts.example.net" "the demo's page, its host apart ($v)"
    contains "$WORK/out" "connected" "the demo got the accept ($v)"
    if [ $v = 2025-11-25 ]; then
        contains "$WORK/out" 'mcp: "mcp serve" says the interaction at accounts.example.net is complete' \
            "the demo's completion is said"
    else
        lacks "$WORK/out" "is complete" "no completion in 2026-07-28"
    fi
done
