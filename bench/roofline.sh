#!/usr/bin/env bash
# Simulated cycles against the roofline bound of the default target:
#   bound = max(MACs / 1024 int8 MAC per cycle, DDR bytes / 64 B per cycle)
# DDR bytes are the least any schedule moves: each input read once, each
# output written once. Cycles come from `npugen check` in this run.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
printf '%-24s %-14s %14s %14s %10s %8s\n' example variant cycles bound "of bound" "NU busy"
row() { # file variant macs ddr_bytes
  local out cyc util bound
  out=$($B/npugen check "$1")
  cyc=$(awk -v v="$2" '$1 == v && $2 == "PASS" { getline; print $2 }' <<<"$out")
  util=$(awk -v v="$2" '$1 == v && $2 == "PASS" { getline; print $6 }' <<<"$out" | tr -d ,)
  [ -n "$cyc" ] || { echo "$1: $2 did not pass:"; echo "$out"; exit 1; }
  bound=$(( $3 / 1024 > $4 / 64 ? $3 / 1024 : $4 / 64 ))
  awk -v f="$1" -v v="$2" -v c="$cyc" -v b="$bound" -v u="$util" \
    'BEGIN { printf "%-24s %-14s %14d %14d %9.1f%% %8s\n", f, v, c, b, 100 * b / c, u }'
}
# int8 matmul 1024^3: 2^30 MACs; A and B 1 MiB each, C 4 MiB (int32)
row examples/matmul_npu.c matmul_nu $((1 << 30)) $(( (1 << 20) * 2 + (4 << 20) ))
# int8 matmul 256x128x512 (examples/matmul.c): A 128 KiB, B 64 KiB, C 128 KiB
row examples/matmul.c matmul_nu $((256 * 128 * 512)) $(( 256 * 512 + 512 * 128 + 256 * 128 * 4 ))
# int8 conv2d 56x56, 64 -> 64, 3x3 (examples/conv2d_npu.c): 56*56*64*64*9 MACs;
# input 196 KiB, weights 36 KiB, output 784 KiB (int32)
row examples/conv2d_npu.c conv2d_nu $((56 * 56 * 64 * 64 * 9)) $(( 56 * 56 * 64 + 64 * 64 * 9 + 56 * 56 * 64 * 4 ))
# fused conv 28x28, 128 -> 128, 3x3 + bias + ReLU + requantize (examples/conv2d_fused_npu.c):
# input 98 KiB, weights 144 KiB, bias 512 B, int8 output 98 KiB
row examples/conv2d_fused_npu.c fused $((28 * 28 * 128 * 128 * 9)) $(( 28 * 28 * 128 + 128 * 128 * 9 + 128 * 4 + 28 * 28 * 128 ))
