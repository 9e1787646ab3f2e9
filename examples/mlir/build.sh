#!/usr/bin/env bash
# The MLIR route end to end: memref kernel -> LLVM dialect -> LLVM IR with
# !scope -> ScopeAlloc at -O2 -> run, next to the plain build of the same IR.
#
#   bash examples/mlir/build.sh <prefix> [<out-dir>]
#
# <prefix> is a ScopeAlloc install (cmake --install ... --prefix <prefix>)
# built with MLIR; mlir-opt-22 comes from Debian's mlir-22-tools (LLVM_BIN=<dir>
# for another LLVM 22 bin directory).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix=$(cd "${1:?usage: build.sh <prefix> [<out-dir>]}" && pwd)
out=${2:-$PWD/mlir-example}
mkdir -p "$out"
llvm_bin=${LLVM_BIN:-/usr/lib/llvm-22/bin} # mlir-opt and clang of LLVM 22
run() { echo "+ $*"; "$@"; }

# 1. memref -> LLVM dialect. scopealloc-memref-scopes (loaded from the plugin)
#    lowers the scoped memref.alloca itself, keeping scopealloc.scope on the
#    llvm.alloca; scopealloc-loop-alloca-scopes frees loop-body allocas every
#    iteration (none here); the rest is the usual upstream pipeline.
run "$llvm_bin/mlir-opt" "$here/blur.mlir" \
  --load-pass-plugin="$prefix/lib/ScopeAllocMLIRPlugin.so" \
  --pass-pipeline='builtin.module(scopealloc-loop-alloca-scopes,scopealloc-memref-scopes,expand-strided-metadata,lower-affine,convert-scf-to-cf,finalize-memref-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)' \
  -o "$out/blur.llvm.mlir"
# 2. LLVM dialect -> LLVM IR: scopealloc.scope becomes !scope.
run "$prefix/bin/scopealloc-mlir-translate" --mlir-to-llvmir "$out/blur.llvm.mlir" -o "$out/blur.ll"
grep -E 'alloca .*!scope|^![0-9]+ = !\{!"global' "$out/blur.ll"
# 3. The ScopeAlloc pass at -O2 through the wrapper (plugin and runtime), with
#    its decisions as remarks; the plain build of the same IR for comparison.
run "$prefix/bin/scopealloc-clang" -O2 -Wno-override-module -c "$out/blur.ll" -o "$out/blur.o" -Rpass=scope-alloc
run "$prefix/bin/scopealloc-clang" -O2 -DWITH_SCOPEALLOC "$here/main.c" "$out/blur.o" -o "$out/blur"
run "$llvm_bin/clang" -O2 -Wno-override-module "$here/main.c" "$out/blur.ll" -o "$out/blur-plain"
# 4. Run both.
run "$out/blur-plain"
run "$out/blur"
