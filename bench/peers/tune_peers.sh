#!/bin/bash
# Tunes the schedules `make bench-peers` times (bench/peers/*.tuned*.sched),
# with `npugen tune --host` on this machine: each kernel once on one
# thread (OMP_NUM_THREADS=1: the one-thread column) and once on two
# (OMP_NUM_THREADS=2: the two-thread column, where the search may take
# `parallel`). The files are committed with the command in their first
# line; run.sh times them, and `bash bench/peers/run.sh` with TUNE=1 runs
# this first. Trials, not seconds, so a loaded machine runs the same
# search (its times, and so its choice, can still differ).
#   bash bench/peers/tune_peers.sh [TRIALS_ONE] [TRIALS_TWO]
set -euo pipefail
cd "$(dirname "$0")/../.."
npugen=${NPUGEN:-build/npugen}
one=${1:-16} two=${2:-24}
for k in matmul_f32 matmul_f32_1000 conv3x3_f32; do
  OMP_NUM_THREADS=1 nice "$npugen" tune bench/peers/$k.c --host --seed 1 --trials "$one" --jobs 1 \
    -o bench/peers/$k.tuned1.sched >&2
  OMP_NUM_THREADS=2 nice "$npugen" tune bench/peers/$k.c --host --seed 1 --trials "$two" --jobs 1 \
    -o bench/peers/$k.tuned2.sched >&2
done
