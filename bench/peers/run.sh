#!/bin/bash
# make bench-peers: GFLOP/s of the same float matmul (1024^3) under Halide
# 14's JIT (halide_matmul.cpp) and under npugen (matmul_f32.c with the
# schedule of matmul_f32.sched, emitted, built with gcc -O3 -march=native),
# in one run, both on one thread. A bench, not a test: never in make test.
# INSTALL_HALIDE=1 installs Debian's libhalide14-0-dev first (apt-get).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
npugen=${NPUGEN:-$here/../../build/npugen}
if [ -n "${BENCH_OUT:-}" ]; then out=$BENCH_OUT; else out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
inc=/usr/include/halide14
if [ ! -f $inc/Halide.h ]; then
  if [ "${INSTALL_HALIDE:-0}" = 1 ]; then
    apt-get install -y libhalide14-0-dev
  else
    echo "bench-peers: Halide 14 is not installed; run 'make bench-peers INSTALL_HALIDE=1' to apt-get libhalide14-0-dev" >&2
    exit 1
  fi
fi
"$npugen" emit "$here/matmul_f32.c" --schedule "$here/matmul_f32.sched" -o "$out/emitted"
v=matmul_f32_blocked
gcc -O3 -march=native -I"$out/emitted" -DKERNEL_HEADER="\"$v.h\"" -DKERNEL=$v \
  "$here/bench_npugen.c" "$out/emitted/$v.c" -o "$out/npugen_matmul" -lm
g++ -O2 -std=c++17 -I$inc "$here/halide_matmul.cpp" -o "$out/halide_matmul" -lHalide14 -lpthread -ldl
# three rounds, alternating, the best of each: a machine shared with other
# work slows one run, seldom all three
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (a > b ? a : b) }'; }
halide=0 npg=0
for round in 1 2 3; do
  halide=$(best "$halide" "$(HL_NUM_THREADS=1 "$out/halide_matmul" 2>"$out/halide_target")")
  npg=$(best "$npg" "$(OMP_NUM_THREADS=1 "$out/npugen_matmul")")
done
echo "$(cat "$out/halide_target"); npugen's C: gcc $(gcc -dumpfullversion) -O3 -march=native"
printf '%-52s %8s %8s\n' "float matmul 1024^3, one thread" "GFLOP/s" "x Halide"
printf '%-52s %8s %8s\n' "Halide 14 JIT (classic tiled schedule)" "$halide" "1.00"
printf '%-52s %8s %8s\n' "npugen $v (split, reorder, unroll)" "$npg" "$(awk -v a="$npg" -v b="$halide" 'BEGIN { printf "%.2f", a / b }')"
