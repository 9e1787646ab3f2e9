#!/usr/bin/env bash
# Stack bounds on firmware layouts that vendors ship (issue 46, items 1-4
# and 6), each held against QEMU's netduinoplus2 (Cortex-M4) with a painted
# stack (test/baremetal/layouts/startup.c) and against the link's check:
#
#  1. fpu: main, SysTick and PendSV (more urgent, pended by SysTick) use the
#     FPU, built -mfloat-abi=hard: each exception stacks 104 bytes;
#  2. asm: a naked SysTick handler (push r4-r11 and lr, sub sp, #68, bl to
#     C) and `sub sp, #16` in the inline asm of an ordinary function;
#  3. opencm3: the vector table inside .text (in-text.ld, as CMSIS's
#     gcc_arm.ld and libopencm3's scripts), handlers not named *_Handler;
#  4. commands: a const table of function pointers inside .text, built
#     without ScopeAlloc: the only place that takes cmd_dump's address.
#
# For each: linked with a 4 KiB stack and run, the painted high-water mark
# is at most the largest stack bound scopealloc-bound gives the image; and
# the same objects linked with a stack 8 bytes smaller than that mark fail
# the link ("needs N bytes of stack ..., more than the M bytes the image
# reserves") and leave no image.
#
#  6. unbounded: a recursive HardFault_Handler makes every entry unbounded;
#     main's known part (a 2 KiB frame, 256 bytes of pool) alone overruns
#     the 1 KiB stack and the 128-byte pool the image reserves: the link
#     fails naming both, and the run (with room) measures over 1 KiB.
#
# Usage: test/baremetal/bound-layouts.sh --prefix P [--out DIR]
# Exits 77 (ctest: skipped) if qemu-system-arm is missing.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
prefix=
out=${SCOPEALLOC_BUILD_DIR:-$root/build}/bound-layouts
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) prefix=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 --prefix P [--out DIR]" >&2; exit 2 ;;
  esac
done
[ -x "$prefix/bin/scopealloc-clang" ] || { echo "bound-layouts: no ScopeAlloc installed under '$prefix'" >&2; exit 1; }
prefix=$(cd "$prefix" && pwd)
command -v qemu-system-arm >/dev/null || { echo "bound-layouts: qemu-system-arm not found"; exit 77; }
src=$root/test/baremetal/layouts
cc=$prefix/bin/scopealloc-clang
soft=(--target=thumbv7em-none-eabi -mcpu=cortex-m4 -mthumb)
hard=(--target=thumbv7em-none-eabihf -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard -mthumb)
cflags=(-std=c11 -ffreestanding -fno-builtin -nostdlib -O2 -g -ffunction-sections
        -fdata-sections -Wall -Wextra -Werror -I"$src")
qemu=(qemu-system-arm -M netduinoplus2 -display none -serial null -monitor none
      -semihosting-config enable=on,target=native)
rm -rf "$out"
mkdir -p "$out"
cd "$out"

fail() { echo "bound-layouts: FAIL: $*" >&2; exit 1; }
step() { echo; echo "== $*"; }
link() { # NAME TARGET-FLAGS-ARRAY LDSCRIPT STACK OBJECTS... -> NAME.elf, NAME.err
  local name=$1 flags=$2 ld=$3 stack=$4
  shift 4
  local -n tf=$flags
  "$cc" "${tf[@]}" -nostdlib -T "$src/$ld" -Wl,--defsym=STACK_SIZE="$stack" \
    "$@" -o "$name.elf" 2>"$name.err"
}
run() { # ELF -> its painted stack high-water mark
  local rc=0
  timeout 60 "${qemu[@]}" -kernel "$1" >"$1.out" 2>&1 || rc=$?
  [ "$rc" = 0 ] || fail "$1 exited with $rc: $(cat "$1.out")"
  sed -n 's/^stack high-water \([0-9]*\)$/\1/p' "$1.out"
}
largest_bound() { # ELF -> the largest bounded stack of its entries
  "$prefix/bin/scopealloc-bound" "$1" >"$1.bound"
  grep -v 'reserved in the image' "$1.bound" |
    sed -n 's/^  stack: \([0-9][0-9]*\) bytes.*/\1/p' | sort -n | tail -n 1
}
# NAME TARGET-FLAGS-ARRAY LDSCRIPT OBJECTS...: the run's painted mark is
# within the bound, and a stack 8 bytes below the mark fails the link.
held() {
  local name=$1 flags=$2 ld=$3
  shift 3
  link "$name" "$flags" "$ld" 4096 "$@" || fail "$name: the link failed: $(cat "$name.err")"
  local measured bound tight
  measured=$(run "$name.elf")
  bound=$(largest_bound "$name.elf")
  sed -n '2,/^$/p' "$name.elf.bound" | sed 's/^/  /'
  echo "  $name: painted stack $measured bytes, largest bound ${bound:-none}"
  [ -n "$measured" ] && [ -n "$bound" ] && [ "$bound" -ge "$measured" ] ||
    fail "$name: the run used $measured bytes of stack, more than any bound (${bound:-none}) of $(grep -c '^entry ' "$name.elf.bound") entries"
  tight=$(( (measured - 8) / 8 * 8 ))
  if link "$name-tight" "$flags" "$ld" "$tight" "$@"; then
    fail "$name: a $tight-byte stack, below the $measured bytes the run used, passed the link"
  fi
  grep -q "error: $name-tight.elf: entry .* needs [0-9]* bytes of stack.*more than the $tight bytes the image reserves for the stack" "$name-tight.err" ||
    fail "$name: the link error does not name the entry and the reserved stack: $(cat "$name-tight.err")"
  [ ! -e "$name-tight.elf" ] || fail "$name: the failed link left $name-tight.elf"
  echo "  $name: a $tight-byte stack fails the link: $(grep -o 'entry .* needs [0-9]* bytes of stack' "$name-tight.err")"
}

step "1. Exceptions with floating-point state active (-mfloat-abi=hard)"
"$cc" "${hard[@]}" "${cflags[@]}" -mllvm -scope-alloc-facts-only -c "$src/startup.c" -o startup-hard.o
"$cc" "${hard[@]}" "${cflags[@]}" -c "$src/fpu.c" -o fpu.o
held fpu hard separate.ld startup-hard.o fpu.o
grep -q 'interrupt handlers add 104 bytes (the exception frame, with the floating-point registers: Tag_FP_arch' fpu.elf.bound ||
  fail "fpu: the exception frame is not the FPU's 104 bytes"

step "2. Assembly that moves the stack pointer: a naked handler, inline asm"
"$cc" "${soft[@]}" "${cflags[@]}" -mllvm -scope-alloc-facts-only -c "$src/startup.c" -o startup.o
"$cc" "${soft[@]}" "${cflags[@]}" -c "$src/asm.c" -o asm.o
held asm soft separate.ld startup.o asm.o
grep -q 'warning: SysTick_Handler: its instructions move the stack pointer down by 104 bytes' asm.elf.bound &&
  grep -q 'warning: scratch: its instructions move the stack pointer down by 16 bytes, 16 more' asm.elf.bound ||
  fail "asm: the moves of the naked handler and of the inline asm are not named"

step "3. The vector table inside .text, handlers named as libopencm3 names them"
cm3=(-DVECTOR_SECTION='".vectors"' -DVECTOR_SYMBOL=vector_table -DRESET=reset_handler
     -DHARD_FAULT=hard_fault_handler -DPENDSV=pend_sv_handler -DSYSTICK=sys_tick_handler)
"$cc" "${soft[@]}" "${cflags[@]}" "${cm3[@]}" -mllvm -scope-alloc-facts-only -c "$src/startup.c" -o startup-cm3.o
"$cc" "${soft[@]}" "${cflags[@]}" -c "$src/opencm3.c" -o opencm3.o
held opencm3 soft in-text.ld -Wl,--entry=reset_handler startup-cm3.o opencm3.o
grep -q 'interrupt vector table: symbol vector_table (initial stack pointer and reset vector)' opencm3.elf.bound &&
  grep -q '^entry sys_tick_handler (interrupt vector 15)' opencm3.elf.bound ||
  fail "opencm3: the vector table inside .text, or sys_tick_handler, was not found"

step "4. A const table of function pointers inside .text"
"$cc" "${soft[@]}" "${cflags[@]}" -DVECTOR_SECTION='".vectors"' -mllvm -scope-alloc-facts-only -c "$src/startup.c" -o startup-vectors.o
"$cc" "${soft[@]}" "${cflags[@]}" -c "$src/commands.c" -o commands.o
# The table without ScopeAlloc: plain clang, no records.
llvm=/usr/lib/llvm-$(sed -n 's/^llvm_major=//p' "$prefix/lib/pkgconfig/scopealloc.pc")/bin
"$llvm/clang" "${soft[@]}" "${cflags[@]}" -c "$src/table.c" -o table.o
held commands soft in-text.ld -Wl,--entry=Reset_Handler startup-vectors.o commands.o table.o
grep -Eq '^ +[0-9]+ +[0-9]+  cmd_dump ' commands.elf.bound ||
  fail "commands: cmd_dump, called through the table inside .text, is in no chain"

step "6. An unbounded handler does not hide a known part that does not fit"
"$cc" "${soft[@]}" "${cflags[@]}" -mllvm -scope-alloc-max-stack-alloca=4096 -DPOOL_BYTES=128 -c "$src/unbounded.c" -o unbounded.o
if link unbounded soft separate.ld 1024 startup.o unbounded.o; then
  fail "unbounded: main's 2 KiB frame and 256 bytes of pool passed the link with a 1 KiB stack and a 128-byte pool"
fi
sed 's/^/  /' unbounded.err
grep -q 'error: unbounded.elf: entry .* needs at least [0-9]* bytes of stack (the known part.*; the rest is unbounded), more than the 1024 bytes the image reserves for the stack' unbounded.err ||
  fail "unbounded: the link does not report the stack's known part over the reserved 1024 bytes"
grep -q 'error: unbounded.elf: pool workspace is 128 bytes (its buffer scopealloc_buffer_workspace in the image), smaller than the known part of its use, [0-9]* bytes, from entry' unbounded.err ||
  fail "unbounded: the link does not report the pool's known part over its 128 bytes"
grep -q 'interrupt handler HardFault_Handler, which may preempt it, is unbounded' unbounded.err ||
  fail "unbounded: the cause is not named"
# With room (a 4 KiB stack, a 512-byte pool), the run measures the stack.
"$cc" "${soft[@]}" "${cflags[@]}" -mllvm -scope-alloc-max-stack-alloca=4096 -DPOOL_BYTES=512 -c "$src/unbounded.c" -o roomy.o
link roomy soft separate.ld 4096 startup.o roomy.o || fail "unbounded: the roomy link failed: $(cat roomy.err)"
measured=$(run roomy.elf)
echo "  unbounded: painted stack $measured bytes, against the 1024 the failed link reserved"
[ "$measured" -gt 1024 ] || fail "unbounded: the run used only $measured bytes of stack"

echo
echo "bound-layouts: PASS"
