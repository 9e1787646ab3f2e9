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
#  4. bad input: a partition larger than the pool is refused (ENOSPC);
#  5. per-task stack bounds (rtos/policy.yaml's 'tasks', issue 47 item 3):
#     every link is checked with the policy (no SCOPEALLOC_BOUND_CHECK=warn:
#     each task's default-pool frames are held to its arena's buffer); each
#     task's painted stack high-water mark is within its bound (chain +
#     exception frame + switch context, no handler on it); a task arena
#     too small is reported by the link; a run in which task B runs the
#     failure path (no SysTick, no switch: a frame above task A's, the
#     deepest chain) paints within 10% of its bound minus the context a
#     preemption there would save; a task stack 8 bytes under its bound fails the link with the
#     task named, one of exactly its bound links; each task's use of npu is
#     held to its partition ('pools'), a partition too small fails the link;
#  6. plan: static under full LTO (issue 47 item 5): the frames only one
#     task reaches (round_a, round_b's default-pool buffer) are planned in
#     that task's region, SysTick's in its own; the run gives the plain
#     build's checksums and takes nothing from the task arenas. With
#     -DSHARED_FRAME a frame tasks A and B both reach stays on their
#     arenas, and the checksums are a plain -DSHARED_FRAME build's.
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
# The tasks of rtos.c for the link's bound check: their stacks, their
# arenas (-DTASK_ARENAS), the switch context of a bare PendSV switcher. The
# builds without task arenas use the same tasks without 'arena'.
policy=$src/policy.yaml
sed 's/, arena: task_[abc]//' "$policy" >no-arenas.yaml
grep -q 'arena' no-arenas.yaml && fail "no-arenas.yaml still names an arena"
sa_link() { # NAME POLICY [FLAGS...]: the status of the link, its errors in NAME.err
  local name=$1 pol=$2
  shift 2
  "$cc" "${cflags[@]}" -mllvm -scope-alloc-policy="$pol" "$@" "$startup" "$src/rtos.c" \
    "${ldflags[@]}" -o "$name.elf" 2>"$name.err"
}
sa_build() { # NAME POLICY [FLAGS...]
  sa_link "$@" || fail "$1.elf did not build: $(cat "$1.err")"
}
bound=("$prefix/bin/scopealloc-bound" --triple=thumbv7em-none-eabi)
# scopealloc-bound's line of task $1 in file $2: its bound.
task_bound() {
  sed -n "s/^task $1 (entry task_[a-c]_main): stack \([0-9]*\) bytes: chain [0-9]* + exception frame 32 + switch context 32$/\1/p" "$2"
}
# The painted stack high-water mark of task $1 that run $2 printed.
painted() { sed -n "s/^task $1[ (a-z)]*:.* stack high-water \([0-9]*\)$/\1/p" "$2"; }

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
sa_build arenas "$policy" -DTASK_ARENAS -Rpass=scope-alloc
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
sa_build identity no-arenas.yaml -DIDENTITY
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
"$cc" "${cflags[@]}" -mllvm -scope-alloc-policy="$policy" -DTASK_ARENAS -I"$src" "$startup" too-big.c \
  "${ldflags[@]}" -o too-big.elf 2>too-big.err ||
  fail "too-big.elf did not build: $(cat too-big.err)"
run too-big.elf
grep -qx 'scopealloc_task_add_pool failed' too-big.elf.out || fail "a 4096-byte partition of a 2048-byte pool was accepted"

step "5. Per-task stack bounds ($policy)"
"${bound[@]}" --policy="$policy" arenas.elf >arenas.bound || fail "scopealloc-bound failed on arenas.elf"
sed -n '/^task /,$p' arenas.bound | sed 's/^/  /'
# A task's chain is its own: the handlers run on the main stack.
sed -n '/^task /,$p' arenas.bound | grep -q 'interrupt handlers on top' &&
  fail "a handler is counted on a task's stack"
for t in A B C; do
  n=$(task_bound $t arenas.bound)
  p=$(painted $t arenas.elf.out)
  [ -n "$n" ] && [ -n "$p" ] || fail "no bound or no painted mark for task $t"
  [ "$p" -le "$n" ] || fail "task $t painted $p bytes of stack, over its bound of $n"
  echo "  task $t: painted high-water $p bytes, bound $n"
done
# Each task's default-pool use, its own and SysTick's on top, is what its
# arena peaked at (step 2), within its arena's buffer.
for t in A:832:1024 B:1344:1536 C:320:512; do
  IFS=: read -r name use arena <<<"$t"
  arena_of=$(echo "$name" | tr ABC abc)
  grep -q "^  its arena: $arena bytes (its buffer scopealloc_task_buffer_task_$arena_of in the image), pool workspace use $use bytes$" \
    <(sed -n "/^task $name /,/^\$/p" arenas.bound) || fail "task $name: no arena line with $use of $arena bytes"
done
# A task arena smaller than the task's default-pool use (its 512 bytes and
# SysTick's 320 on top) is reported by the link, naming the task.
SCOPEALLOC_BOUND_CHECK=warn sa_build small-arena "$policy" -DTASK_ARENAS -DTASK_A_ARENA_BYTES=256
grep -q "warning: small-arena.elf: task 'A' (entry task_a_main, 'tasks' of target 'cortex-m4' in $policy:[0-9]*) needs 832 bytes of pool workspace, with the interrupt handlers that may preempt it (512 bytes of its own, 320 SysTick_Handler), more than its arena of 256 bytes (its buffer scopealloc_task_buffer_task_a in the image)" small-arena.err ||
  fail "the link did not report task A's arena as too small: $(cat small-arena.err)"
echo "  a 256-byte arena for task A: reported by the link"

# Each task's partition of npu ('pools': what rtos.c passes to
# scopealloc_task_add_pool) holds its npu use: B 384 of 512, C 768 of 1024.
sed -e 's/arena: task_b }/arena: task_b, pools: { npu: 512 } }/' \
    -e 's/arena: task_c }/arena: task_c, pools: { npu: 1024 } }/' "$policy" >pools.yaml
[ "$(grep -c 'pools: { npu' pools.yaml)" = 2 ] || fail "pools.yaml does not give tasks B and C their partitions"
"${bound[@]}" --check --policy=pools.yaml arenas.elf >pools.check 2>&1 ||
  fail "the partitions did not pass --check: $(cat pools.check)"
"${bound[@]}" --policy=pools.yaml arenas.elf >pools.bound || fail "scopealloc-bound failed with pools.yaml"
for t in B:512:384 C:1024:768; do
  IFS=: read -r name share use <<<"$t"
  grep -qx "  its partition of pool npu: $share bytes ('pools'), use $use bytes" \
    <(sed -n "/^task $name /,/^\$/p" pools.bound) || fail "task $name: no partition line with $use of $share bytes"
done
"${bound[@]}" --json --policy=pools.yaml arenas.elf |
  python3 -c 'import json, sys; t = {x["name"]: x.get("pool_partitions") for x in json.load(sys.stdin)["tasks"]}; sys.exit(t != {"A": None, "B": [{"pool": "npu", "bytes": 512, "use": 384}], "C": [{"pool": "npu", "bytes": 1024, "use": 768}]})' ||
  fail "--json: the tasks' pool_partitions are not B's 384 of 512 and C's 768 of 1024"
# A partition smaller than the task's use fails the link, naming the task.
sed 's/npu: 1024/npu: 512/' pools.yaml >small-share.yaml
! sa_link small-share small-share.yaml -DTASK_ARENAS ||
  fail "task C's 768 bytes of npu in a 512-byte partition linked"
grep -q "error: small-share.elf: task 'C' (entry task_c_main, 'tasks' of target 'cortex-m4' in small-share.yaml:[0-9]*) needs 768 bytes of pool npu.*, more than its partition of 512 bytes ('pools' 512: scopealloc_task_add_pool)" small-share.err ||
  fail "the failed link did not name task C and its partition: $(cat small-share.err)"
echo "  partitions of npu: B 384 of 512, C 768 of 1024; a 512-byte one for C fails the link"

# The deepest chain run for real: without SysTick (-DNO_TICK) and without
# an arena switch, task A yields holding its frame and task B's first frame
# is taken above it, so task B runs the failure path (sa_fail_other_task
# down to the board's hook) on its own stack, never preempted.
sa_build deepest no-arenas.yaml -DIDENTITY -DNO_TICK
run deepest.elf
grep -q '^task B (reporting): stack high-water [0-9]*$' deepest.elf.out ||
  fail "deepest.elf: task B did not report"
"${bound[@]}" --policy=no-arenas.yaml deepest.elf >deepest.bound ||
  fail "scopealloc-bound failed on deepest.elf"
n=$(task_bound B deepest.bound)
p=$(painted B deepest.elf.out)
[ -n "$n" ] && [ -n "$p" ] || fail "no bound or no painted mark for task B"
[ "$p" -le "$n" ] || fail "task B painted $p bytes of stack, over its bound of $n"
# Painted while it ran (never preempted): the exception frame and the
# switch context (32 + 32) a preemption at that depth would add.
[ $((10 * n)) -le $((11 * (p + 64))) ] ||
  fail "task B: bound $n is more than 10% over painted $p + 64"
echo "  task B (the failure path): painted high-water $p bytes, + 64 = $((p + 64)), bound $n"

# A stack 8 bytes under the task's bound fails the link, naming the task;
# one of exactly its bound links.
nb=$(task_bound B arenas.bound)
small=$((nb - 8))
! sa_link small-b "$policy" -DTASK_ARENAS -DSTACK_B_BYTES=$small ||
  fail "a $small-byte stack for task B (bound $nb) linked"
sed 's/^/  /' small-b.err | head -12
grep -q "error: small-b.elf: task 'B' (entry task_b_main, 'tasks' of target 'cortex-m4' in $policy:[0-9]*) needs $nb bytes of stack (chain [0-9]* + exception frame 32 + switch context 32), more than its stack of $small bytes (the size of stack_b in the image); critical chain:" small-b.err ||
  fail "the failed link did not name task B, its stack and its bound"
[ ! -e small-b.elf ] || fail "the failed link left small-b.elf"
sa_build exact-b "$policy" -DTASK_ARENAS -DSTACK_B_BYTES=$nb
echo "  a $nb-byte stack for task B links; $small bytes does not"

step "6. plan: static under full LTO: each task's own frames in its region"
# The whole program in one LTO link (start-up code too), so that the
# planner sees every function and every task entry of the policy.
plan_link() { # NAME [FLAGS...]
  local name=$1
  shift
  sa_build "$name" "$policy" -flto -mllvm -scope-alloc-plan=static -DTASK_ARENAS \
    -Rpass=scope-alloc -Rpass-missed=scope-alloc -fno-diagnostics-show-option "$@"
}
plan_link plan
for planned in "'round_a': frame of 512 bytes at offset 0 of the static region of task 'A' (entry 'task_a_main')" \
               "'round_b': frame of 1024 bytes at offset 0 of the static region of task 'B' (entry 'task_b_main')" \
               "'tick_work': frame of 320 bytes at offset 0 of the static region of 'SysTick_Handler'"; do
  grep -qF "$planned" plan.err || fail "no remark $planned: $(grep 'plan static' plan.err)"
done
"$llvm/llvm-nm" plan.elf >plan.nm
for region in task_a_main:512 task_b_main:1024; do
  IFS=: read -r entry bytes <<<"$region"
  grep -Eq "^[0-9a-f]+ [bB] scopealloc\.plan\.$entry\$" plan.nm ||
    fail "no region scopealloc.plan.$entry in .bss"
done
"$llvm/llvm-objdump" -d --no-show-raw-insn plan.elf |
  awk '/^[0-9a-f]+ <round_[ab]>:/ {f = 1; next} /^$/ {f = 0} f' >plan-rounds.s
[ -s plan-rounds.s ] || fail "no code of round_a and round_b in plan.elf"
! grep -q '<__scopealloc_alloc\|<__scopealloc_frame' plan-rounds.s ||
  fail "a planned round calls the runtime's default-pool path"
run plan.elf
[ "$(cat plan.elf.rc)" = 0 ] || fail "plan.elf exited with $(cat plan.elf.rc)"
results plan.elf.out | diff plain.results - || fail "plan.elf's checksums differ from the plain build's"
grep -q '^checks corrupted: 0 of 16$' plan.elf.out || fail "plan.elf found a corrupted buffer"
for t in A B C; do
  grep -qx "task $t pool workspace: peak 0 of [0-9]*, allocs 0" plan.elf.out ||
    fail "task $t took default-pool memory with its frames planned"
done
echo "  checksums identical to the plain build; no task took memory from its arena"
"${bound[@]}" --policy="$policy" plan.elf >plan.bound || fail "scopealloc-bound failed on plan.elf"
grep '^  static region scopealloc.plan.task_' plan.bound
# A frame that tasks A and B both reach stays on their arenas.
"$llvm/clang" "${cflags[@]}" -DPLAIN -DSHARED_FRAME -I"$prefix/include" -c "$src/rtos.c" -o plain-shared.o
"$llvm/ld.lld" -T "$ld_script" --gc-sections plain-startup.o plain-shared.o -o plain-shared.elf
run plain-shared.elf >/dev/null
[ "$(cat plain-shared.elf.rc)" = 0 ] || fail "plain-shared.elf exited with $(cat plain-shared.elf.rc)"
plan_link plan-shared -DSHARED_FRAME
grep -qF "'round_shared': frame of 288 bytes stays on the run-time arena (plan static): entries 'task_a_main' (entry of task 'A') and 'task_b_main' (entry of task 'B') both reach it" plan-shared.err ||
  fail "round_shared's frame, which tasks A and B reach, was not left on their arenas: $(grep round_shared plan-shared.err)"
grep -qF "'round_a': frame of 512 bytes at offset 0 of the static region of task 'A'" plan-shared.err ||
  fail "round_a was not planned beside round_shared"
run plan-shared.elf
[ "$(cat plan-shared.elf.rc)" = 0 ] || fail "plan-shared.elf exited with $(cat plan-shared.elf.rc)"
results plan-shared.elf.out | diff <(results plain-shared.elf.out) - ||
  fail "plan-shared.elf's checksums differ from the plain -DSHARED_FRAME build's"
grep -q '^checks corrupted: 0 of 24$' plan-shared.elf.out || fail "plan-shared.elf found a corrupted buffer"
for t in A B; do
  grep -qx "task $t pool workspace: peak 288 of [0-9]*, allocs [0-9]*" plan-shared.elf.out ||
    fail "task $t did not hold round_shared's 288 bytes in its arena"
done
echo "  round_shared (tasks A and B): on their arenas, checksums identical to the plain -DSHARED_FRAME build"

echo
echo "rtos: PASS"
