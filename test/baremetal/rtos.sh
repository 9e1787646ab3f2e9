#!/usr/bin/env bash
# An RTOS's tasks on the bare-metal runtime (Cortex-M4, QEMU's
# netduinoplus2): test/baremetal/rtos/rtos.c, a preemptive scheduler
# (SysTick + PendSV, three tasks on PSP) whose tasks each hold a demoted
# buffer across a yield and a preemption, two of them in the named pool
# `npu`, while SysTick_Handler takes a demoted buffer of its own.
#
#  1. plain clang (every buffer on the stack): the reference checksums;
#  2. an arena per task (SCOPEALLOC_DEFINE_TASK_ARENA, a partition of `npu`
#     for the two tasks that use it) switched by the scheduler
#     (scopealloc_task_switch in PendSV): the same checksums, no corrupted
#     check, each task's peaks and the pools' (the largest share's);
#  3. no switch, the runtime only told which task runs
#     (scopealloc_task_identity): the first frame a task takes above
#     another's is reported (pool, reason, the other task's top, the
#     caller), before any buffer was corrupted;
#  4. bad input: a partition larger than the pool is refused (ENOSPC).
#
# Usage: test/baremetal/rtos.sh --prefix P [--out DIR]
# Exits 77 (ctest: skipped) if qemu-system-arm is missing.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
prefix=
out=${SCOPEALLOC_BUILD_DIR:-$root/build}/rtos
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) prefix=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 --prefix P [--out DIR]" >&2; exit 2 ;;
  esac
done
[ -x "$prefix/bin/scopealloc-clang" ] || { echo "rtos: no ScopeAlloc installed under '$prefix'" >&2; exit 1; }
prefix=$(cd "$prefix" && pwd)
command -v qemu-system-arm >/dev/null || { echo "rtos: qemu-system-arm not found"; exit 77; }
llvm=/usr/lib/llvm-$(sed -n 's/^llvm_major=//p' "$prefix/lib/pkgconfig/scopealloc.pc")/bin
src=$root/test/baremetal/rtos
# The reset, semihosting and fault handling of the interrupt-nesting test,
# whose vector table names SysTick_Handler and PendSV_Handler.
startup=$root/test/baremetal/interrupts/startup.c
ld_script=$root/examples/bare-metal/cortex-m4.ld
target=(--target=thumbv7em-none-eabi -mcpu=cortex-m4 -mthumb)
cflags=("${target[@]}" -std=c11 -ffreestanding -fno-builtin -nostdlib -O2 -g
        -ffunction-sections -fdata-sections -Wall -Wextra -Werror
        -I"$root/examples/bare-metal")
ldflags=("${target[@]}" -nostdlib -T "$ld_script" -Wl,--gc-sections)
qemu=(qemu-system-arm -M netduinoplus2 -display none -serial null -monitor none
      -semihosting-config enable=on,target=native)
cc=$prefix/bin/scopealloc-clang
rm -rf "$out"
mkdir -p "$out"
cd "$out"

fail() { echo "rtos: FAIL: $*" >&2; exit 1; }
step() { echo; echo "== $*"; }
run() { # ELF -> output in ELF.out (semihosting text is on stderr), status in ELF.rc
  local rc=0
  timeout 120 "${qemu[@]}" -kernel "$1" >"$1.out" 2>&1 || rc=$?
  echo "$rc" >"$1.rc"
  sed 's/^/  /' "$1.out"
}
# The lines that must match the plain build: each task's checksum and
# corruption count (stack high-water marks differ: the buffers are elsewhere).
results() { sed -n 's/^\(task [A-C]: checksum [0-9]*, corrupted [0-9]* of [0-9]*\),.*/\1/p' "$1"; }
# The link's bound check does not model tasks yet (each task's stack and
# arena, the handlers on the main stack): it warns instead of failing.
export SCOPEALLOC_BOUND_CHECK=warn
sa_build() { # NAME [FLAGS...]
  local name=$1
  shift
  "$cc" "${cflags[@]}" "$@" "$startup" "$src/rtos.c" "${ldflags[@]}" -o "$name.elf" 2>"$name.err" ||
    fail "$name.elf did not build: $(cat "$name.err")"
}

step "1. Plain clang: every buffer on the stack"
"$llvm/clang" "${cflags[@]}" -DPLAIN -I"$prefix/include" -c "$startup" -o plain-startup.o
"$llvm/clang" "${cflags[@]}" -DPLAIN -I"$prefix/include" -c "$src/rtos.c" -o plain-rtos.o
"$llvm/ld.lld" -T "$ld_script" --gc-sections plain-startup.o plain-rtos.o -o plain.elf
run plain.elf
[ "$(cat plain.elf.rc)" = 0 ] || fail "plain.elf exited with $(cat plain.elf.rc)"
results plain.elf.out >plain.results
[ "$(wc -l <plain.results)" = 3 ] || fail "plain.elf did not print three tasks' results"
grep -q '^checks corrupted: 0 of 16$' plain.elf.out || fail "plain.elf found a corrupted buffer"

step "2. An arena per task, switched in by PendSV_Handler"
sa_build arenas -DTASK_ARENAS -Rpass=scope-alloc
for moved in "'buf' in 'round_a' (512 bytes.*moved to pool 'workspace'" \
             "'big' in 'round_b' (1024 bytes.*moved to pool 'workspace'" \
             "'dma' in 'round_b' (384 bytes.*moved to pool 'npu'" \
             "'dma' in 'round_c' (768 bytes.*moved to pool 'npu'" \
             "'scratch' in 'tick_work' (320 bytes.*moved to pool 'workspace'"; do
  grep -q "$moved" arenas.err || fail "no remark $moved"
done
run arenas.elf
[ "$(cat arenas.elf.rc)" = 0 ] || fail "arenas.elf exited with $(cat arenas.elf.rc)"
results arenas.elf.out | diff plain.results - || fail "the checksums differ from the plain build's"
grep -q '^checks corrupted: 0 of 16$' arenas.elf.out || fail "arenas.elf found a corrupted buffer"
echo "  checksums identical to the plain build"
# Each task's peak in its own arena: its buffer plus SysTick's 320 bytes on
# top (A: 512 + 320, B: 1024 + 320, C: 320), and B's and C's partitions of
# npu; a pool's peak is its largest share's.
expect() { grep -qx "$1" arenas.elf.out || fail "arenas.elf did not print '$1'"; }
expect 'task A pool workspace: peak 832 of 1024, allocs [0-9]*'
expect 'task B pool workspace: peak 1344 of 1536, allocs [0-9]*'
expect 'task C pool workspace: peak 320 of 512, allocs [0-9]*'
expect 'task B pool npu: peak 384 of 512, allocs 4'
expect 'task C pool npu: peak 768 of 1024, allocs 4'
expect 'pool workspace: peak 1344, allocs [0-9]*'
expect 'pool npu: peak 768, allocs 8'
allocs() { sed -n "s/^$1: peak [0-9]*.*allocs \([0-9]*\)$/\1/p" arenas.elf.out; }
sum=$(( $(allocs 'start-up pool workspace') + $(allocs 'task A pool workspace') +
        $(allocs 'task B pool workspace') + $(allocs 'task C pool workspace') ))
[ "$sum" = "$(allocs 'pool workspace')" ] ||
  fail "pool workspace counts $(allocs 'pool workspace') allocations, its shares $sum"

step "3. No switch: the runtime knows the running task (scopealloc_task_identity) and nothing else"
sa_build identity -DIDENTITY
run identity.elf
[ "$(cat identity.elf.rc)" != 0 ] || fail "identity.elf ran to the end"
grep -Eq "^scopealloc: pool (workspace|npu): frame taken while another task's frame is live in the arena \(requested [0-9]+, at 0x2000[0-9a-f]{4}, called from 0x080[0-9a-f]{5}\)$" identity.elf.out ||
  fail "no report of a frame taken above another task's"
grep -q '^checks corrupted before the report: 0 of ' identity.elf.out ||
  fail "a buffer was corrupted before the report"
! grep -q '^checks corrupted: ' identity.elf.out || fail "identity.elf printed results"

step "4. A partition larger than the pool"
sed 's/scopealloc_task_add_pool(&task_c, &__scopealloc_pool_npu, 1024)/scopealloc_task_add_pool(\&task_c, \&__scopealloc_pool_npu, 4096)/' \
  "$src/rtos.c" >too-big.c
grep -q '__scopealloc_pool_npu, 4096' too-big.c || fail "too-big.c: the partition was not changed"
"$cc" "${cflags[@]}" -DTASK_ARENAS -I"$src" "$startup" too-big.c "${ldflags[@]}" -o too-big.elf 2>too-big.err ||
  fail "too-big.elf did not build: $(cat too-big.err)"
run too-big.elf
grep -qx 'scopealloc_task_add_pool failed' too-big.elf.out || fail "a 4096-byte partition of a 2048-byte pool was accepted"

echo
echo "rtos: PASS"
