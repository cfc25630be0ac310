#!/usr/bin/env bash
# Simulated cycles against the roofline bound of the default target (or of
# the target a row names):
#   bound = max(MACs / peak MACs per cycle, DDR bytes / DDR bytes per cycle)
# The peak is the NU's 1024 int8 MACs per cycle, or for a kernel on the VU
# cores 4 cores x 16 int32 lanes (64 B vectors) = 64 MACs per cycle.
# DDR bytes are the least any schedule moves: each input read once, each
# output written once. Cycles come from `npugen check` in this run.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
printf '%-24s %-14s %14s %14s %10s %8s\n' example variant cycles bound "of bound" "NU busy"
row() { # file variant macs ddr_bytes [peak MACs per cycle] [target file, its DDR bytes per cycle]
  local out cyc util bound peak=${5:-1024} ddr=${7:-64}
  out=$($B/npugen check "$1" ${6:+--target "$6"})
  cyc=$(awk -v v="$2" '$1 == v && $2 == "PASS" { getline; print $2 }' <<<"$out")
  util=$(awk -v v="$2" '$1 == v && $2 == "PASS" { getline; print $6 }' <<<"$out" | tr -d ,)
  [ -n "$cyc" ] || { echo "$1: $2 did not pass:"; echo "$out"; exit 1; }
  bound=$(( $3 / peak > $4 / ddr ? $3 / peak : $4 / ddr ))
  awk -v f="$1" -v v="$2" -v c="$cyc" -v b="$bound" -v u="$util" \
    'BEGIN { printf "%-24s %-14s %14d %14d %9.1f%% %8s\n", f, v, c, b, 100 * b / c, u }'
}
# int8 matmul 1024^3: 2^30 MACs; A and B 1 MiB each, C 4 MiB (int32)
row examples/matmul_npu.c matmul_nu $((1 << 30)) $(( (1 << 20) * 2 + (4 << 20) ))
# int8 matmul m x 512 x 512 with m symbolic (examples/matmul_sized_npu.c);
# the figure is that of its last size set, m = 1024
row examples/matmul_sized_npu.c matmul_nu $((1024 * 512 * 512)) $(( 1024 * 512 + 512 * 512 + 1024 * 512 * 4 ))
# int8 matmul 256x128x512 (examples/matmul.c): A 128 KiB, B 64 KiB, C 128 KiB
row examples/matmul.c matmul_nu $((256 * 128 * 512)) $(( 256 * 512 + 512 * 128 + 256 * 128 * 4 ))
# int8 conv2d 56x56, 64 -> 64, 3x3 (examples/conv2d_npu.c): 56*56*64*64*9 MACs;
# input 196 KiB, weights 36 KiB, output 784 KiB (int32)
row examples/conv2d_npu.c conv2d_nu $((56 * 56 * 64 * 64 * 9)) $(( 56 * 56 * 64 + 64 * 64 * 9 + 56 * 56 * 64 * 4 ))
# fused conv 28x28, 128 -> 128, 3x3 + bias + ReLU + requantize (examples/conv2d_fused_npu.c):
# input 98 KiB, weights 144 KiB, bias 512 B, int8 output 98 KiB
row examples/conv2d_fused_npu.c fused $((28 * 28 * 128 * 128 * 9)) $(( 28 * 28 * 128 + 128 * 128 * 9 + 128 * 4 + 28 * 28 * 128 ))
# depthwise 3x3 on the VU cores (examples/dwconv_npu.c): 64*56*56*9 MACs at
# 64 per cycle; padded input 64x58x58, weights 576 B, output 784 KiB (int32)
row examples/dwconv_npu.c dw_vu $((64 * 56 * 56 * 9)) $(( 64 * 58 * 58 + 64 * 9 + 64 * 56 * 56 * 4 )) 64
# Row-wise fp32 kernels on the VU cores: the work is vector element-ops
# (each stage one pass over the 256x256 rows at 64 f32 lanes a cycle over
# four cores); both kernels are bound by DDR.
# softmax (examples/softmax_npu.c): max, shift, exp, sum, divide; X and Y 256 KiB each
row examples/softmax_npu.c softmax_vu $((5 * 256 * 256)) $(( 2 * 256 * 256 * 4 )) 64
# layernorm (examples/layernorm_npu.c): sum, centre, sum of squares, scale, scale and
# shift; X and Y 256 KiB each, gamma and beta 1 KiB each
row examples/layernorm_npu.c layernorm_vu $((5 * 256 * 256)) $(( 2 * 256 * 256 * 4 + 2 * 256 * 4 )) 64
# softmax for targets/small.ini (its own schedule in the same file): two
# cores (32 MACs per cycle) and half the DDR bandwidth (32 B per cycle)
row examples/softmax_npu.c softmax_vu_small $((5 * 256 * 256)) $(( 2 * 256 * 256 * 4 )) 32 targets/small.ini 32
# int8 matmul 1000^3 (examples/matmul_tail_npu.c): tiles 128 x 125, the last
# row tile 104 rows; A and B 1,000,000 bytes each, C 4,000,000
row examples/matmul_tail_npu.c matmul_tail_guarded $((1000 * 1000 * 1000)) $(( 2 * 1000 * 1000 + 4 * 1000 * 1000 ))
# int8 GEMV 1024 x 1024 on the NU (examples/gemv_npu.c, x cached at the root):
# A 1 MiB, x 1 KiB, y 4 KiB (int32)
row examples/gemv_npu.c gemv_nu $((1024 * 1024)) $(( 1024 * 1024 + 1024 + 1024 * 4 ))
# fp32 2x2 max and average pooling of 64 x 56 x 56 on the VU cores
# (examples/pool_npu.c): one element-op per input element at 64 a cycle;
# input 784 KiB, output 196 KiB
row examples/pool_npu.c maxpool_vu $((64 * 56 * 56)) $(( 64 * 56 * 56 * 4 + 64 * 28 * 28 * 4 )) 64
row examples/pool_npu.c avgpool_vu $((64 * 56 * 56)) $(( 64 * 56 * 56 * 4 + 64 * 28 * 28 * 4 )) 64
# fp32 masked select and ReLU with threshold over 256 Ki elements on the VU
# cores (examples/select_npu.c): one select per element at 64 a cycle;
# m, x and y (x and y) 1 MiB each
row examples/select_npu.c masked_select_vu $((262144)) $(( 3 * 262144 * 4 )) 64
row examples/select_npu.c relu_threshold_vu $((262144)) $(( 2 * 262144 * 4 )) 64
# int8 ResNet basic block at 56x56x64 (examples/resnet_block_npu.c): two
# 3x3 convs (56*56*64*64*9 MACs each) and the residual add on the VU, as
# a program of three calls; the least DDR traffic is x, both weights and
# biases, and y: 200,704 + 2 * 36,864 + 2 * 256 + 200,704 bytes
row examples/resnet_block_npu.c block_chip $((2 * 56 * 56 * 64 * 64 * 9)) $(( 2 * 200704 + 2 * 36864 + 2 * 256 ))
row examples/resnet_block_npu.c block_ddr $((2 * 56 * 56 * 64 * 64 * 9)) $(( 2 * 200704 + 2 * 36864 + 2 * 256 ))
