#!/usr/bin/env bash
# pipeline.sh <Inputs dir> <clang> <clang++> <Halide include dir> <out dir>
#
# The part every Halide test shares, into <out dir>:
#   blur_generator    the generator (links libHalide14)
#   blur.bc blur.ll   the pipeline halide_blur, bitcode without the Halide
#                     runtime, and its LLVM 19 text (llvm-dis)
#   halide_runtime.o  the Halide runtime (compile_standalone_runtime)
#   driver.o          the driver, plain clang
#   plain.o plain     the pipeline through clang -O2 without ScopeAlloc
#   plain.out         its output (checksum, threads, halide_malloc calls)
#   plain.checksum    the checksum lines every lowering must reproduce
set -euo pipefail
inputs=$1 clang=$2 clangxx=$3 halide_inc=$4 out=$5
rm -rf "$out"
mkdir -p "$out"
"$clangxx" -std=c++17 -I"$halide_inc" "$inputs/blur_generator.cpp" \
  -o "$out/blur_generator" -lHalide14
"$out/blur_generator" "$out/blur.bc" "$out/halide_runtime.o"
"$(dirname "$clang")/llvm-dis" "$out/blur.bc" -o "$out/blur.ll"
"$clang" -O2 -Wall -I"$halide_inc" -c "$inputs/driver.c" -o "$out/driver.o"
# Halide's modules say x86_64--linux-gnu; clang's x86_64-pc-linux-gnu is the same target.
"$clang" -O2 -Wno-override-module -c "$out/blur.bc" -o "$out/plain.o"
"$clang" "$out/driver.o" "$out/plain.o" "$out/halide_runtime.o" \
  -o "$out/plain" -lpthread -ldl -lm
"$out/plain" > "$out/plain.out"
grep -v '^halide_malloc:' "$out/plain.out" > "$out/plain.checksum"
