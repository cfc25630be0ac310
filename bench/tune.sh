#!/bin/bash
# npugen tune's figures (docs/tune.md): every NPU example with its schedule
# removed, tuned and compared with its hand schedule (examples); the kernels
# of bench/tune_kernels/, written with no schedule (plain); and the
# plan/merge flow run by GNU parallel (plan); the fp32 matmuls of
# bench/tune_kernels/host/ tuned for this CPU with --host, against the
# kernel as written compiled the same way (host).
#   bash bench/tune.sh [examples|plain|plan|host] [TIME_LIMIT] [JOBS]
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-examples}
limit=${2:-120}
jobs=${3:-2}
npugen=build/npugen
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The hand schedule's cycles: the fewest of the file's scheduled variants.
hand_cycles() {
  "$npugen" check "$1" | awk '/sim: /{ for (i = 1; i <= NF; i++) if ($i == "sim:") print $(i + 1) }' | sort -n | head -1
}

if [ "$what" = plan ]; then
  command -v parallel >/dev/null || { echo "GNU parallel is not installed (apt-get install parallel)"; exit 1; }
  k=tests/kernels/tune_matmul_small.c
  for round in 1 2 3; do
    "$npugen" tune "$k" --plan "$tmp/p" --trials 16 2>/dev/null
    parallel -j "$jobs" < "$tmp/p/trials.txt"
  done
  "$npugen" tune "$k" --merge "$tmp/p" -o "$tmp/m.sched"
  "$npugen" check "$k" --schedule "$tmp/m.sched"
  exit 0
fi

if [ "$what" = host ]; then
  printf '| kernel | as written: us (GFLOP/s) | tuned: us (GFLOP/s) | speed-up | tuned spread | tuning time | candidates | npugen check | winner |\n'
  printf '|---|---|---|---|---|---|---|---|---|\n'
  for f in bench/tune_kernels/host/*.c; do
    n=$(basename "$f" .c)
    start=$(date +%s.%N)
    "$npugen" tune "$f" --host --time-limit "$limit" -o "$tmp/$n.sched" > "$tmp/$n.out" 2> "$tmp/$n.err" || true
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    "$npugen" check "$f" --schedule "$tmp/$n.sched" > "$tmp/$n.check" 2>&1 && ok=PASS || ok=FAIL
    # "<k> as written: X us per call (median of R, spread S%, G GFLOP/s); tuned: Y us (H GFLOP/s), Zx"
    line=$(grep ' as written: ' "$tmp/$n.out" || echo)
    printf '| %s | %s (%s) | %s (%s) | %s | %s | %.0f s | %s | %s | %s |\n' "$n" \
      "$(echo "$line" | awk '{ print $4 }')" "$(echo "$line" | sed -n 's/.*spread [^,]*, \([0-9.]*\) GFLOP.*/\1/p')" \
      "$(echo "$line" | sed -n 's/.*tuned: \([0-9.]*\) us.*/\1/p')" "$(echo "$line" | sed -n 's/.*us (\([0-9.]*\) GFLOP.*/\1/p')" \
      "$(echo "$line" | awk '{ print $NF }')" "$(awk '$1 == 1 { print $3; exit }' "$tmp/$n.out")" "$secs" \
      "$(sed -n 's/.*best of \([0-9]*\) candidates.*/\1/p' "$tmp/$n.sched")" "$ok" \
      "$(awk '$1 == 1 { $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print; exit }' "$tmp/$n.out")"
  done
  exit 0
fi

if [ "$what" = plain ]; then
  printf '| kernel | tuned cycles | bound by (busy) | roofline | tuning time | candidates (legal) | npugen check |\n'
  printf '|---|---|---|---|---|---|---|\n'
  for f in bench/tune_kernels/*.c; do
    n=$(basename "$f" .c)
    start=$(date +%s.%N)
    "$npugen" tune "$f" --time-limit "$limit" --jobs "$jobs" -o "$tmp/$n.sched" > "$tmp/$n.out" 2> "$tmp/$n.err" || true
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    "$npugen" check "$f" --schedule "$tmp/$n.sched" > "$tmp/$n.check" 2>&1 && ok=PASS || ok=FAIL
    printf '| %s | %s | %s | %s | %.0f s | %s | %s |\n' "$n" "$(awk '$1 == 1 { print $2; exit }' "$tmp/$n.out")" \
      "$(awk '$1 == 1 { print $4, $5; exit }' "$tmp/$n.out")" "$(awk '$1 == 1 { print $3; exit }' "$tmp/$n.out")" \
      "$secs" "$(sed -n 's/.*best of \([0-9]*\) candidates (\([0-9]*\) legal.*/\1 (\2)/p' "$tmp/$n.sched")" "$ok"
  done
  exit 0
fi

printf '| kernel | hand cycles | tuned cycles | tuned / hand | roofline | tuning time | candidates (legal) |\n'
printf '|---|---|---|---|---|---|---|\n'
for f in examples/*_npu.c; do
  n=$(basename "$f" .c)
  grep -v '^#pragma npu' "$f" > "$tmp/$n.c"
  hand=$(hand_cycles "$f")
  start=$(date +%s.%N)
  if "$npugen" tune "$tmp/$n.c" --time-limit "$limit" --jobs "$jobs" -o "$tmp/$n.sched" > "$tmp/$n.out" 2> "$tmp/$n.err"; then
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    tuned=$(awk '$1 == 1 { print $2; exit }' "$tmp/$n.out")
    roof=$(awk '$1 == 1 { print $3; exit }' "$tmp/$n.out")
    cands=$(sed -n 's/.*best of \([0-9]*\) candidates (\([0-9]*\) legal.*/\1 (\2)/p' "$tmp/$n.sched")
    printf '| %s | %s | %s | %.3f | %s | %.0f s | %s |\n' "$n" "$hand" "$tuned" "$(echo "$tuned / $hand" | bc -l)" \
      "$roof" "$secs" "$cands"
  else
    printf '| %s | %s | - | - | - | - | %s |\n' "$n" "$hand" "$(grep -m1 error "$tmp/$n.err" | sed 's/.*error: //')"
  fi
done
