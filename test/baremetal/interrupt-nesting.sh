#!/usr/bin/env bash
# Interrupts nest on top of what they interrupt, in the link's bound check
# and on the hardware (Cortex-M4, QEMU's netduinoplus2):
#
#  1. main holds 200 bytes of a 200-byte workspace pool when SysTick fires;
#     SysTick_Handler takes 160 and pends PendSV, more urgent, whose handler
#     takes 120 (test/baremetal/interrupts/irq.c). Each entry fits the pool
#     alone; the link fails naming the pool, the worst case of main with the
#     two handlers on top, and the handlers;
#  2. linked anyway (SCOPEALLOC_BOUND_CHECK=warn), the image runs out of the
#     pool in SysTick_Handler on QEMU;
#  3. with the pool at the check's figure, the link passes and the program
#     runs, its measured peak within that figure;
#  4. a policy's 'interrupt-priorities' giving both handlers one priority
#     (and the program setting the NVIC so: PendSV waits for SysTick to
#     return) lowers the figure to main plus the larger handler; a pool of
#     that size links and runs, and fails the link without the policy;
#  5. the priorities the program really sets (PendSV more urgent) give the
#     figure of step 1 again: the smaller pool fails the link.
# The stack chains show the runtime's frames (its failure report, which
# calls the program's exhaustion handler) as one row.
#
# Usage: test/baremetal/interrupt-nesting.sh --prefix P [--out DIR]
# Exits 77 (ctest: skipped) after the link checks if qemu-system-arm is
# missing.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
prefix=
out=${SCOPEALLOC_BUILD_DIR:-$root/build}/interrupt-nesting
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) prefix=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 --prefix P [--out DIR]" >&2; exit 2 ;;
  esac
done
[ -x "$prefix/bin/scopealloc-clang" ] || { echo "interrupt-nesting: no ScopeAlloc installed under '$prefix'" >&2; exit 1; }
prefix=$(cd "$prefix" && pwd)
src=$root/test/baremetal/interrupts
ld_script=$root/examples/bare-metal/cortex-m4.ld
target=(--target=thumbv7em-none-eabi -mcpu=cortex-m4 -mthumb)
cflags=("${target[@]}" -std=c11 -ffreestanding -fno-builtin -nostdlib -O2 -g
        -ffunction-sections -fdata-sections -Wall -Wextra -Werror -I"$root/examples/bare-metal")
ldflags=("${target[@]}" -nostdlib -T "$ld_script" -Wl,--gc-sections)
qemu=(qemu-system-arm -M netduinoplus2 -display none -serial null -monitor none
      -semihosting-config enable=on,target=native)
cc=$prefix/bin/scopealloc-clang
rm -rf "$out"
mkdir -p "$out"
cd "$out"

fail() { echo "interrupt-nesting: FAIL: $*" >&2; exit 1; }
step() { echo; echo "== $*"; }
# The worst case the check names in FILE's "pool workspace is ..." error.
worst_case() { sed -n 's/.*pool workspace is [0-9]* bytes .*smaller than its worst case of \([0-9]*\) bytes.*/\1/p' "$1" | head -n 1; }
build() { # NAME POOL-BYTES [CFLAGS...]: compiles irq.c into NAME.o
  local name=$1 pool=$2
  shift 2
  "$cc" "${cflags[@]}" -DPOOL_BYTES="$pool" "$@" -c "$src/irq.c" -o "$name.o"
}
link() { # NAME [FLAGS...]: links NAME.elf; its errors in NAME.err
  local name=$1
  shift
  "$cc" "${ldflags[@]}" "$@" startup.o "$name.o" -o "$name.elf" 2>"$name.err"
}

"$cc" "${cflags[@]}" -mllvm -scope-alloc-facts-only -c "$src/startup.c" -o startup.o

step "1. A 200-byte pool: each entry fits it alone, main with its interrupts does not"
build small 200
if link small; then
  fail "the link passed a 200-byte pool that main and two nested handlers overrun"
fi
sed 's/^/  /' small.err
grep -q 'error: small.elf: pool workspace is 200 bytes (its buffer scopealloc_buffer_workspace in the image), smaller than its worst case of [0-9]* bytes, from entry [A-Za-z_]* ([a-z0-9 ]*), with the interrupt handlers that may preempt it ([0-9]* bytes of its own, [0-9]* PendSV_Handler, [0-9]* SysTick_Handler); critical chain:' small.err ||
  fail "the link error does not name the pool, the worst case with the handlers on top, and the handlers"
grep -q 'SysTick_Handler  (interrupt vector 15; no priority declared)' small.err &&
  grep -q 'PendSV_Handler  (interrupt vector 14; no priority declared)' small.err ||
  fail "the chain does not list the nested handlers"
[ ! -e small.elf ] || fail "the failed link left small.elf"
nested=$(worst_case small.err)
[ -n "$nested" ] && [ "$nested" -ge 480 ] || fail "worst case '$nested' is not at least 200 + 160 + 120"

have_qemu=1
command -v qemu-system-arm >/dev/null || have_qemu=0
run() { # ELF -> output in ELF.out, exit status in ELF.rc
  local rc=0
  timeout 60 "${qemu[@]}" -kernel "$1" >"$1.out" 2>&1 || rc=$?
  echo "$rc" >"$1.rc"
  sed 's/^/  /' "$1.out"
}

step "2. The same image linked anyway (SCOPEALLOC_BOUND_CHECK=warn)"
SCOPEALLOC_BOUND_CHECK=warn link small || fail "the link with SCOPEALLOC_BOUND_CHECK=warn failed: $(cat small.err)"
[ -e small.elf ] || fail "no small.elf"
if [ "$have_qemu" = 1 ]; then
  run small.elf
  [ "$(cat small.elf.rc)" != 0 ] || fail "small.elf ran through a pool its handlers overrun"
  grep -q '^pool workspace exhausted: requested 160 bytes, available 0' small.elf.out ||
    fail "small.elf did not run out of the pool in SysTick_Handler"
fi

step "3. The pool at the check's figure, $nested bytes"
build sized "$nested"
link sized || fail "the link failed with the pool at its worst case: $(cat sized.err)"
if [ "$have_qemu" = 1 ]; then
  run sized.elf
  [ "$(cat sized.elf.rc)" = 0 ] || fail "sized.elf exited with $(cat sized.elf.rc)"
  peak=$(sed -n 's/^pool workspace peak \([0-9]*\) of.*/\1/p' sized.elf.out)
  [ -n "$peak" ] && [ "$peak" -ge 480 ] && [ "$peak" -le "$nested" ] ||
    fail "measured peak '$peak' is not between 480 and the bound $nested"
  echo "  measured peak $peak bytes, bound $nested"
fi

step "4. One priority for both handlers: main plus the larger handler"
cat >same.yaml <<'YAML'
version: 1
targets:
  board:
    interrupt-priorities: { SysTick_Handler: 8, PendSV_Handler: 8 }
YAML
policy=(-mllvm -scope-alloc-policy="$out/same.yaml" -mllvm -scope-alloc-target=board)
"$prefix/bin/scopealloc-bound" --policy=same.yaml --target=board sized.elf >same-bound.txt
sed -n '/^entry main/,/^$/p' same-bound.txt | sed 's/^/  /'
same=$(sed -n '/^entry main/,/^$/s/^  pool workspace: \([0-9]*\) bytes.*/\1/p' same-bound.txt)
[ -n "$same" ] && [ "$same" -ge 360 ] && [ "$same" -lt 480 ] ||
  fail "main's worst case with one priority is '$same', not main plus SysTick's"
grep -q 'SysTick_Handler  (interrupt vector 15; priority 8, .interrupt-priorities. of target .board. in same.yaml)' same-bound.txt ||
  fail "the chain does not name the declared priority"
# main's stack chain runs through the runtime's failure report: the
# runtime's frames are one row, the program's own ones (report,
# board_put_uint) stay rows of their own.
main_chain=$(sed -n '/^entry main/,/^  pool/p' same-bound.txt)
grep -Eq '^ +[0-9]+ +__scopealloc_[a-z_]+  \[ScopeAlloc runtime: [0-9]+ frames, down to sa_[a-z_]+\]$' <<<"$main_chain" ||
  fail "main's stack chain has no one-row runtime part"
! grep -Eq '^ +[0-9]+ +[0-9]+  sa_' <<<"$main_chain" ||
  fail "main's stack chain lists the runtime's internal frames"
grep -Eq '^ +[0-9]+ +[0-9]+  report ' <<<"$main_chain" ||
  fail "main's stack chain lost the program's exhaustion handler"
build same "$same" -DSAME_PRIORITY "${policy[@]}"
link same "${policy[@]}" || fail "the link failed with one priority and a pool of $same: $(cat same.err)"
if [ "$have_qemu" = 1 ]; then
  run same.elf
  [ "$(cat same.elf.rc)" = 0 ] || fail "same.elf exited with $(cat same.elf.rc)"
fi
if link same; then
  fail "without the policy, a pool of $same passed the link"
fi
echo "  without the policy: $(grep -o 'pool workspace is.*preempt it ([^)]*)' same.err)"

step "5. PendSV more urgent than SysTick, as irq.c sets them by default"
cat >urgent.yaml <<'YAML'
version: 1
targets:
  board:
    interrupt-priorities: { SysTick_Handler: 8, PendSV_Handler: 4 }
YAML
urgent=(-mllvm -scope-alloc-policy="$out/urgent.yaml" -mllvm -scope-alloc-target=board)
build urgent "$same" "${urgent[@]}"
if link urgent "${urgent[@]}"; then
  fail "PendSV preempting SysTick passed the link with a pool of $same"
fi
[ "$(worst_case urgent.err)" = "$nested" ] ||
  fail "with PendSV more urgent the worst case is '$(worst_case urgent.err)', not $nested"
echo "  $(grep -o 'pool workspace is.*preempt it ([^)]*)' urgent.err)"

[ "$have_qemu" = 1 ] || { echo "interrupt-nesting: qemu-system-arm not found: the images were not run"; exit 77; }
echo
echo "interrupt-nesting: PASS"
