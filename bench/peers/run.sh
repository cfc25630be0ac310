#!/bin/bash
# make bench-peers: GFLOP/s of three float kernels, in one run, one table:
#   matmul 1024^3 (matmul_f32.c), matmul 1000^3 (matmul_f32_1000.c: tails)
#   and a 3x3 convolution of a 2048 x 2048 image (conv3x3_f32.c),
# each under
#   - Halide 14's JIT with its classic schedule (halide_matmul.cpp,
#     halide_conv3x3.cpp; HL_NUM_THREADS threads),
#   - npugen: the schedule `npugen tune --host` found (*.tuned1.sched on
#     one thread, *.tuned2.sched on two; tuned once by tune_peers.sh and
#     committed with the command in their first line, or tuned here first
#     with TUNE=1), emitted and built with gcc -O3 -march=native -fopenmp
#     (OMP_NUM_THREADS threads),
#   - the kernel as written, built the same way (serial C: its figure on
#     two threads is the one-thread run's),
# on one thread and on two. Three rounds, alternating, the best of each;
# on one thread by the process's CPU time (a loaded machine's other work
# does not count), on two by wall-clock time; the load average before and
# after. A bench, not a test: never in make test.
# INSTALL_HALIDE=1 installs Debian's libhalide14-0-dev first (apt-get).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
npugen=${NPUGEN:-$here/../../build/npugen}
if [ -n "${BENCH_OUT:-}" ]; then out=$BENCH_OUT; mkdir -p "$out"; else out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
inc=/usr/include/halide14
if [ ! -f $inc/Halide.h ]; then
  if [ "${INSTALL_HALIDE:-0}" = 1 ]; then
    apt-get install -y libhalide14-0-dev
  else
    echo "bench-peers: Halide 14 is not installed; run 'make bench-peers INSTALL_HALIDE=1' to apt-get libhalide14-0-dev" >&2
    exit 1
  fi
fi
[ "${TUNE:-0}" = 1 ] && NPUGEN=$npugen bash "$here/tune_peers.sh"

# kernel, its time_kernel.c shape flags, its Halide program and arguments
kernels=(matmul_f32 matmul_f32_1000 conv3x3_f32)
declare -A shape=([matmul_f32]="-DMATMUL -DN=1024" [matmul_f32_1000]="-DMATMUL -DN=1000"
                  [conv3x3_f32]="-DCONV3X3 -DH=2048 -DW=2048")
declare -A label=([matmul_f32]="matmul 1024^3" [matmul_f32_1000]="matmul 1000^3"
                  [conv3x3_f32]="conv 3x3, 2048^2")
declare -A halide=([matmul_f32]="halide_matmul 1024" [matmul_f32_1000]="halide_matmul 1000"
                   [conv3x3_f32]="halide_conv3x3")
cc="gcc -O3 -march=native -fopenmp"
g++ -O2 -std=c++17 -I$inc "$here/halide_matmul.cpp" -o "$out/halide_matmul" -lHalide14 -lpthread -ldl
g++ -O2 -std=c++17 -I$inc "$here/halide_conv3x3.cpp" -o "$out/halide_conv3x3" -lHalide14 -lpthread -ldl
for k in "${kernels[@]}"; do
  $cc ${shape[$k]} -DFN=$k "$here/time_kernel.c" "$here/$k.c" -o "$out/$k.asis" -lm
  for t in 1 2; do
    "$npugen" emit "$here/$k.c" --schedule "$here/$k.tuned$t.sched" -o "$out/$k.e$t" >/dev/null
    v=${k}_${k}_tuned
    $cc ${shape[$k]} -DFN=$v "$here/time_kernel.c" "$out/$k.e$t/$v.c" -o "$out/$k.tuned$t" -lm
  done
done

best() { awk -v a="$1" -v b="$2" 'BEGIN { print (a > b ? a : b) }'; }
# A program prints GFLOP/s by wall-clock time and by its CPU time. On one
# thread the CPU time is the figure (the time other work on the machine
# takes from the core is not the kernel's); on two, wall-clock time
# (CPU time would add the threads' times).
fig() { if [ "$1" = 1 ]; then echo "$2" | awk '{ print $2 }'; else echo "$2" | awk '{ print $1 }'; fi; }
declare -A hl npg asis
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for round in 1 2 3; do
  for k in "${kernels[@]}"; do
    asis[$k]=$(best "${asis[$k]:-0}" "$(fig 1 "$(OMP_NUM_THREADS=1 "$out/$k.asis")")")
    for t in 1 2; do
      # shellcheck disable=SC2086
      hl[$k$t]=$(best "${hl[$k$t]:-0}" "$(fig $t "$(HL_NUM_THREADS=$t "$out/"${halide[$k]} 2>"$out/halide_target")")")
      npg[$k$t]=$(best "${npg[$k$t]:-0}" "$(fig $t "$(OMP_NUM_THREADS=$t "$out/$k.tuned$t")")")
    done
  done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "$(cat "$out/halide_target"); npugen's C and the kernels as written: gcc $(gcc -dumpfullversion) -O3 -march=native -fopenmp"
echo "GFLOP/s, the best of 3 rounds (one thread: by the process's CPU time; two: by wall-clock time);"
echo "load average $load0 before, $load1 after ($(nproc) cores)"
printf '%-18s %7s | %8s | %8s %8s | %10s %8s\n' "kernel" "threads" "Halide" "npugen" "x Halide" "as written" "x Halide"
for k in "${kernels[@]}"; do
  for t in 1 2; do
    printf '%-18s %7s | %8s | %8s %8s | %10s %8s\n' "${label[$k]}" "$t" "${hl[$k$t]}" "${npg[$k$t]}" \
      "$(ratio "${npg[$k$t]}" "${hl[$k$t]}")" "${asis[$k]}" "$(ratio "${asis[$k]}" "${hl[$k$t]}")"
  done
done
echo "npugen's schedules (npugen tune --host, the knobs it chose):"
for k in "${kernels[@]}"; do
  for t in 1 2; do echo "  $k.tuned$t.sched: $(sed -n 2p "$here/$k.tuned$t.sched" | sed 's/^ \* //')"; done
done
