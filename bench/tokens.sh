#!/usr/bin/env bash
# Simulated cycles of the examples planned for targets with fewer DMAs in
# flight (targets/default.ini with another [dma] max_tokens): the emitter
# drops the overlap that does not fit (docs/npu-model.md, "DMAs in
# flight"), so every count runs, slower. Cycles come from `npugen check`
# in this run.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
counts=(1 2 4 8 12 16 24 64)
printf '%-20s %-12s' example variant
for k in "${counts[@]}"; do printf ' %10s' "$k tok"; done
echo
for ex in softmax_npu:softmax_vu dwconv_npu:dw_vu layernorm_npu:layernorm_vu matmul_npu:matmul_nu; do
  f=examples/${ex%%:*}.c v=${ex##*:}
  printf '%-20s %-12s' "${ex%%:*}" "$v"
  for k in "${counts[@]}"; do
    sed "s/^max_tokens *=.*/max_tokens = $k/" targets/default.ini > "$dir/t.ini"
    out=$($B/npugen check "$f" --target "$dir/t.ini")
    cyc=$(awk -v v="$v" '$1 == v && $2 == "PASS" { getline; print $2 }' <<<"$out")
    [ -n "$cyc" ] || { echo; echo "$f with $k tokens: $v did not pass:"; echo "$out"; exit 1; }
    printf ' %10s' "$cyc"
  done
  echo
done
