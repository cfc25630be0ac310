# The frontend's libFuzzer harness (fuzz/fuzz_frontend.c), built with clang
# into its own build dir so that the normal builds are left alone:
#   make fuzz-frontend [SECONDS=600] [FEFUZZ_TIMEOUT=60]
#                            fuzz; the corpus stays in build/fuzz/frontend-corpus
#   make fuzz-frontend-smoke 2,000 executions from the small seeds (a count,
#                            not a time, so load does not change what it runs)
#   make fuzz-frontend-replay the harness run once on each of fuzz/regressions,
#                            in the ASan+UBSan build (run by `make test`)
# Seeds: the test kernels, examples and fuzz regressions, copied into
# build/fuzz/frontend-seeds (the smoke leaves out examples/: some take
# seconds each in this build). Crashes, sanitizer reports, leaks and timeouts
# are written to fuzz/failures/frontend-* and make the target fail.
FEFUZZ_BUILD   := build/fuzz
# Every library object (the grammar's too) gets coverage and sanitizer
# instrumentation; only the harness links libFuzzer's main.
FEFUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# clang-only warning on deliberate code: schedule/sched.c evaluates both
# sides of a boolean & for their side effects.
FEFUZZ_NOWARN  := -Wno-bitwise-instead-of-logical
FEFUZZ_MAKE     = $(MAKE) --no-print-directory BUILD=$(FEFUZZ_BUILD) CC=clang SAN= WARN="$(WARN) $(FEFUZZ_NOWARN)" \
                  SANFLAGS="-fsanitize=fuzzer-no-link $(FEFUZZ_SAN)" OPT="-O1 -g -fsanitize=fuzzer-no-link $(FEFUZZ_SAN)"
FEFUZZ_SMALL_SEEDS = $(shell find tests/kernels fuzz/regressions fuzz/kernels -name '*.c' 2>/dev/null) \
                  $(shell find tests fuzz/regressions -name '*.sched' 2>/dev/null)
FEFUZZ_SEEDS    = $(FEFUZZ_SMALL_SEEDS) $(wildcard examples/*.c)
FEFUZZ_ENV     := ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# A timeout is a hang, not a slow proof: examples/conv2d.c alone takes 7 s
# in this build (isl legality proofs under ASan) and took 28 s on a loaded
# 2-core machine; the smoke run, part of `make test`, allows more. Inputs
# over 10 s are still written to fuzz/failures/frontend-slow-unit-*.
FEFUZZ_TIMEOUT ?= 60
FEFUZZ_FLAGS    = -timeout=$(FEFUZZ_TIMEOUT) -rss_limit_mb=4096 -dict=fuzz/frontend.dict -print_final_stats=1 \
                  -artifact_prefix=fuzz/failures/frontend-
SECONDS        ?= 600

.PHONY: fuzz-frontend fuzz-frontend-smoke fuzz-frontend-build
fuzz-frontend-build: | $(DEPS_OK)
	+$(FEFUZZ_MAKE) $(FEFUZZ_BUILD)/fuzz_frontend

# Only meaningful inside FEFUZZ_MAKE (BUILD=build/fuzz, CC=clang).
$(BUILD)/fuzz_frontend: fuzz/fuzz_frontend.c include/npugen.h $(INTERNAL_LIBS)
	$(CC) $(CFLAGS_ALL) -fsanitize=fuzzer -o $@ $< $(INTERNAL_LIBS) $(LDLIBS)

# $(1): libFuzzer's limit (-max_total_time=S or -runs=N), $(2): corpus dir
# (new inputs go there; the seeds are read only), $(3): the seed files.
define fuzz_frontend_run
	@rm -rf $(FEFUZZ_BUILD)/frontend-seeds && mkdir -p $(FEFUZZ_BUILD)/frontend-seeds $(2) fuzz/failures
	@for f in $(3); do cp $$f $(FEFUZZ_BUILD)/frontend-seeds/$$(echo $$f | tr / _); done
	@start=$$(date +%s); log=$(FEFUZZ_BUILD)/frontend.log; \
	{ $(FEFUZZ_ENV) $(FEFUZZ_BUILD)/fuzz_frontend $(FEFUZZ_FLAGS) $(1) $(2) $(FEFUZZ_BUILD)/frontend-seeds; \
	  echo $$? > $$log.rc; } 2>&1 | tee $$log; rc=$$(cat $$log.rc); \
	echo "== fuzz-frontend: $$(sed -n 's/^stat::number_of_executed_units: *//p' $$log) executions in" \
	  "$$(( $$(date +%s) - start )) s wall; $$(grep -o 'cov: [0-9]* ft: [0-9]* corp: [0-9/]*[KMb]*' $$log | tail -n 1)" \
	  "($$(ls $(2) | wc -l) files in $(2)); exit $$rc"; \
	if [ $$rc -ne 0 ]; then echo "fuzz-frontend: failure: see fuzz/failures/frontend-* and $$log" >&2; fi; exit $$rc
endef

fuzz-frontend: fuzz-frontend-build
	$(call fuzz_frontend_run,-max_total_time=$(SECONDS),$(FEFUZZ_BUILD)/frontend-corpus,$(FEFUZZ_SEEDS))

fuzz-frontend-smoke: fuzz-frontend-build
	@rm -rf $(FEFUZZ_BUILD)/frontend-smoke-corpus
	$(call fuzz_frontend_run,-runs=2000,$(FEFUZZ_BUILD)/frontend-smoke-corpus,$(FEFUZZ_SMALL_SEEDS))

fuzz-frontend-smoke: FEFUZZ_TIMEOUT = 120

# make test replays the harness on the fuzzer's own findings
# (fuzz/regressions, about 1 s) in the ASan+UBSan build
# (fuzz/replay_main.c): the harness keeps building and running; the
# seeds' kernels run under the sanitizers in the suite itself (whole, they
# took 60 s here), and the clang coverage build that fuzzing needs (about
# 90 s of CPU) is left to fuzz-frontend and fuzz-frontend-smoke.
.PHONY: fuzz-frontend-replay
$(BUILD)/fuzz_frontend_replay: $(call obj,fuzz/fuzz_frontend.c fuzz/replay_main.c) $(INTERNAL_LIBS)
	$(CC) $(OPT) $(LINK) -o $@ $(call obj,fuzz/fuzz_frontend.c fuzz/replay_main.c) $(INTERNAL_LIBS) $(LDLIBS)
fuzz-frontend-replay: $(DEPS_OK)
	$(MAKE) --no-print-directory -j$(JOBS) BUILD=build/asan SAN=1 build/asan/fuzz_frontend_replay
	$(FEFUZZ_ENV) build/asan/fuzz_frontend_replay $(wildcard fuzz/regressions/*.c fuzz/regressions/*.sched)

SMOKE_TARGETS += fuzz-frontend-replay
