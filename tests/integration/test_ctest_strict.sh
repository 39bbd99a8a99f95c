#!/bin/sh
# SPDX-License-Identifier: MIT
# test_ctest_strict.sh SOURCE_DIR: scripts/ctest-strict.sh, which every test
# run of the Makefile goes through, fails when a test did not run (Skipped
# by its exit status 77, Disabled, its program missing) and passes only when
# every test ran and passed; ctest alone exits 0 on the first two.
. "$(dirname "$0")/lib.sh"
STRICT=$1/scripts/ctest-strict.sh
requires cmake ctest

mkdir "$WORK/p"
cat >"$WORK/p/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(strict NONE)
enable_testing()
add_test(NAME passes COMMAND sh -c "exit 0")
add_test(NAME skips COMMAND sh -c "exit 77")
set_tests_properties(skips PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME disabled COMMAND sh -c "exit 0")
set_tests_properties(disabled PROPERTIES DISABLED TRUE)
add_test(NAME absent COMMAND ${CMAKE_CURRENT_BINARY_DIR}/no-such-program)
add_test(NAME fails COMMAND sh -c "exit 1")
CMAKE
cmake -S "$WORK/p" -B "$WORK/b" >/dev/null || fail "the scratch project does not configure"
cd "$WORK/b" || fail "no scratch build"

expect_exit 0 "a test that passed" -- "$STRICT" -R '^passes$'
ctest -R '^(passes|skips)$' >/dev/null || fail "the case under test did not arise: ctest failed on a skip"
for t in skips disabled absent fails; do
    "$STRICT" -R "^(passes|$t)\$" >"$WORK/out" 2>&1
    rc=$?
    [ $rc -ne 0 ] || { cat "$WORK/out"; fail "$t: ctest-strict.sh exited 0"; }
    echo "ok: $t fails the run (exit $rc)"
done
"$STRICT" -R '^(passes|skips)$' >"$WORK/out" 2>&1
contains "$WORK/out" "a skip is a failure here" "says why a skip fails"
