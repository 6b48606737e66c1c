#!/bin/sh
# build-llama.sh - llama.cpp's llama-imatrix, llama-quantize and
# llama-tokenize, built from source for make check-llama, into build/llama
# (never into git): the source is the git bundle that npm node-llama-cpp
# 3.21.1 ships (llama/gitRelease.bundle, llama.cpp commit 80fb11a), fetched
# with npm pack; a CPU build with cmake (-DLLAMA_CURL=OFF, static, no
# server or tests). Its gguf-py (build/llama/src/gguf-py) writes the test
# model. A no-op when the binaries of this recipe are there. Takes several
# minutes on 2 cores. Needs: npm, git, cmake, a C++17 compiler.
set -eu
cd "$(dirname "$0")/.."
D=build/llama
PKG=node-llama-cpp@3.21.1
COMMIT=80fb11a
TARGETS="llama-imatrix llama-quantize llama-tokenize"
die() { echo "build-llama: $*" >&2; exit 1; }
stamp="$PKG $COMMIT $TARGETS $(sha256sum <"$0" | cut -c1-16)"
if [ -f "$D/.stamp" ] && [ "$(cat "$D/.stamp")" = "$stamp" ]; then
  echo "build-llama: up to date in $D" >&2; exit 0
fi
for t in npm git cmake c++ tar; do command -v "$t" >/dev/null 2>&1 || die "missing tool '$t' (apt-get install npm git cmake g++)"; done
mkdir -p "$D"
if [ ! -f "$D/src/CMakeLists.txt" ]; then
  rm -rf "$D/pkg" "$D/src" && mkdir -p "$D/pkg"
  (cd "$D/pkg" && npm pack --silent "$PKG" >/dev/null 2>&1) || die "npm pack $PKG failed (registry unreachable?)"
  tar -xzf "$D"/pkg/node-llama-cpp-*.tgz -C "$D/pkg" package/llama/gitRelease.bundle || die "no git bundle in $PKG"
  git clone -q "$D/pkg/package/llama/gitRelease.bundle" "$D/src" 2>/dev/null || die "cannot clone the bundle"
  rm -rf "$D/pkg"
fi
got=$(git -C "$D/src" rev-parse --short=7 HEAD)
[ "$got" = "$COMMIT" ] || die "the bundle of $PKG is llama.cpp $got, not $COMMIT"
echo "build-llama: building llama.cpp $COMMIT ($TARGETS) in $D/cmake; this takes minutes" >&2
cmake -S "$D/src" -B "$D/cmake" -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DGGML_NATIVE=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_SERVER=OFF -DGGML_OPENMP=OFF -DBUILD_SHARED_LIBS=OFF >"$D/cmake.log" 2>&1 ||
  die "cmake configure failed: $(tail -3 "$D/cmake.log")"
# shellcheck disable=SC2086
cmake --build "$D/cmake" -j"$(nproc 2>/dev/null || echo 2)" --target $TARGETS >>"$D/cmake.log" 2>&1 ||
  die "cmake build failed: $(tail -3 "$D/cmake.log")"
echo "$stamp" >"$D/.stamp"
