#!/usr/bin/env bash
# Simulator host speed: NU matmul 256x256x256 int8 in libnpusim vs the same
# loops built natively with gcc -O3, in one run (best of 15 each).
set -euo pipefail
cd "$(dirname "$0")/.."
gcc -std=c11 -O3 -D_POSIX_C_SOURCE=200809L -I. -Inpu_intrinsics -Isim bench/sim_bench.c \
  build/libnpusim.a -linih -lm -o build/sim_bench
build/sim_bench
