# npugen — build, test, run, bench.
#   make            build/npugen, build/libnpugen.a, build/libnpusim.a
#   make run        check examples/matmul.c and write its emitted C to out/
#   make test       normal + ASan/UBSan builds, whole Criterion suite in both
#   make bench      benchmark table (one run, ratios)
#   make bench-peers  npugen tune --host against Halide's JIT and gcc -O3 (INSTALL_HALIDE=1)
#   make install PREFIX=/usr/local

PREFIX  ?= /usr/local
BUILD   ?= build
SAN     ?=
CC      ?= gcc
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)

TS_C    := third_party/tree-sitter-c/src
DEPS_OK := third_party/.deps-ok

WARN    := -Wall -Wextra -Werror
ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT     := -O1 -g1 $(SANFLAGS)
# This build's programs run only under make test, hundreds of processes:
# position-dependent, they start without relocating their pointers
# (a quarter of an ASan process's start, in page faults).
LINK    := -no-pie
else
OPT     := -O2 -g
endif
# Where npugen reads the intrinsics' semantics kernels (tensorize, vectorize)
# and npu_intrinsics.h (the JIT's include): the source tree, or the
# installed copy (make install).
INTRINSICS_DIR ?= $(CURDIR)/npu_intrinsics
CFLAGS_ALL := -std=c11 $(WARN) $(OPT) -D_POSIX_C_SOURCE=200809L -Iinclude -I. -Inpu_intrinsics -Isim -DNPG_INTRINSICS_INCLUDE_DIR=\"$(INTRINSICS_DIR)\"
LDLIBS  := -ltree-sitter -ltcc -ldl -lisl -lgmp -linih -lm
TESTLIBS := -lcriterion

LIB_SRCS  := $(wildcard frontend/*.c ir/*.c schedule/*.c lower/*.c emit/*.c jit/*.c tune/*.c)
SIM_SRCS  := $(wildcard sim/*.c)
CLI_SRCS  := $(wildcard cli/*.c)
TEST_SRCS := $(wildcard tests/*.c)
HDRS      := $(wildcard include/*.h frontend/*.h ir/*.h schedule/*.h lower/*.h emit/*.h jit/*.h tune/*.h sim/*.h npu_intrinsics/*.h npu_intrinsics/*.def cli/*.h tests/*.h fuzz/*.h)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
# Where the objects that do not hold INTRINSICS_DIR come from: this build's,
# or (make install) the normal build's, so an install compiles only the
# few that do (PREFIX_SRCS) and links.
OBJ_FROM ?= $(BUILD)
shared_obj = $(patsubst %.c,$(OBJ_FROM)/obj/%.o,$(1))
PREFIX_SRCS := $(shell grep -l NPG_INTRINSICS_INCLUDE_DIR $(LIB_SRCS) 2>/dev/null)

LIB_OBJS  := $(call shared_obj,$(filter-out $(PREFIX_SRCS),$(LIB_SRCS))) $(call obj,$(PREFIX_SRCS)) $(OBJ_FROM)/obj/ts_c_parser.o
SIM_OBJS  := $(call shared_obj,$(SIM_SRCS))
CLI_OBJS  := $(call shared_obj,$(CLI_SRCS))
TEST_OBJS := $(call obj,$(TEST_SRCS))
# sched_random: the random-schedule tester (fuzz/) is linked into the tests.
# kernel_random: the random-kernel generator (fuzz/kernel_gen.c) likewise.
TEST_OBJS += $(call obj,$(wildcard fuzz/sched_gen.c fuzz/kernel_gen.c fuzz/prog_gen.c))

.PHONY: all deps run test test-build bench install clean
all: $(BUILD)/npugen $(BUILD)/libnpugen.a $(BUILD)/libnpusim.a

# The objects that compile INTRINSICS_DIR in depend on a file holding it,
# rewritten only when it changes: `make install PREFIX=/x` after an install
# to another PREFIX (make test's install-smoke) rebuilds them, and nothing
# else, instead of keeping the other PREFIX's path.
INTRINSICS_STAMP := $(BUILD)/intrinsics-dir
$(shell mkdir -p $(BUILD) && { [ "$$(cat $(INTRINSICS_STAMP) 2>/dev/null)" = '$(INTRINSICS_DIR)' ] || \
  printf '%s\n' '$(INTRINSICS_DIR)' > $(INTRINSICS_STAMP); })
USES_INTRINSICS_DIR := $(call obj,$(shell grep -l NPG_INTRINSICS_INCLUDE_DIR $(LIB_SRCS) $(TEST_SRCS) fuzz/*.c 2>/dev/null))
$(USES_INTRINSICS_DIR): $(INTRINSICS_STAMP)

deps: $(DEPS_OK)
$(DEPS_OK): scripts/deps.sh scripts/tree-sitter-c.sha256
	bash scripts/deps.sh
	touch $@

$(BUILD)/obj/%.o: %.c $(HDRS) | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

# libnpusim is fast host C even in debug builds: tests run real intrinsics.
$(BUILD)/obj/sim/%.o: sim/%.c $(HDRS) | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -O2 -c $< -o $@

# The test files are strings, calls and assertions, nothing hot: unoptimised
# they compile in a third of the time, and make test builds them twice.
$(BUILD)/obj/tests/%.o: tests/%.c $(HDRS) | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -O0 -c $< -o $@

# The generated grammar is third-party code: our warning flags do not apply.
$(BUILD)/obj/ts_c_parser.o: $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -w $(SANFLAGS) -I$(TS_C) -c $(TS_C)/parser.c -o $@

# libnpugen.a and libnpusim.a export their API alone (npg_; npusim_ and
# npu_): each is one relocatable object (ld -r) whose other globals are
# made local, so a user's program with its own arena_alloc or region_make
# links (tests/test_embed.c checks with nm). The CLI, the tests and the
# fuzzers use internals: they link every object as it is (INTERNAL_LIBS).
API_npugen := 'npg_*'
API_npusim := 'npusim_*' 'npu_*'
INTERNAL_LIBS := $(BUILD)/internal/libnpugen.a $(BUILD)/internal/libnpusim.a
$(BUILD)/internal/libnpugen.a: $(LIB_OBJS)
$(BUILD)/internal/libnpusim.a: $(SIM_OBJS)
$(INTERNAL_LIBS):
	@mkdir -p $(dir $@) && rm -f $@
	ar rcs $@ $^

$(BUILD)/libnpugen.a: $(LIB_OBJS)
$(BUILD)/libnpusim.a: $(SIM_OBJS)
$(BUILD)/libnpugen.a $(BUILD)/libnpusim.a:
	@rm -f $@ $(@:.a=.o)
	ld -r -o $(@:.a=.o) $^
	objcopy --wildcard $(foreach p,$(API_$(patsubst lib%.a,%,$(notdir $@))),--keep-global-symbol=$(p)) $(@:.a=.o)
	ar rcs $@ $(@:.a=.o)
	@rm -f $(@:.a=.o)

$(BUILD)/npugen: $(CLI_OBJS) $(INTERNAL_LIBS)
	$(CC) $(OPT) $(LINK) -o $@ $(CLI_OBJS) $(INTERNAL_LIBS) $(LDLIBS)

# the public libraries too: tests/test_embed.c reads their symbols
$(BUILD)/npugen-tests: $(TEST_OBJS) $(INTERNAL_LIBS) $(BUILD)/libnpugen.a $(BUILD)/libnpusim.a
	$(CC) $(OPT) $(LINK) -o $@ $(TEST_OBJS) $(INTERNAL_LIBS) $(TESTLIBS) $(LDLIBS)

test-build: $(BUILD)/npugen $(BUILD)/npugen-tests

# The README's test command: both builds, whole suite. Each test runs in a
# process of its own (Criterion forks one per test) and each process,
# the compilers and npugen runs it starts included, may use at most
# TEST_CPU_LIMIT seconds of CPU: a hang fails it, while load, which only
# stretches wall time, cannot (no test has a wall-clock limit).
TEST_CPU_LIMIT ?= 600
# The ASan+UBSan run leaves out the suites whose work is tune's search
# itself, hundreds of candidates compiled and simulated (about 155 s of CPU
# in that build, a sixth of make test's budget): tune's own code (the
# space, the plan, trial files, merge, re-checks, the vectorize mark) runs
# under the sanitizers in tune_plan and tune_vectorize, and both run whole
# in the normal build. tune_program is a tune of a small program (its
# callees' searches and checks); tune_program_cli runs under both.
ASAN_LEFT_OUT := tune|tune_suite|tune_reach|tune_host_expand|tune_program
test: $(DEPS_OK)
	$(MAKE) --no-print-directory -j$(JOBS) BUILD=build test-build
	$(MAKE) --no-print-directory -j$(JOBS) BUILD=build/asan SAN=1 test-build
	@echo "== normal build =="
	ulimit -t $(TEST_CPU_LIMIT); NPUGEN=build/npugen build/npugen-tests --jobs=$(JOBS)
	@echo "== ASan+UBSan build =="
	ulimit -t $(TEST_CPU_LIMIT); NPUGEN=build/asan/npugen bash tests/asan_run.sh build/asan/npugen-tests --jobs=$(JOBS) \
	  --filter '!($(ASAN_LEFT_OUT))/*'
	@echo "== smoke runs: $(SMOKE_TARGETS) =="
	$(MAKE) --no-print-directory $(SMOKE_TARGETS)

EXAMPLES := $(wildcard examples/*.c)
# Examples with schedules for another target (schedule(K, V, TARGET)), as
# FILE:TARGET_INI; their emitted C goes to <example>-<target>/.
TARGET_EXAMPLES := examples/softmax_npu.c:targets/small.ini
# "f t n" per target example: file, target file, output directory name
TARGET_RUNS = for x in $(TARGET_EXAMPLES); do f=$${x%%:*}; t=$${x\#*:}; \
	  n=$$(basename $$f .c)-$$(basename $$t .ini)

run: all
	@set -e; for f in $(EXAMPLES); do \
	  echo "== npugen check $$f"; $(BUILD)/npugen check $$f; done
	@set -e; $(TARGET_RUNS); \
	  echo "== npugen check $$f --target $$t"; $(BUILD)/npugen check $$f --target $$t; done
	@set -e; for f in $(EXAMPLES); do \
	  n=$$(basename $$f .c); $(BUILD)/npugen emit $$f -o out/$$n; done
	@set -e; $(TARGET_RUNS); $(BUILD)/npugen emit $$f --target $$t -o out/$$n; done
	@echo "emitted C written to: $$(ls out/*/*.c | tr '\n' ' ')"

# The VU's op families: each member's semantics kernel and npu_vu_families.h
# from the table npu_intrinsics/npu_vu_families.def (a test checks the
# files are fresh: vu_families/generated_files_are_the_tables).
.PHONY: vu-ops
vu-ops: $(BUILD)/vu_families_gen
	$(BUILD)/vu_families_gen npu_intrinsics
$(BUILD)/vu_families_gen: $(BUILD)/obj/scripts/vu_families_gen.o $(BUILD)/internal/libnpugen.a
	$(CC) $(OPT) $(LINK) -o $@ $^ $(LDLIBS)

bench: all
	bash bench/run.sh

# npugen tune --host's schedules against Halide's JIT and gcc -O3
# (bench/peers/run.sh); a bench, not a test. INSTALL_HALIDE=1 apt-gets
# libhalide14-0-dev first; TUNE=1 tunes the schedules again first.
.PHONY: bench-peers
bench-peers: all
	INSTALL_HALIDE=$(INSTALL_HALIDE) TUNE=$(TUNE) bash bench/peers/run.sh

# The installed npugen and libnpugen read the semantics kernels from
# PREFIX/share/npugen/npu_intrinsics: they are linked apart (build/install)
# from the normal build's objects and the few that hold that path, compiled
# again with it (PREFIX_SRCS; INTRINSICS_STAMP rebuilds them when PREFIX
# changes). Installed: the binary, the static libraries, the headers,
# npugen.pc and npusim.pc (dependencies in Libs: no --static needed), the
# semantics kernels, the targets, the manual page and an example of a
# user's own Criterion test.
INSTALL_INTRINSICS := $(PREFIX)/share/npugen/npu_intrinsics
VERSION := $(shell sed -n 's/^\#define NPUGEN_VERSION_STRING "\(.*\)"/\1/p' include/npugen.h)
PC_SED  := sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g'
install: $(DEPS_OK)
	$(MAKE) --no-print-directory -j$(JOBS) BUILD=build all
	$(MAKE) --no-print-directory -j$(JOBS) BUILD=build/install OBJ_FROM=build INTRINSICS_DIR=$(INSTALL_INTRINSICS) all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/lib/cmake/npugen $(DESTDIR)$(PREFIX)/include/npugen \
	  $(DESTDIR)$(INSTALL_INTRINSICS) $(DESTDIR)$(PREFIX)/share/npugen/targets \
	  $(DESTDIR)$(PREFIX)/share/npugen/examples $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/doc/npugen
	install -m 755 build/install/npugen $(DESTDIR)$(PREFIX)/bin/
	install -m 644 build/install/libnpugen.a build/install/libnpusim.a $(DESTDIR)$(PREFIX)/lib/
	install -m 644 include/npugen.h $(wildcard npu_intrinsics/*.h) $(wildcard sim/npusim.h) $(DESTDIR)$(PREFIX)/include/npugen/
	install -m 644 $(wildcard npu_intrinsics/*.c npu_intrinsics/*.h) $(DESTDIR)$(INSTALL_INTRINSICS)/
	install -m 644 $(wildcard targets/*.ini) $(DESTDIR)$(PREFIX)/share/npugen/targets/
	install -m 644 examples/embed/test_my_kernel.c $(DESTDIR)$(PREFIX)/share/npugen/examples/
	install -m 644 docs/npugen.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 docs/embedding.md $(DESTDIR)$(PREFIX)/share/doc/npugen/
	$(PC_SED) scripts/npugen.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/npugen.pc
	$(PC_SED) scripts/npusim.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/npusim.pc
	install -m 644 scripts/cmake/npugenConfig.cmake $(DESTDIR)$(PREFIX)/lib/cmake/npugen/npugenConfig.cmake
	$(PC_SED) scripts/cmake/npugenConfigVersion.cmake.in > $(DESTDIR)$(PREFIX)/lib/cmake/npugen/npugenConfigVersion.cmake

# An installed npugen, away from the source tree, tensorizes and vectorizes
# (softmax and layernorm need the semantics kernels) and JIT-runs the result;
# a second install to another PREFIX reads that PREFIX's intrinsics; the
# installed example test builds with pkg-config alone (no --static) and
# passes; a CMake project builds against the installed package
# (tests/embed_project/run.sh); the manual page renders, and it and the
# installed docs/embedding.md say how to embed npugen (CMake, Meson,
# pkg-config, emit -o, --check).
.PHONY: install-smoke
SMOKE_ROOT := $(CURDIR)/build/install-root
install-smoke: $(DEPS_OK)
	rm -rf $(SMOKE_ROOT) $(SMOKE_ROOT)2
	$(MAKE) --no-print-directory install PREFIX=$(SMOKE_ROOT)
	grep -qa '$(SMOKE_ROOT)/share/npugen/npu_intrinsics' $(SMOKE_ROOT)/bin/npugen
	cd / && $(SMOKE_ROOT)/bin/npugen check $(CURDIR)/examples/softmax_npu.c
	cd / && $(SMOKE_ROOT)/bin/npugen check $(CURDIR)/examples/softmax_npu.c \
	  --target $(SMOKE_ROOT)/share/npugen/targets/small.ini
	cd / && $(SMOKE_ROOT)/bin/npugen check $(CURDIR)/examples/layernorm_npu.c
	cd / && $(SMOKE_ROOT)/bin/npugen intrinsics npu_nu_matmul_i8 | \
	  grep -q 'semantics:   $(SMOKE_ROOT)/share/npugen/npu_intrinsics/npu_nu_matmul_i8.c'
	$(MAKE) --no-print-directory install PREFIX=$(SMOKE_ROOT)2
	rm -rf $(SMOKE_ROOT)
	cd / && $(SMOKE_ROOT)2/bin/npugen intrinsics npu_nu_matmul_i8 | \
	  grep -q 'semantics:   $(SMOKE_ROOT)2/share/npugen/npu_intrinsics/npu_nu_matmul_i8.c'
	cd / && $(SMOKE_ROOT)2/bin/npugen check $(CURDIR)/examples/matmul.c --variant matmul_nu
	mkdir -p build/install-example && cd build/install-example && \
	  PKG_CONFIG_PATH=$(SMOKE_ROOT)2/lib/pkgconfig $(CC) -std=c11 $(SMOKE_ROOT)2/share/npugen/examples/test_my_kernel.c \
	    $$(PKG_CONFIG_PATH=$(SMOKE_ROOT)2/lib/pkgconfig pkg-config --cflags --libs npugen criterion) -o test_my_kernel && \
	  ./test_my_kernel
	bash tests/embed_project/run.sh $(SMOKE_ROOT)2 $(CURDIR)/build/embed-project
	if command -v man >/dev/null; then MANWIDTH=80 man -l $(SMOKE_ROOT)2/share/man/man1/npugen.1 2>&1; \
	  else cat $(SMOKE_ROOT)2/share/man/man1/npugen.1; fi | grep -q 'npugen intrinsics' # man-db is not among the deps
	cmp docs/embedding.md $(SMOKE_ROOT)2/share/doc/npugen/embedding.md
	grep -q '^\.SH EMBEDDING' $(SMOKE_ROOT)2/share/man/man1/npugen.1
	for w in find_package npugen_add_kernels custom_target pkg-config '\\-\\-check' 'share/doc/npugen/embedding.md'; do \
	  grep -q -- "$$w" $(SMOKE_ROOT)2/share/man/man1/npugen.1 || { echo "npugen.1 lacks $$w"; exit 1; }; done
SMOKE_TARGETS += install-smoke

clean:
	rm -rf build out

# The emitted C of every example is committed under examples/emitted/ for
# review; examples-fresh fails when it is stale (`make emitted` rewrites it).
.PHONY: examples-fresh emitted
examples-fresh: $(DEPS_OK)
	$(MAKE) --no-print-directory -j$(JOBS) BUILD=build build/npugen
	@set -e; for f in $(EXAMPLES); do n=$$(basename $$f .c); \
	  build/npugen emit $$f -o examples/emitted/$$n --check; done
	@set -e; $(TARGET_RUNS); build/npugen emit $$f --target $$t -o examples/emitted/$$n --check; done
	@echo "examples/emitted: fresh"
emitted: all
	@set -e; for f in $(EXAMPLES); do n=$$(basename $$f .c); \
	  $(BUILD)/npugen emit $$f -o examples/emitted/$$n; done
	@set -e; $(TARGET_RUNS); $(BUILD)/npugen emit $$f --target $$t -o examples/emitted/$$n; done
SMOKE_TARGETS += examples-fresh

# The check's reference text and permuted C of tests/golden/*.c are pinned
# there; test_golden.c compares them, `make golden` rewrites them.
.PHONY: golden
golden: $(BUILD)/npugen-tests
	NPUGEN_GOLDEN_WRITE=1 $(BUILD)/npugen-tests --filter 'golden/*' -j1

# valgrind memcheck over a subset of the suite and the CLI, on the normal
# build: any error or leak (definite, indirect or possible) fails. The
# subset is small (about 35 s of CPU; fuzz_regressions alone took 65 s,
# sim_hazard 33 s): what valgrind adds to the ASan+UBSan run is reads of
# uninitialised memory, and these cover the API, the frontend's error
# paths and a whole check (parse, schedule, lower, JIT, simulate) from the
# command line. Criterion
# runs each test in a child process, hence a log file per process; one
# runner for the suites (a process's start is 2 s under valgrind, so a
# test costs 2 s or more however small: of frontend_errors, the test of
# every message and the hostile inputs, whose error paths cover the five
# small tests', which make test's CPU budget leaves out).
VALGRIND_SUITES := api/*|frontend_errors/exact_messages|frontend_errors/hostile_inputs_never_crash
VALGRIND := valgrind -q --trace-children=yes --leak-check=full --show-leak-kinds=definite,indirect,possible \
  --errors-for-leak-kinds=definite,indirect,possible --suppressions=tests/valgrind.supp
.PHONY: valgrind-subset
valgrind-subset: $(DEPS_OK)
	$(MAKE) --no-print-directory -j$(JOBS) BUILD=build test-build
	@rm -rf build/valgrind && mkdir -p build/valgrind
	@echo "== valgrind: $(VALGRIND_SUITES)"
	NPUGEN=build/npugen $(VALGRIND) --log-file=build/valgrind/suites.%p.log build/npugen-tests \
	  --filter '@($(VALGRIND_SUITES))' --jobs=$(JOBS)
	@echo "== valgrind: npugen check tests/kernels/matmul_valgrind.c"
	$(VALGRIND) --log-file=build/valgrind/cli.%p.log build/npugen check tests/kernels/matmul_valgrind.c >/dev/null
	@bad=$$(find build/valgrind -name '*.log' -size +0 | sort); \
	if [ -n "$$bad" ]; then cat $$bad; echo "valgrind: reports in: $$bad"; exit 1; fi; \
	echo "valgrind: no errors, no leaks ($$(ls build/valgrind | wc -l) processes)"
SMOKE_TARGETS += valgrind-subset

# Each fuzz/*.mk adds its harness's targets, and appends the short run that
# `make test` ends with to SMOKE_TARGETS.
-include $(wildcard fuzz/*.mk)

# sched_random: long random-schedule runs (fuzz/fuzz_schedules.c), a process
# per case; reproductions of failures go to fuzz/failures/.
#   make fuzz-schedules N=100000 [SEED=1]
N    ?= 1000
SEED ?= 1
FUZZ_OBJS := $(call obj,fuzz/fuzz_schedules.c fuzz/sched_gen.c fuzz/fork_pool.c)
$(FUZZ_OBJS) $(call obj,tests/test_sched_random.c): fuzz/sched_gen.h
$(FUZZ_OBJS): fuzz/fork_pool.h
.PHONY: fuzz-schedules
$(BUILD)/fuzz_schedules: $(FUZZ_OBJS) $(INTERNAL_LIBS)
	$(CC) $(OPT) $(LINK) -o $@ $(FUZZ_OBJS) $(INTERNAL_LIBS) $(LDLIBS)
fuzz-schedules: $(BUILD)/fuzz_schedules
	$(BUILD)/fuzz_schedules -n $(N) -s $(SEED) -j $(JOBS)

# The smoke run in `make test`: SCHED_SMOKE_CASES cases in the ASan+UBSan
# build (a leak, a sanitizer report, a crash or a wrong result fails it); a
# count, not a time, so load does not change what it runs. Runs past 2^30
# steps are a limit there, as in the sched_random test (-S): one case that
# left examples/matmul_npu.c's 1024^3 matmul on the host took 28 s of 40.
# 24 cases (12.8 s of CPU at 40: make test's budget); the same generator
# runs 1,024 cases in the sched_random suite (the two builds together).
SCHED_SMOKE_CASES ?= 24
.PHONY: fuzz-schedules-smoke
fuzz-schedules-smoke: $(DEPS_OK)
	$(MAKE) --no-print-directory -j$(JOBS) BUILD=build/asan SAN=1 build/asan/fuzz_schedules
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  build/asan/fuzz_schedules -n $(SCHED_SMOKE_CASES) -s 2 -j $(JOBS) -S 1073741824
SMOKE_TARGETS += fuzz-schedules-smoke
