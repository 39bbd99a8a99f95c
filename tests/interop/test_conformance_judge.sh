#!/bin/sh
# SPDX-License-Identifier: MIT
# test_conformance_judge.sh NODE: conformance_judge.mjs gives a verdict only
# when it judged: checks.json with a null entry is a FAIL, not a crash
# without output (the runner then kept the previous scenario's verdict); a
# judge that cannot run exits non-zero with ERROR, never PASS.
. "$(dirname "$0")/../integration/lib.sh"
NODE=$1
JUDGE="$(dirname "$0")/conformance_judge.mjs"
[ -x "$NODE" ] || missing "no node at $NODE (make interop-deps)"

# verdict NAME JSON SCENARIO: the judge's first line and exit status.
verdict() {
    printf '%s' "$2" >"$WORK/$1.json"
    "$NODE" "$JUDGE" "$WORK/$1.json" "$3" >"$WORK/$1.out" 2>&1
    echo "$(head -n 1 "$WORK/$1.out") $?"
}
ok='{"id":"tool-call","status":"SUCCESS","description":"ok"}'
[ "$(verdict good "[$ok]" tools-call-simple-text)" = "PASS 0" ] || fail "a success: $(cat "$WORK/good.out")"
echo "ok: a success passes"
for case in "[null]" "[$ok,null]" "[$ok,3]" "[$ok,[]]"; do
    got=$(verdict null "$case" tools-call-simple-text)
    [ "$got" = "FAIL 0" ] || fail "$case: '$got', expected FAIL: $(cat "$WORK/null.out")"
    contains "$WORK/null.out" "a check that is not an object" "$case: says why"
    echo "ok: $case fails"
done
[ "$(verdict empty "" initialize)" = "FAIL 0" ] || fail "an empty checks.json"
[ "$(verdict none "[]" initialize)" = "FAIL 0" ] || fail "no checks"
echo "ok: an empty checks.json and no checks fail"
"$NODE" "$JUDGE" >"$WORK/usage.out" 2>&1
rc=$?
[ $rc -ne 0 ] || fail "the judge without arguments exited 0: $(cat "$WORK/usage.out")"
[ "$(head -n 1 "$WORK/usage.out")" = ERROR ] || fail "the judge without arguments: $(cat "$WORK/usage.out")"
echo "ok: a judge that cannot judge says ERROR (exit $rc)"
