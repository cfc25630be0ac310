#!/usr/bin/env bash
# Installs what npugen needs on a Debian 12 machine, only when it is missing:
# the apt packages of DESIGN.md section 2 and the pinned tree-sitter-c grammar.
# A second run installs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

TS_C_VERSION=0.23.6   # 0.24+ is ABI 15 and does not load in libtree-sitter 0.20
PKGS="build-essential pkg-config cmake libtree-sitter-dev libtcc-dev tcc libcriterion-dev libinih-dev libisl-dev clang libclang-rt-14-dev valgrind"

missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "deps: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq $missing >/dev/null
fi

dir=third_party/tree-sitter-c
if [ ! -f "$dir/src/parser.c" ] || [ "$(cat "$dir/VERSION" 2>/dev/null)" != "$TS_C_VERSION" ]; then
  echo "deps: fetching tree-sitter-c@$TS_C_VERSION"
  command -v npm >/dev/null || { echo "deps: npm is required to fetch tree-sitter-c" >&2; exit 1; }
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "tree-sitter-c@$TS_C_VERSION" >/dev/null 2>&1)
  (cd "$tmp" && sha256sum -c --quiet "$OLDPWD/scripts/tree-sitter-c.sha256") || {
    echo "deps: sha256 mismatch for tree-sitter-c-$TS_C_VERSION.tgz" >&2; exit 1; }
  rm -rf "$dir" && mkdir -p "$dir"
  tar xzf "$tmp/tree-sitter-c-$TS_C_VERSION.tgz" -C "$dir" --strip-components=1 package/src package/LICENSE
  echo "$TS_C_VERSION" > "$dir/VERSION"
fi
