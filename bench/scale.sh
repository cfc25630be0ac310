#!/bin/bash
# Scaling of the frontend and the session in the size of a kernel file:
# generates each file (bench/scale.sh gen KIND N > file) and times
# `npugen emit FILE` at N and at N / 4 (and, for variants, `emit -o DIR`
# and `npugen check`); a ratio near 4 is linear, near 16 quadratic. CPU
# times (user + system) of one run each.
#   bash bench/scale.sh [NPUGEN]         # the table
#   bash bench/scale.sh gen KIND N       # one file on stdout
# KINDs: variants (trivial variants of one kernel, one split each),
# stmts (straight-line statements), locals (a local and a statement each),
# labels (labeled statements), kernels (one-statement kernels).
set -e

gen() {
  case $1 in
  variants) awk -v n="$2" 'BEGIN {
      print "void k(const float A[64], float B[64]) {\n  for (int i = 0; i < 64; i++) B[i] = A[i] + 1.0f;\n}";
      for (v = 0; v < n; v++) printf "#pragma npu schedule(k, v%d)\n#pragma npu split(i, 4, io, ii)\n", v }' ;;
  stmts) awk -v n="$2" 'BEGIN {
      print "void k(const float A[1024], float B[1024]) {";
      for (s = 0; s < n; s++) printf "  B[%d] = A[%d] + %d.0f;\n", s % 1024, (s * 7) % 1024, s % 100;
      print "}" }' ;;
  locals) awk -v n="$2" 'BEGIN {
      print "void k(const float A[1024], float B[1024]) {";
      for (s = 0; s < n; s++) printf "  float t%d = A[%d] * 2.0f;\n  B[%d] = t%d;\n", s, s % 1024, s % 1024, s;
      print "}" }' ;;
  labels) awk -v n="$2" 'BEGIN {
      print "void k(const float A[1024], float B[1024]) {";
      for (s = 0; s < n; s++) printf "  L%d: B[%d] = A[%d];\n", s, s % 1024, (s * 3) % 1024;
      print "}" }' ;;
  kernels) awk -v n="$2" 'BEGIN {
      for (s = 0; s < n; s++) printf "void k%d(const float A[4], float B[4]) {\n  B[%d] = A[0];\n}\n", s, s % 4 }' ;;
  *) echo "unknown kind $1" >&2; exit 2 ;;
  esac
}

if [ "$1" = gen ]; then gen "$2" "$3"; exit 0; fi

NPUGEN=${1:-build/npugen}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# secs CMD...: CPU seconds (user + system) of one run, its exit status
# aside: on a machine shared with other work, wall time says little.
secs() {
  /usr/bin/time -f '%U %S' -o "$dir/time" "$@" >/dev/null 2>&1 || true
  awk '{ printf "%.2f", $1 + $2 }' "$dir/time"
}

ratio() { echo "$1 $2" | awk '{ printf "%.1f", $2 / ($1 > 0 ? $1 : 0.01) }'; }

# emit to stdout: the generator alone; -o DIR adds the file system's time
printf '%-36s %9s %9s %7s\n' "npugen emit FILE (stdout) of" "N/4" "N" "ratio"
for row in "variants 10000" "stmts 100000" "locals 50000" "labels 50000" "kernels 10000"; do
  set -- $row
  gen "$1" $(($2 / 4)) > "$dir/small.c"
  gen "$1" "$2" > "$dir/big.c"
  t1=$(secs "$NPUGEN" emit "$dir/small.c")
  t2=$(secs "$NPUGEN" emit "$dir/big.c")
  printf '%-36s %8ss %8ss %7s\n' "$2 $1 ($(($2 / 4)) / $2)" "$t1" "$t2" "$(ratio "$t1" "$t2")"
done
gen variants 2500 > "$dir/small.c"
gen variants 10000 > "$dir/big.c"
t1=$(secs "$NPUGEN" emit "$dir/small.c" -o "$dir/o1")
t2=$(secs "$NPUGEN" emit "$dir/big.c" -o "$dir/o2")
printf '%-36s %8ss %8ss %7s\n' "emit -o DIR of 10000 variants" "$t1" "$t2" "$(ratio "$t1" "$t2")"
t1=$(secs "$NPUGEN" check "$dir/small.c")
t2=$(secs "$NPUGEN" check "$dir/big.c")
printf '%-36s %8ss %8ss %7s\n' "check of 10000 variants" "$t1" "$t2" "$(ratio "$t1" "$t2")"
