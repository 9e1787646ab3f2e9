#!/usr/bin/env bash
# libFuzzer over scopealloc-bound's image reader and bound computation
# (tools/scopealloc-bound/FuzzBound.cpp, built with ASan and UBSan as
# scopealloc-bound-fuzz), for a fixed number of runs from a fixed seed, so
# that a run takes the same work every time. The seed corpus is built here
# from real images: a program through scopealloc-clang (PIE, function
# pointers, recursion, a constructor, a named pool), its relocatable object,
# a shared object, a plain clang image, and the Cortex-M4 demo when the
# prefix has the bare-metal runtime, with the firmware layouts of
# test/baremetal/bound-layouts.sh (FPU attributes, a naked handler and
# inline asm moving the stack pointer, tables inside .text). A crash, an
# abort, a sanitizer report, a leak or a timeout fails; the input is kept
# under --keep with the command that reproduces it.
#
#   bound.sh --fuzzer build/tools/scopealloc-bound/scopealloc-bound-fuzz \
#            [--prefix P] [--runs 80000] [--seed 1] [--max-time 600] [--keep DIR]
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
fuzzer= prefix=${SCOPEALLOC_PREFIX:-$root/build/install}
runs=80000 seed=1 max_time=600 keep=/tmp/scopealloc-fuzz-bound
llvm_bin=${LLVM_BIN:-/usr/lib/llvm-22/bin}
while [ $# -gt 0 ]; do
  case $1 in
    --fuzzer) fuzzer=$2; shift 2 ;;
    --prefix) prefix=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --max-time) max_time=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    *) echo "bound.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -x "$fuzzer" ] || { echo "fuzz-bound: no fuzzer at '$fuzzer'" >&2; exit 2; }
scc=$prefix/bin/scopealloc-clang
[ -x "$scc" ] || { echo "fuzz-bound: no $scc" >&2; exit 2; }

work=$(mktemp -d /tmp/fuzz-bound.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/seeds" "$work/corpus" "$keep"
cd "$work" || exit 2

cat > prog.c <<'C'
#include <scopealloc/scope.h>
#include <scopealloc/scopealloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
SCOPEALLOC_DEFINE_POOL(dma, 4096);
typedef int (*unary)(int);
__attribute__((noinline)) static int light(int x) { volatile char b[64]; b[0] = (char)x; return b[x & 1]; }
__attribute__((noinline)) static int heavy(int x) { volatile char b[3000]; b[0] = (char)x; return b[x & 1] + 1; }
unary table[] = {light, heavy};
__attribute__((noinline)) int walk(int n) {
  char buf[200];
  memset(buf, n, sizeof buf);
  return n ? walk(n - 1) + buf[3] : 0;
}
__attribute__((noinline)) int pooled(int n) {
  SCOPEALLOC_POOL(dma) volatile char t[512];
  t[0] = (char)n;
  return t[n & 1];
}
static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
__attribute__((constructor)) static void init(void) { volatile char big[5000]; big[0] = 1; }
int main(int argc, char **argv) {
  (void)argv;
  int v[4] = {3, 1, 2, 0};
  qsort(v, 4, sizeof(int), cmp);
  printf("%d\n", table[argc & 1](argc) + walk(argc) + pooled(argc));
  return 0;
}
C
ok=1
build() { # name, command...
  local name=$1; shift
  if "$@" > "$name.log" 2>&1; then
    "$llvm_bin/llvm-strip" --strip-debug "$name" -o "seeds/$name" || ok=0
  else
    echo "fuzz-bound: could not build seed $name: $*" && cat "$name.log"
    ok=0
  fi
}
build prog "$scc" -O2 -g prog.c -o prog
build prog.o "$scc" -O2 -c prog.c -o prog.o
build prog.so "$scc" -O2 -fPIC -shared prog.c -o prog.so
build plain "$llvm_bin/clang" -O2 prog.c -I"$prefix/include" -o plain \
  -L"$prefix/lib" -lscopealloc_rt -lpthread
if [ -d "$prefix/lib/baremetal" ]; then
  bm=$root/examples/bare-metal
  bmflags=(--target=thumbv7em-none-eabi -mcpu=cortex-m4 -mthumb -std=c11
    -ffreestanding -fno-builtin -nostdlib -O2 -ffunction-sections -fdata-sections)
  if "$scc" "${bmflags[@]}" -mllvm -scope-alloc-facts-only -c "$bm/startup.c" -o startup.o \
     && "$scc" "${bmflags[@]}" -mllvm -scope-alloc-target=cortex-m -c "$bm/demo.c" -o demo.o; then
    build demo.elf "$scc" --target=thumbv7em-none-eabi -mcpu=cortex-m4 -mthumb -nostdlib \
      -T "$bm/cortex-m4.ld" -Wl,--gc-sections startup.o demo.o -o demo.elf
  else
    echo "fuzz-bound: could not build the Cortex-M4 demo" && ok=0
  fi
  # The layouts of test/baremetal/bound-layouts.sh (issue 46): FPU build
  # attributes and code, a naked handler and inline asm that move the
  # stack pointer, a vector table and a const table inside .text.
  lay=$root/test/baremetal/layouts
  layflags=(-std=c11 -ffreestanding -fno-builtin -nostdlib -O2 -ffunction-sections
    -fdata-sections -I"$lay")
  soft=(--target=thumbv7em-none-eabi -mcpu=cortex-m4 -mthumb)
  hard=(--target=thumbv7em-none-eabihf -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard -mthumb)
  cm3=(-DVECTOR_SECTION='".vectors"' -DVECTOR_SYMBOL=vector_table -DRESET=reset_handler
    -DSYSTICK=sys_tick_handler)
  if "$scc" "${hard[@]}" "${layflags[@]}" -c "$lay/startup.c" -o lay-hard.o \
     && "$scc" "${hard[@]}" "${layflags[@]}" -c "$lay/fpu.c" -o fpu.o \
     && "$scc" "${soft[@]}" "${layflags[@]}" -c "$lay/startup.c" -o lay.o \
     && "$scc" "${soft[@]}" "${layflags[@]}" -c "$lay/asm.c" -o asm.o \
     && "$scc" "${soft[@]}" "${layflags[@]}" "${cm3[@]}" -c "$lay/startup.c" -o lay-cm3.o \
     && "$scc" "${soft[@]}" "${layflags[@]}" -c "$lay/opencm3.c" -o opencm3.o \
     && "$scc" "${soft[@]}" "${layflags[@]}" -DVECTOR_SECTION='".vectors"' -c "$lay/startup.c" -o lay-vec.o \
     && "$scc" "${soft[@]}" "${layflags[@]}" -c "$lay/commands.c" -o commands.o \
     && "$llvm_bin/clang" "${soft[@]}" "${layflags[@]}" -c "$lay/table.c" -o table.o; then
    laylink() { # NAME TARGET LDSCRIPT OBJECTS...
      local name=$1 tgt=$2 ld=$3; shift 3
      build "$name" "$scc" "$tgt" -mcpu=cortex-m4 -mthumb -nostdlib -T "$lay/$ld" \
        -Wl,--defsym=STACK_SIZE=4096 "$@" -o "$name"
    }
    laylink fpu.elf --target=thumbv7em-none-eabihf separate.ld lay-hard.o fpu.o
    laylink asm.elf --target=thumbv7em-none-eabi separate.ld lay.o asm.o
    laylink opencm3.elf --target=thumbv7em-none-eabi in-text.ld \
      -Wl,--entry=reset_handler lay-cm3.o opencm3.o
    laylink commands.elf --target=thumbv7em-none-eabi in-text.ld \
      -Wl,--entry=Reset_Handler lay-vec.o commands.o table.o
  else
    echo "fuzz-bound: could not build the layouts of test/baremetal/layouts" && ok=0
  fi
fi
[ $ok = 1 ] || exit 1
echo "fuzz-bound: seeds: $(cd seeds && for f in *; do printf '%s (%s bytes) ' "$f" "$(wc -c < "$f")"; done)"

start=$(date +%s)
"$fuzzer" -seed="$seed" -runs="$runs" -max_total_time="$max_time" \
  -timeout=60 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$keep/" corpus seeds > fuzz.log 2>&1
rc=$?
end=$(date +%s)
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' fuzz.log)
if [ $rc -ne 0 ]; then
  grep -E "ERROR|SUMMARY|LLVM ERROR|Test unit written" fuzz.log | head -20
  tail -40 fuzz.log
  for a in $(sed -n 's/.*Test unit written to \(.*\)$/\1/p' fuzz.log); do
    echo "fuzz-bound: reproduce: $fuzzer $a"
    echo "fuzz-bound:            $prefix/bin/scopealloc-bound $a"
  done
  echo "fuzz-bound: FAILED after ${execs:-?} runs, $((end - start)) s (seed $seed); inputs kept in $keep"
  exit 1
fi
echo "fuzz-bound: ${execs:-?} runs (seed $seed), $(ls corpus | wc -l) corpus inputs, 0 crashes, $((end - start)) s"
