#!/usr/bin/env bash
# Simulated cycles against each kernel's own bound on the default target (or
# on the target a row names), both from `npugen check` in this run. The
# bound is the check's (jit/kernel_bound.c, docs/check.md): the larger of
# the kernel's arithmetic at the peak of the fastest unit that can do it
# (int8 or fp32 MACs on the NU, 1024 int8 MACs a cycle on the default
# target; any other operation on the VU cores) and its least DDR traffic
# (each element read read once, each written written once); a program as
# one kernel. One bound for every variant of a kernel.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
printf '%-24s %-20s %12s %12s %-4s %9s %8s\n' example variant cycles bound of "of bound" "NU busy"
row() { # file variant [target file]
  local out line
  out=$($B/npugen check "$1" ${3:+--target "$3"})
  line=$(awk -v v="$2" '$1 == v && $2 == "PASS" { getline; print; exit }' <<<"$out")
  [ -n "$line" ] || { echo "$1: $2 did not pass:"; echo "$out"; exit 1; }
  awk -v f="$1" -v v="$2" -v nu="$(grep -o 'bound by nu (busy [0-9.]*%' <<<"$line" | head -1 | grep -o '[0-9.]*%' || echo -)" '
    { match($0, /sim: [0-9]+ cycles/); c = substr($0, RSTART + 5, RLENGTH - 12) + 0
      match($0, /the kernel.s bound: [0-9]+ cycles, [^)]*/); b = substr($0, RSTART, RLENGTH)
      split(b, w, " "); bound = w[4] + 0
      what = b ~ /MACs/ ? "nu" : "ddr"
      printf "%-24s %-20s %12d %12d %-4s %8.1f%% %8s\n", f, v, c, bound, what, 100 * bound / c, nu }' <<<"$line"
}
# int8 matmul 1024^3: 2^30 MACs; A and B 1 MiB each, C 4 MiB (int32)
row examples/matmul_npu.c matmul_nu
# int8 matmul m x 512 x 512 with m symbolic (examples/matmul_sized_npu.c);
# the figure is that of its last size set, m = 1024
row examples/matmul_sized_npu.c matmul_nu
# int8 matmul 256x128x512 (examples/matmul.c): A 128 KiB, B 64 KiB, C 128 KiB
row examples/matmul.c matmul_nu
# int8 conv2d 56x56, 64 -> 64, 3x3 (examples/conv2d_npu.c): 56*56*64*64*9 MACs;
# input 196 KiB, weights 36 KiB, output 784 KiB (int32)
row examples/conv2d_npu.c conv2d_nu
# fused conv 28x28, 128 -> 128, 3x3 + bias + ReLU + requantize (examples/conv2d_fused_npu.c):
# input 98 KiB, weights 144 KiB, bias 512 B, int8 output 98 KiB
row examples/conv2d_fused_npu.c fused
# depthwise 3x3 on the VU cores (examples/dwconv_npu.c): its int8 MACs
# would take 28,224 cycles on the VU cores (64 a cycle), but the NU could
# do them (one GEMV per channel, with its window gathered), so the bound is
# its DDR traffic: padded input 64x58x58, weights 576 B, output 784 KiB
row examples/dwconv_npu.c dw_vu
# Row-wise fp32 kernels on the VU cores: the work is vector element-ops
# (each stage one pass over the 256x256 rows at 64 f32 lanes a cycle over
# four cores); both kernels are bound by DDR.
# softmax (examples/softmax_npu.c): max, shift, exp, sum, divide; X and Y 256 KiB each
row examples/softmax_npu.c softmax_vu
# layernorm (examples/layernorm_npu.c): sum, centre, sum of squares, scale, scale and
# shift; X and Y 256 KiB each, gamma and beta 1 KiB each
row examples/layernorm_npu.c layernorm_vu
# softmax for targets/small.ini (its own schedule in the same file): two
# cores (32 MACs per cycle) and half the DDR bandwidth (32 B per cycle)
row examples/softmax_npu.c softmax_vu_small targets/small.ini
# int8 matmul 1000^3 (examples/matmul_tail_npu.c): tiles 128 x 125, the last
# row tile 104 rows; A and B 1,000,000 bytes each, C 4,000,000
row examples/matmul_tail_npu.c matmul_tail_guarded
# int8 GEMV 1024 x 1024 on the NU (examples/gemv_npu.c, x cached at the root):
# A 1 MiB, x 1 KiB, y 4 KiB (int32)
row examples/gemv_npu.c gemv_nu
# fp32 2x2 max and average pooling of 64 x 56 x 56 on the VU cores
# (examples/pool_npu.c): one element-op per input element at 64 a cycle;
# input 784 KiB, output 196 KiB
row examples/pool_npu.c maxpool_vu
row examples/pool_npu.c avgpool_vu
# fp32 masked select and ReLU with threshold over 256 Ki elements on the VU
# cores (examples/select_npu.c): one select per element at 64 a cycle;
# m, x and y (x and y) 1 MiB each
row examples/select_npu.c masked_select_vu
row examples/select_npu.c relu_threshold_vu
# int8 ResNet basic block at 56x56x64 (examples/resnet_block_npu.c): two
# 3x3 convs (56*56*64*64*9 MACs each) and the residual add on the VU, as
# a program of three calls, bounded as one kernel: its MACs
row examples/resnet_block_npu.c block_chip
row examples/resnet_block_npu.c block_ddr
