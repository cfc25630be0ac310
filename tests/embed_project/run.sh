#!/bin/bash
# Builds tests/embed_project against the npugen installed in PREFIX, in
# WORK: configure, build, run (ctest: the program and npugen check); a
# second build builds nothing, and a touched schedule file compiles
# nothing; then a schedule file is edited and the build emits that kernel
# file again (and only it, and compiles only the variant that changed),
# and a variant added to a schedule file is built too.
# clash/: two kernel files that emit the same names into one target must
# fail to configure, naming both (a configure only, no build).
#   bash tests/embed_project/run.sh PREFIX WORK
set -euo pipefail
prefix=$1 work=$2
src=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
cp -r "$src" "$work/src" # the test edits its schedule files
cmake -S "$work/src" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log"
cmake --build "$work/build" >"$work/build1.log"
for f in pool.c mm.c rows.c; do grep -q "npugen emit $f" "$work/build1.log"; done
[ "$(grep -c "npugen emit .*mm.c" "$work/build1.log")" = 2 ] # mm.c and more/mm.c, each its own rule
nm "$work/build/libkernels.a" | grep -q " T mm_scale$"
# the emitted comments name the kernel file as the project does, not by a path of this machine
head -2 "$work/build/npugen_kernels/mm_tiled.c" | grep -q "^ \* Kernel: mm_tiled (mm.c:7)$"
head -1 "$work/build/npugen_kernels/mm_scale.c" | grep -q " from more/mm.c\. Do not edit\.$"
if grep -rq "$work" "$work/build/npugen_kernels"; then echo "embed_project: a build path in the emitted files" >&2; exit 1; fi
(cd "$work/build" && ctest --output-on-failure >"$work/ctest1.log")
"$work/build/app"

# a build with nothing changed builds nothing; a schedule file touched but
# not changed emits again (make sees a newer input) but compiles nothing:
# npugen keeps an unchanged file's time, and the emitted files are
# byproducts, which CMake's Makefile generator does not touch as it does
# every OUTPUT
cmake --build "$work/build" >"$work/build-again.log"
if grep -E "npugen emit|Building|Linking" "$work/build-again.log"; then
  echo "embed_project: a build with nothing changed built the lines above" >&2
  exit 1
fi
sleep 1 # a newer time than the stamp's on a file system of 1 s times
touch "$work/src/mm.sched"
cmake --build "$work/build" >"$work/build-touched.log"
grep -q "npugen emit mm.c" "$work/build-touched.log"
if grep -E "Building|Linking" "$work/build-touched.log"; then
  echo "embed_project: emitting unchanged files again rebuilt the lines above" >&2
  exit 1
fi

# an edited schedule file: its kernel file is emitted again, the others not
sed -i 's/tile(i, j, 4, 4,/tile(i, j, 2, 4,/' "$work/src/mm.sched"
cmake --build "$work/build" >"$work/build2.log"
grep -q "npugen emit mm.c" "$work/build2.log"
if grep -q "npugen emit pool.c" "$work/build2.log"; then echo "embed_project: pool.c emitted again" >&2; exit 1; fi
grep -q "tile(i, j, 2, 4, io, jo, ii, ji)" "$work/build/npugen_kernels/mm_tiled.c"
# only the variant whose text changed is compiled again: mm as written is not
grep -q "Building C object CMakeFiles/kernels.dir/npugen_kernels/mm_tiled.c.o" "$work/build2.log"
if grep -q "npugen_kernels/mm.c.o" "$work/build2.log"; then echo "embed_project: mm.c compiled again" >&2; exit 1; fi
"$work/build/app"

# a new variant: CMake configures again (the outputs come from the pragmas)
printf '#pragma npu schedule(mm, mm_split)\n#pragma npu split(i, 2, io, ii)\n' >>"$work/src/mm.sched"
cmake --build "$work/build" >"$work/build3.log"
grep -q "mm_split.c" "$work/build3.log"
nm "$work/build/libkernels.a" >"$work/nm.txt"
grep -q " T mm_split$" "$work/nm.txt"
(cd "$work/build" && ctest --output-on-failure >"$work/ctest2.log")
# two kernel files emitting the same names: configure fails and says so
if cmake -S "$work/src/clash" -B "$work/clash" -DCMAKE_PREFIX_PATH="$prefix" >"$work/clash.log" 2>&1; then
  echo "embed_project: clash/ configured although mm.c and more/mm.c emit the same names" >&2
  exit 1
fi
clash=$(tr -s ' \n' '  ' <"$work/clash.log") # CMake wraps its messages
grep -q "npugen_add_kernels(k3): mm.c and more/mm.c both emit mm_one.c, mm_one.h, mm_one_s.c, mm_one_s.h into" <<<"$clash"
echo "embed_project: built, ran, re-emitted after a schedule edit, picked up a new variant, refused clashing names"
