#!/usr/bin/env bash
# The runtime built by GCC (issue 25): configures the project with
# CMAKE_C_COMPILER=gcc and builds only the runtimes, which then have no
# __scopealloc_frame_slow (GCC cannot define preserve_most) and a getcontext
# interposer in assembly (GCC has no musttail). Code compiled with
# -scope-alloc-slow-path=standard runs against them (static and shared;
# -O0, -O2, full and thin LTO; first frames, new peaks, growth, exhaustion, threads; ucontext
# fibers through the interposer); code compiled with preserve-most fails to
# link, explained by the wrapper; asking for preserve-most with GCC is a
# configuration error; clang 16, when installed, gets GCC's treatment.
#   gcc_built_runtime.sh <source dir> <work dir> <installed prefix> <LLVM_DIR>
set -euo pipefail
src=$1 work=$2 prefix=$3 llvm_dir=$4
command -v gcc > /dev/null || { echo "SKIP: no gcc"; exit 77; }
scc=$prefix/bin/scopealloc-clang
llvm_bin=$(cd "$llvm_dir/../../../bin" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$work" && mkdir -p "$work" && cd "$work"
cmake -S "$src" -B build -G Ninja -DCMAKE_C_COMPILER=gcc \
  -DCMAKE_CXX_COMPILER="$llvm_bin/clang++" -DLLVM_DIR="$llvm_dir" \
  -DBUILD_TESTING=OFF -DSCOPEALLOC_ENABLE_MLIR=OFF -DCMAKE_BUILD_TYPE=Release \
  > configure.log 2>&1 || { cat configure.log; fail "configure with gcc"; }
grep -q '^SCOPEALLOC_SLOW_PATH:STRING=standard$' build/CMakeCache.txt ||
  fail "a GCC-built runtime's plugin default is not standard"
ninja -C build scopealloc_rt scopealloc_rt_shared > build.log 2>&1 ||
  { cat build.log; fail "build the runtimes with gcc"; }
static=build/runtime/libscopealloc_rt.a
shared_dir=$PWD/build/runtime
readelf -p .comment "$static" > static.comment 2>&1 || true
grep -q 'GCC: ' static.comment || fail "the archive was not compiled by GCC"
# (grep reads files: grep -q closing a pipe would fail nm under pipefail)
nm "$static" > static.nm
nm -D --defined-only "$shared_dir/libscopealloc_rt.so" > shared.nm
grep -q ' T __scopealloc_alloc$' static.nm || fail "no __scopealloc_alloc"
if grep -q ' T __scopealloc_frame_slow$' static.nm shared.nm; then
  fail "a GCC-built runtime defines __scopealloc_frame_slow"
fi
grep -q ' T getcontext$' shared.nm ||
  fail "the shared runtime does not interpose getcontext"

prog=$src/test/runtime/gcc_built_runtime.c
"$llvm_bin/clang" -O2 -pthread "$prog" -I"$src/runtime/include" "$static" -o ref
./ref > ref.out 2> /dev/null
std=(-mllvm -scope-alloc-max-stack-alloca=0 -mllvm -scope-alloc-slow-path=standard)
for opt in -O0 -O2; do
  SCOPEALLOC_RUNTIME=none "$scc" $opt "${std[@]}" -c "$prog" -o std$opt.o
  nm std$opt.o > std$opt.nm
  grep -q ' U __scopealloc_alloc$' std$opt.nm || fail "std$opt.o: nothing demoted"
  grep -q ' U __scopealloc_tls_pool$' std$opt.nm || fail "std$opt.o: no inline fast path"
  if grep -q __scopealloc_frame_slow std$opt.nm; then
    fail "std$opt.o calls __scopealloc_frame_slow"
  fi
  SCOPEALLOC_RUNTIME=none "$scc" std$opt.o "$static" -pthread -o static$opt
  SCOPEALLOC_RUNTIME=none "$scc" std$opt.o -L"$shared_dir" -lscopealloc_rt \
    -Wl,-rpath,"$shared_dir" -pthread -o shared$opt
  for exe in static$opt shared$opt; do
    ./$exe > $exe.out 2> $exe.err || fail "$exe exited $?: $(cat $exe.err)"
    diff ref.out $exe.out || fail "$exe: output differs from the plain build"
    [ "$(grep -c 'peak over 2 MiB 1$' $exe.err)" = 4 ] ||
      fail "$exe: a thread's pool peak is not over 2 MiB: $(cat $exe.err)"
    SCOPEALLOC_RESERVE=1M "$llvm_bin/not" --crash ./$exe exhaust 2> $exe.exhaust ||
      fail "$exe exhaust: no abort"
    grep -q "scopealloc: pool 'workspace' exhausted: requested 4194304 bytes" $exe.exhaust ||
      fail "$exe exhaust: $(cat $exe.exhaust)"
  done
done

# Under LTO the link (lld, which cannot take the option) follows what each
# compile step recorded: full and thin LTO against the GCC-built runtime.
for lto in -flto -flto=thin; do
  SCOPEALLOC_RUNTIME=none "$scc" -O2 $lto "${std[@]}" -c "$prog" -o lto.o
  SCOPEALLOC_RUNTIME=none "$scc" -O2 $lto lto.o "$static" -pthread -o lto ||
    fail "$lto: no link against the GCC-built runtime"
  ./lto > lto.out 2> lto.err || fail "lto ($lto) exited $?: $(cat lto.err)"
  diff ref.out lto.out || fail "$lto: output differs from the plain build"
done

# ucontext fibers in the shared runtime: each context on its own arena
# through the interposers (getcontext: the jump in assembly).
fibers=$src/test/e2e/ucontext-interposed.c
SCOPEALLOC_RUNTIME=none "$scc" -O2 "${std[@]}" "$fibers" -L"$shared_dir" \
  -lscopealloc_rt -Wl,-rpath,"$shared_dir" -pthread -o fibers
./fibers > fibers.out 2>&1 || fail "fibers: $(cat fibers.out)"
"$llvm_bin/FileCheck" "$fibers" < fibers.out

# preserve_most code against this runtime: no link, and the wrapper says why.
if SCOPEALLOC_RUNTIME=none "$scc" -O2 -mllvm -scope-alloc-max-stack-alloca=0 \
  -mllvm -scope-alloc-slow-path=preserve-most "$prog" "$static" -pthread \
  -o pm 2> pm.err; then
  fail "preserve-most code linked against a runtime without __scopealloc_frame_slow"
fi
grep -Eq "undefined (symbol: |reference to .)__scopealloc_frame_slow" pm.err || fail "pm: $(cat pm.err)"
grep -q "note: undefined __scopealloc_frame_slow: the runtime linked was built by a compiler that cannot define the preserve_most slow path" pm.err ||
  fail "pm: not explained: $(cat pm.err)"
# Asking GCC's configuration for preserve-most is an error.
if cmake -S "$src" -B pm-build -G Ninja -DCMAKE_C_COMPILER=gcc \
  -DCMAKE_CXX_COMPILER="$llvm_bin/clang++" -DLLVM_DIR="$llvm_dir" \
  -DBUILD_TESTING=OFF -DSCOPEALLOC_ENABLE_MLIR=OFF \
  -DSCOPEALLOC_SLOW_PATH=preserve-most > pm-configure.log 2>&1; then
  fail "SCOPEALLOC_SLOW_PATH=preserve-most accepted with gcc"
fi
grep -q "SCOPEALLOC_SLOW_PATH=preserve-most needs a runtime built by clang 17 or" pm-configure.log ||
  fail "pm-configure: $(cat pm-configure.log)"

# clang 16 (which miscompiles preserve_most on x86-64), when installed: the
# same rule as GCC.
clang16=$(dirname "$llvm_bin")/../llvm-16/bin/clang
if [ -x "$clang16" ]; then
  cmake -S "$src" -B build16 -G Ninja -DCMAKE_C_COMPILER="$clang16" \
    -DCMAKE_CXX_COMPILER="$llvm_bin/clang++" -DLLVM_DIR="$llvm_dir" \
    -DBUILD_TESTING=OFF -DSCOPEALLOC_ENABLE_MLIR=OFF \
    -DSCOPEALLOC_BAREMETAL_RUNTIMES=OFF > configure16.log 2>&1 ||
    { cat configure16.log; fail "configure with clang 16"; }
  grep -q '^SCOPEALLOC_SLOW_PATH:STRING=standard$' build16/CMakeCache.txt ||
    fail "a clang 16 runtime's plugin default is not standard"
  ninja -C build16 scopealloc_rt > build16.log 2>&1 ||
    { cat build16.log; fail "build the runtime with clang 16"; }
  nm build16/runtime/libscopealloc_rt.a > static16.nm
  grep -q ' T __scopealloc_alloc$' static16.nm || fail "clang 16: no __scopealloc_alloc"
  if grep -q ' T __scopealloc_frame_slow$' static16.nm; then
    fail "a clang 16 runtime defines __scopealloc_frame_slow"
  fi
  echo "clang 16 runtime: no __scopealloc_frame_slow"
fi
echo "gcc-built runtime ok"
