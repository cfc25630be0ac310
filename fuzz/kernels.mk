# kernel_random: random valid kernels (fuzz/kernel_gen.c), each checked by
# npugen check and by gcc (UBSan, ASan) vs tcc builds of the emitted C and
# of the kernel as written (fuzz/fuzz_kernels.c, a process per case);
# failures go to fuzz/failures/kgen-seed*.c.
#   make fuzz-kernels N=20000 [SEED=1]    a long run (JOBS at a time)
#   make fuzz-kernels-smoke               KGEN_SMOKE_CASES of it (run by `make test`:
#                                         a count, so load does not change it)
KGEN_OBJS := $(call obj,fuzz/fuzz_kernels.c fuzz/kernel_gen.c fuzz/fork_pool.c)
KGEN_SMOKE_CASES ?= 20
$(KGEN_OBJS) $(call obj,tests/test_kernel_random.c): fuzz/kernel_gen.h
$(KGEN_OBJS): fuzz/fork_pool.h

.PHONY: fuzz-kernels fuzz-kernels-smoke
$(BUILD)/fuzz_kernels: $(KGEN_OBJS) $(INTERNAL_LIBS)
	$(CC) $(OPT) $(LINK) -o $@ $(KGEN_OBJS) $(INTERNAL_LIBS) $(LDLIBS)

fuzz-kernels: $(BUILD)/fuzz_kernels
	$(BUILD)/fuzz_kernels -n $(N) -s $(SEED) -j $(JOBS)

fuzz-kernels-smoke: $(BUILD)/fuzz_kernels
	$(BUILD)/fuzz_kernels -n $(KGEN_SMOKE_CASES) -s $(SEED) -j $(JOBS)

SMOKE_TARGETS += fuzz-kernels-smoke
