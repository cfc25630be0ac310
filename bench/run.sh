#!/usr/bin/env bash
# make bench: every figure below is measured in this one run.
set -euo pipefail
cd "$(dirname "$0")/.."
B=build
LIBS="$B/libnpugen.a $B/libnpusim.a -ltree-sitter -ltcc -ldl -lisl -lgmp -linih -lm"
gcc -std=c11 -O2 -Iinclude bench/bench_spine.c -o $B/bench_spine $LIBS
echo "== generation, compile and check times per kernel file =="
$B/bench_spine examples/*.c tests/kernels/*.c
if [ -f bench/sim_bench.sh ]; then
  echo
  echo "== simulator host speed =="
  bash bench/sim_bench.sh
fi
echo
echo "== simulated cycles against the roofline =="
bash bench/roofline.sh
echo
echo "== simulated cycles by DMAs in flight (the target's max_tokens) =="
bash bench/tokens.sh
echo
echo "== legality engine =="
gcc -std=c11 -O2 -Iinclude bench/bench_engine.c -o $B/bench_engine $LIBS
$B/bench_engine examples/*.c
echo
echo "== check time against a native run of the kernel as written =="
gcc -std=c11 -O2 -Iinclude bench/bench_check.c -o $B/bench_check $LIBS
$B/bench_check examples/matmul_npu.c
