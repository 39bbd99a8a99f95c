# SPDX-License-Identifier: MIT
# libmcp front door. `make check` from nothing: dependencies, build, every test.
#
#   make demo     install what is missing, build, and show a call being cancelled
#   make deps     check every dependency, apt-get install what is missing
#                 (scripts/install-deps.sh)
#   make / build  build the libraries, the mcp command, the examples, the
#                 benchmarks, and the tests when cmocka is found (needs only
#                 cmake, pkg-config, a C compiler and libuv; no -Werror)
#   make configure  configure build/ as make build does, without building
#   make check    every test: unit + corpus replay, valgrind, ASan+UBSan,
#                 and a timed run of every fuzz target; build/ is configured
#                 strictly (-Werror, cmocka and valgrind required). A test
#                 that lacks what it needs fails; one that was skipped
#                 (only with MCP_TEST_ALLOW_SKIP=1) or did not run fails
#                 make check all the same
#   make test-conformance  the official conformance suite's server and client
#                 scenarios against mcp-conformance server and client, the
#                 fixtures' test program in build/ (installs the pinned suite)
#   make bench    run the benchmarks
#   make fuzz     short timed runs of every fuzz target (FUZZ_SECONDS each)
#   make install  install to PREFIX (default /usr/local)
#   make clean    remove the build directories

BUILD       ?= build
ASAN_BUILD  ?= build-asan
TSAN_BUILD  ?= build-tsan
FUZZ_BUILD  ?= build-fuzz
PREFIX      ?= /usr/local
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 20
# Every test run of the Makefile fails when a test was skipped or did not
# run (scripts/ctest-strict.sh): only a test that ran can pass.
CTEST       = $(CURDIR)/scripts/ctest-strict.sh --output-on-failure --no-tests=error -j $(JOBS)

# make build's configuration: the library and the mcp command need none of
# the test tools; the tests are built when cmocka is found.
BUILD_CONFIG = -DMCP_WERROR=OFF -DMCP_BUILD_TESTS=AUTO -DMCP_VALGRIND=OFF
# make check's configuration of the same tree: warnings are errors, and the
# tests and valgrind are required.
CHECK_CONFIG = -DMCP_WERROR=ON -DMCP_BUILD_TESTS=ON -DMCP_VALGRIND=ON

.PHONY: all build configure check-build deps demo check test interop-deps test-conformance \
        test-valgrind test-asan test-tsan fuzz fuzz-build bench install clean

all: build

deps:
	@scripts/install-deps.sh

# cmake writes CMakeCache.txt even when configuration fails, so each tree
# is marked configured by a stamp touched only after cmake succeeded: a
# failed configuration is tried again by the next make. In $(BUILD),
# .configured means configured (either way), .configured-check configured
# with CHECK_CONFIG; each configuration first drops the other's stamp.
$(BUILD)/.configured:
	@rm -f $(BUILD)/.configured-check
	cmake -S . -B $(BUILD) $(BUILD_CONFIG)
	touch $@

$(BUILD)/.configured-check:
	@rm -f $(BUILD)/.configured
	cmake -S . -B $(BUILD) $(CHECK_CONFIG)
	touch $@ $(BUILD)/.configured

configure: $(BUILD)/.configured

build: $(BUILD)/.configured
	cmake --build $(BUILD) -j $(JOBS)

# The build the tests run in: configured with CHECK_CONFIG.
check-build: $(BUILD)/.configured-check
	cmake --build $(BUILD) -j $(JOBS)

test: check-build interop-deps
	cd $(BUILD) && $(CTEST) -L 'unit|replay|install|integration|interop'

# The npm packages of the interop tests, exactly as locked.
interop-deps: tests/interop/node_modules/.package-lock.json
tests/interop/node_modules/.package-lock.json: tests/interop/package-lock.json
	cd tests/interop && npm ci --no-audit --no-fund

# The conformance suite alone, server and client scenarios
# (tests/interop/run_conformance.sh).
test-conformance: check-build interop-deps
	cd $(BUILD) && $(CTEST) -R '^conformance_(server|client)$$'

test-valgrind: check-build
	cd $(BUILD) && $(CTEST) -L valgrind

$(ASAN_BUILD)/.configured:
	CC=clang cmake -S . -B $(ASAN_BUILD) -DMCP_WERROR=ON -DMCP_BUILD_TESTS=ON -DMCP_BUILD_BENCH=OFF \
	  -DMCP_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=Debug
	touch $@

test-asan: $(ASAN_BUILD)/.configured
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 $(CTEST) -L 'unit|replay|sanitize'

$(TSAN_BUILD)/.configured:
	CC=clang cmake -S . -B $(TSAN_BUILD) -DMCP_WERROR=ON -DMCP_BUILD_TESTS=ON -DMCP_BUILD_BENCH=OFF \
	  -DMCP_SANITIZE=thread -DCMAKE_BUILD_TYPE=Debug
	touch $@

# Threads under ThreadSanitizer: the tests labelled "threads".
test-tsan: $(TSAN_BUILD)/.configured
	cmake --build $(TSAN_BUILD) -j $(JOBS)
	cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$(CURDIR)/tests/tsan.supp \
	  $(CTEST) -L threads

$(FUZZ_BUILD)/.configured:
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DMCP_BUILD_FUZZ=ON -DMCP_BUILD_TESTS=OFF \
	  -DMCP_BUILD_BENCH=OFF -DMCP_SANITIZE=address,undefined
	touch $@

fuzz-build: $(FUZZ_BUILD)/.configured
	cmake --build $(FUZZ_BUILD) -j $(JOBS)

# Replay the corpus under libFuzzer, then fuzz each target for FUZZ_SECONDS
# (new inputs go to a scratch copy, never into the committed corpus).
fuzz: fuzz-build
	cd $(FUZZ_BUILD) && $(CTEST) -L replay
	scripts/run-fuzzers.sh $(FUZZ_BUILD)/fuzz $(FUZZ_SECONDS) $(JOBS)

check: deps
	$(MAKE) check-build
	$(MAKE) test
	$(MAKE) test-valgrind
	$(MAKE) test-asan
	$(MAKE) test-tsan
	$(MAKE) fuzz
	@echo "make check: all passed"

demo: deps
	$(MAKE) build
	scripts/demo.sh $(BUILD)

bench: build interop-deps
	$(BUILD)/bench/bench_json bench/data/tools_call_1k.json
	$(BUILD)/bench/bench_jwt
	$(BUILD)/bench/bench_stdio $(BUILD)/mcp $(BUILD)/bench/bench_server $(BUILD)/bench/echo_peer \
	  tests/interop/node_modules/.bin/node tests/interop/ts_echo_server.mjs \
	  tests/interop/ts2_echo_server.mjs
	sh bench/stdio_instructions.sh $(BUILD)/mcp $(BUILD)/bench/bench_stdio
	$(BUILD)/bench/bench_tasks $(BUILD)/bench/bench_server tests/interop/node_modules/.bin/node \
	  tests/interop/ts_task_bench.mjs
	sh bench/bench_http.sh $(BUILD)/mcp $(BUILD)/bench/bare_mhd tests/interop/node_modules/.bin/node \
	  tests/interop
	$(BUILD)/bench/bench_http_streams
	$(BUILD)/bench/bench_schema bench/data/search_documents.schema.json bench/data/tools_call_1k.json \
	  tests/interop/node_modules/.bin/node tests/interop bench/ajv_validate.mjs
	sh bench/bench_cluster.sh $(BUILD)/bench/bench_cluster $(BUILD)/bench/bench_server
	$(BUILD)/bench/bench_proxy $(BUILD)/mcp $(BUILD)/bench/bench_server \
	  tests/interop/node_modules/.bin/node tests/interop/node_modules/supergateway/dist/index.js
	$(BUILD)/bench/bench_gateway $(BUILD)/mcp $(BUILD)/bench/bench_server \
	  tests/interop/node_modules/.bin/node tests/interop/node_modules/supergateway/dist/index.js

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)
