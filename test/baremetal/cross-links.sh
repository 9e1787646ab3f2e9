#!/usr/bin/env bash
# Cross and bare-metal links through the installed scopealloc-clang (issue 12
# item 3). For each supported bare-metal target, spelled as users spell it
# (--target=<triple>, or arm-none-eabi with -mcpu/-march/-mfloat-abi):
#  1. the installed archive has the target's machine and float ABI;
#  2. the wrapper picks the expected lib/baremetal/<triple>[/<isa>/<abi>]
#     runtime (--scopealloc-print-runtime, and the link command of -###),
#     adds no -lpthread and no host runtime, and nothing to a compile (-c);
#  3. test/baremetal/cross/prog.c (a 1 KiB buffer demoted to the workspace
#     pool, a frame from named pool `scratch`) compiles, and links with
#     ld.lld against link.ld and startup.c, with -nostdlib; every runtime
#     member comes from that archive (--why-extract), the image has no
#     undefined symbol and nothing of pthread;
#  4. where QEMU has the machine (qemu-system-arm, -aarch64, -riscv32), the
#     image runs with semihosting and checks its pools itself.
# Then the targets without a runtime: an error naming the triple and the
# installed runtimes for a bare-metal or a hosted cross target and for -m32,
# nothing with SCOPEALLOC_RUNTIME=none, and compiles unaffected.
#
# Usage: test/baremetal/cross-links.sh --prefix P [--out DIR]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
prefix=
out=${SCOPEALLOC_BUILD_DIR:-$root/build}/cross-links
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) prefix=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 --prefix P [--out DIR]" >&2; exit 2 ;;
  esac
done
[ -x "$prefix/bin/scopealloc-clang" ] || { echo "cross-links: no ScopeAlloc installed under '$prefix'" >&2; exit 1; }
prefix=$(cd "$prefix" && pwd)
# The LLVM the installed plugin is for (its pkg-config file says).
llvm=/usr/lib/llvm-$(sed -n 's/^llvm_major=//p' "$prefix/lib/pkgconfig/scopealloc.pc")/bin
cc=$prefix/bin/scopealloc-clang
src=$root/test/baremetal/cross
rm -rf "$out"
mkdir -p "$out"
cd "$out"

fail() { echo "cross-links: FAIL: $*" >&2; exit 1; }
step() { echo; echo "== $*"; }
# (Captured first: `grep -q` closing a pipe early would fail it under pipefail.)
has() { grep -q -e "$2" <<<"$1"; }

# name | runtime directory under lib/baremetal | QEMU | ROM | RAM | flags
# QEMU is <system>:<machine>; the Cortex-M33 board also runs Armv8-M
# Baseline code, the Cortex-M55 board soft-float code.
targets='
cortex-m0        |thumbv6m-none-eabi                |arm:microbit      |0x00000000|0x20000000|--target=arm-none-eabi -mcpu=cortex-m0
thumbv7m         |thumbv7m-none-eabi                |arm:mps2-an385    |0x00000000|0x20000000|--target=thumbv7m-none-eabi
thumbv7em        |thumbv7em-none-eabi               |arm:mps2-an386    |0x00000000|0x20000000|--target=thumbv7em-none-eabi -mcpu=cortex-m4
cortex-m4-hard   |thumbv7em-none-eabihf             |arm:mps2-an386    |0x00000000|0x20000000|--target=arm-none-eabi -mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16
cortex-m7-hard   |thumbv7em-none-eabihf             |arm:mps2-an500    |0x00000000|0x20000000|--target=thumbv7em-none-eabihf -mcpu=cortex-m7 -mfpu=fpv5-d16
thumbv8m.base    |thumbv8m.base-none-eabi           |arm:mps2-an505    |0x10000000|0x38000000|--target=thumbv8m.base-none-eabi
cortex-m33-softfp|thumbv8m.main-none-eabi           |arm:mps2-an505    |0x10000000|0x38000000|--target=arm-none-eabi -mcpu=cortex-m33 -mfloat-abi=softfp
thumbv8m.main-hf |thumbv8m.main-none-eabihf         |arm:mps2-an505    |0x10000000|0x38000000|--target=thumbv8m.main-none-eabihf
v8.1m-mve-hard   |thumbv8.1m.main-none-eabihf       |arm:mps3-an547    |0x00000000|0x21000000|--target=arm-none-eabi -march=armv8.1-m.main+mve.fp -mfloat-abi=hard
cortex-m55-soft  |thumbv8m.main-none-eabi           |arm:mps3-an547    |0x00000000|0x21000000|--target=arm-none-eabi -mcpu=cortex-m55 -mfloat-abi=soft
rv32imac         |riscv32-unknown-elf/rv32imac/ilp32 |riscv32:virt     |0x80000000|0x80100000|--target=riscv32-unknown-elf -march=rv32imac -mabi=ilp32
rv32gc-ilp32     |riscv32-unknown-elf/rv32imac/ilp32 |riscv32:virt     |0x80000000|0x80100000|--target=riscv32-unknown-elf -march=rv32gc -mabi=ilp32
rv32imc          |riscv32-unknown-elf/rv32imc/ilp32  |riscv32:virt     |0x80000000|0x80100000|--target=riscv32-unknown-elf -march=rv32imc
rv32imafc-ilp32f |riscv32-unknown-elf/rv32imafc/ilp32f|riscv32:virt    |0x80000000|0x80100000|--target=riscv32-unknown-elf -march=rv32imafc -mabi=ilp32f
aarch64          |aarch64-none-elf                  |aarch64:virt      |0x40000000|0x40100000|--target=aarch64-none-elf
'

cflags=(-std=c11 -O2 -ffreestanding -nostdlib -Wall -Wextra -Werror -I"$src")
reference=
ran=0
skipped=()
while IFS='|' read -r name dir qemu rom ram flags; do
  name=${name// /}
  [ -n "$name" ] || continue
  dir=${dir// /}; qemu=${qemu// /}
  read -r -a target <<<"$flags"
  step "$name: ${target[*]}"
  want=$prefix/lib/baremetal/$dir/libscopealloc_rt.a
  [ -f "$want" ] || fail "$name: $want is not installed"
  mkdir -p "$name"

  # 1. The archive is built for the target: every member has the
  #    architecture and float ABI of its directory.
  members=$("$llvm/llvm-ar" t "$want" | wc -l)
  attrs=$("$llvm/llvm-readelf" -A "$want")
  count() { grep -c -e "$1" <<<"$attrs" || true; }
  case $dir in
    thumb*)
      case $dir in
        thumbv6m-*) arch='ARM v6S-M' ;;
        thumbv7m-*) arch='ARM v7' ;;
        thumbv7em-*) arch='ARM v7E-M' ;;
        thumbv8m.base-*) arch='ARM v8-M Baseline' ;;
        thumbv8m.main-*) arch='ARM v8-M Mainline' ;;
        thumbv8.1m.main-*) arch='ARM v8.1-M Mainline' ;;
      esac
      [ "$(count "Description: $arch\$")" = "$members" ] || fail "$name: $want is not all $arch"
      vfp=0; [ "${dir%eabihf}" != "$dir" ] && vfp=$members
      [ "$(count 'Description: AAPCS VFP$')" = "$vfp" ] ||
        fail "$name: $want: $(count 'Description: AAPCS VFP$') of $members members pass floats in VFP registers, expected $vfp" ;;
    riscv32*)
      isa=${dir#*/}; isa=${isa%/*}
      letters=$(sed -n 's/.*Value: rv32\(.*\)/\1/p' <<<"$attrs" | sort -u | tr '_' '\n' | grep -E '^[a-z][0-9]+p[0-9]+$' | cut -c1 | tr -d '\n')
      [ "rv32$letters" = "$isa" ] || fail "$name: $want is rv32$letters, not $isa"
      float=$(grep -c 'single-float ABI' <<<"$("$llvm/llvm-readelf" -h "$want")" || true)
      [ "${dir##*/}" = ilp32f ] && want_float=$members || want_float=0
      [ "$float" = "$want_float" ] || fail "$name: $want: $float of $members members have the single-float ABI, expected $want_float" ;;
    aarch64*)
      [ "$(grep -c 'Machine: *AArch64$' <<<"$("$llvm/llvm-readelf" -h "$want")")" = "$members" ] ||
        fail "$name: $want is not all AArch64" ;;
  esac

  # 2. The wrapper's choice, in its answer and in the link command.
  got=$("$cc" "${target[@]}" --scopealloc-print-runtime)
  [ "$got" = "$want" ] || fail "$name: the wrapper picks '$got', not $want"
  echo "  runtime: ${got#"$prefix"/}"
  link_cmd=$("$cc" "${target[@]}" -nostdlib -### "$src/prog.c" -o "$name/x.elf" 2>&1 | grep -F 'ld.lld')
  has "$link_cmd" "\"$want\"" || fail "$name: the link command lacks $want: $link_cmd"
  ! has "$link_cmd" 'pthread' || fail "$name: the link command has pthread: $link_cmd"
  ! has "$link_cmd" 'scopealloc_rt"\|scopealloc_rt\.so\|"-lscopealloc_rt"' ||
    fail "$name: the link command has the host runtime: $link_cmd"
  compile_cmd=$("$cc" "${target[@]}" "${cflags[@]}" -### -c "$src/prog.c" -o "$name/x.o" 2>&1)
  ! has "$compile_cmd" 'libscopealloc_rt' || fail "$name: a compile (-c) got the runtime"

  # 3. Compile, link, check the image.
  printf 'MEMORY\n{\n  ROM (rx) : ORIGIN = %s, LENGTH = 256K\n  RAM (rwx) : ORIGIN = %s, LENGTH = 16K\n}\n' \
    "$rom" "$ram" >"$name/memory.ld"
  "$cc" "${target[@]}" "${cflags[@]}" -mllvm -scope-alloc-max-stack-alloca=256 \
    -c "$src/prog.c" -o "$name/prog.o"
  "$cc" "${target[@]}" "${cflags[@]}" -fno-builtin -c "$src/startup.c" -o "$name/startup.o"
  "$cc" "${target[@]}" "${cflags[@]}" -fno-builtin -c "$src/mini-libc.c" -o "$name/mini-libc.o"
  # -y: where each runtime entry point the program calls is defined.
  "$cc" "${target[@]}" -nostdlib -T "$src/link.ld" -L"$name" -Wl,--gc-sections \
    -Wl,--why-extract="$name/why.txt" -Wl,-y,__scopealloc_alloc -Wl,-y,__scopealloc_release \
    -Wl,-y,__scopealloc_pool_alloc -Wl,-y,scopealloc_pool_stats \
    "$name/prog.o" "$name/startup.o" "$name/mini-libc.o" -o "$name/prog.elf" >"$name/link.txt"
  trace=$(cat "$name/link.txt")
  for s in fixed_default_pool.c.o:__scopealloc_alloc fixed_default_pool.c.o:__scopealloc_release \
           named_pool.c.o:__scopealloc_pool_alloc stats.c.o:scopealloc_pool_stats; do
    grep -qxF "$want(${s%%:*}): definition of ${s#*:}" <<<"$trace" ||
      fail "$name: ${s#*:} is not defined by $want(${s%%:*}): $trace"
  done
  others=$(tail -n +2 "$name/why.txt" | cut -f2 | grep -vF "$want(" || true)
  [ -z "$others" ] || fail "$name: members from other archives: $others"
  echo "  extracted:" $(tail -n +2 "$name/why.txt" | cut -f2 | sed 's/.*(\(.*\))/\1/' | sort -u)
  undefined=$("$llvm/llvm-nm" -u "$name/prog.elf" | grep -v ' w ' || true)
  [ -z "$undefined" ] || fail "$name: undefined symbols: $undefined"
  symbols=$("$llvm/llvm-nm" "$name/prog.elf")
  ! grep -qi pthread <<<"$symbols" || fail "$name: the image has pthread symbols"
  for s in __scopealloc_alloc __scopealloc_pool_alloc __scopealloc_pool_workspace; do
    has "$symbols" " [TtDdBbRr] $s\$" || fail "$name: $s is not defined in the image"
  done
  disasm=$("$llvm/llvm-objdump" -d --no-show-raw-insn "$name/prog.elf")
  hist=$(awk '/<histogram>:$/ {p = 1; next} /^$/ {p = 0} p' <<<"$disasm")
  frame=$(awk '/<frame_sum>:$/ {p = 1; next} /^$/ {p = 0} p' <<<"$disasm")
  has "$hist" '<__scopealloc_alloc>' || fail "$name: histogram's buffer was not demoted"
  has "$frame" '<__scopealloc_pool_alloc>' || fail "$name: frame_sum's frame is not from its pool"
  # The stack the LTO stack-bound fit assumes for this runtime
  # (analysis/FreestandingRuntimeStack.def) covers its worst case: each
  # entry point's own part, without the fault handlers of the vector table
  # (inside .text here) that may preempt it.
  case $("$llvm/llvm-readelf" -h "$name/prog.elf" | awk -F: '/Machine:/ {print $2}' | xargs) in
    ARM) arch=thumb ;;
    AArch64) arch=aarch64 ;;
    RISC-V) arch=riscv32 ;;
    *) fail "$name: no architecture for analysis/FreestandingRuntimeStack.def" ;;
  esac
  assumed=$(sed -n "s/^SA_RUNTIME_STACK($arch, *\([0-9]*\)).*/\1/p" "$root/analysis/FreestandingRuntimeStack.def")
  [ -n "$assumed" ] || fail "$name: analysis/FreestandingRuntimeStack.def has no line for $arch"
  worst=0
  for entry in __scopealloc_alloc __scopealloc_mark __scopealloc_release \
               __scopealloc_pool_alloc __scopealloc_pool_mark __scopealloc_pool_release; do
    # Arm's inline fast path calls neither __scopealloc_mark nor
    # __scopealloc_release: the link may drop them.
    case $entry in
      __scopealloc_mark | __scopealloc_release)
        has "$symbols" " [Tt] $entry\$" || continue ;;
    esac
    bytes=$("$prefix/bin/scopealloc-bound" --entry=$entry "$name/prog.elf" |
      awk -v e="$entry" '$1 == "entry" && $2 == e {hit = 1; next}
        hit && $1 == "stack:" {print (/ of its own/ ? $4 : $2); exit}')
    [[ "$bytes" =~ ^[0-9]+$ ]] || fail "$name: $entry's stack is not bounded: '$bytes'"
    [ "$bytes" -le "$worst" ] || worst=$bytes
  done
  [ "$worst" -le "$assumed" ] ||
    fail "$name: the runtime's entry points take up to $worst bytes of stack, over the $assumed the fit assumes for $arch (analysis/FreestandingRuntimeStack.def)"
  echo "  runtime entry points: at most $worst bytes of stack (the fit assumes $assumed)"

  # 4. Run it.
  system=${qemu%%:*}
  if ! command -v "qemu-system-$system" >/dev/null; then
    skipped+=("$name (no qemu-system-$system)")
    continue
  fi
  run=(timeout 60 "qemu-system-$system" -M "${qemu#*:}" -display none -serial null
       -monitor none -nic none -semihosting-config enable=on,target=native)
  [ "$system" = riscv32 ] && run+=(-bios none)
  [ "$system" = aarch64 ] && run+=(-cpu cortex-a53)
  rc=0
  "${run[@]}" -kernel "$name/prog.elf" >"$name/run.out" 2>&1 || rc=$?
  sed 's/^/  | /' "$name/run.out"
  [ "$rc" = 0 ] && has "$(cat "$name/run.out")" '^ok$' || fail "$name: the program failed on QEMU (exit $rc)"
  sums=$(grep '^checksums:' "$name/run.out")
  [ -z "$reference" ] && reference=$sums
  [ "$sums" = "$reference" ] || fail "$name: '$sums' differs from the first target's '$reference'"
  ran=$((ran + 1))
done <<<"$targets"

step "Targets without a runtime"
expect_error() { # LABEL PATTERN ARGS...: the link fails, naming PATTERN
  local label=$1 pattern=$2 err
  shift 2
  if err=$("$cc" "$@" -nostdlib "$src/mini-libc.c" -o "$out/none.elf" 2>&1); then
    fail "$label: linked without a runtime"
  fi
  has "$err" "$pattern" || fail "$label: the error does not name '$pattern': $err"
  has "$err" 'installed: .*thumbv7em-none-eabi' || fail "$label: the error does not list the installed runtimes: $err"
  echo "  $label: $(head -1 <<<"$err")"
}
expect_error "Armv7-A bare metal" 'no ScopeAlloc runtime for armv7-unknown-none-eabi$' --target=armv7a-none-eabi
expect_error "RISC-V ilp32d" 'riscv32-unknown-unknown-elf (-march=rv32imafdc -mabi=ilp32d)' \
  --target=riscv32-unknown-elf -march=rv32gc -mabi=ilp32d
expect_error "big-endian Cortex-M4" 'thumbebv7em-unknown-none-eabi' --target=thumbv7em-none-eabi -mbig-endian
expect_error "hosted AArch64 Linux" 'no ScopeAlloc runtime for aarch64-unknown-linux-gnu$' --target=aarch64-linux-gnu
expect_error "-m32" 'no ScopeAlloc runtime for i386-pc-linux-gnu$' -m32
if err=$(SCOPEALLOC_RUNTIME=shared "$cc" --target=thumbv7em-none-eabi --scopealloc-print-runtime 2>&1); then
  fail "SCOPEALLOC_RUNTIME=shared was accepted for a bare-metal target"
fi
has "$err" 'its runtime is the static .*/thumbv7em-none-eabi/libscopealloc_rt.a' ||
  fail "SCOPEALLOC_RUNTIME=shared: unexpected error: $err"
echo "  SCOPEALLOC_RUNTIME=shared on bare metal: $err"
# SCOPEALLOC_RUNTIME=none: no runtime at all, on any target.
for t in --target=aarch64-linux-gnu --target=armv7a-none-eabi --target=thumbv7em-none-eabi; do
  cmd=$(SCOPEALLOC_RUNTIME=none "$cc" "$t" -nostdlib -### "$src/mini-libc.c" 2>&1)
  ! has "$cmd" 'scopealloc_rt\|pthread' || fail "SCOPEALLOC_RUNTIME=none $t: a runtime was linked: $cmd"
  [ -z "$(SCOPEALLOC_RUNTIME=none "$cc" "$t" --scopealloc-print-runtime)" ] ||
    fail "SCOPEALLOC_RUNTIME=none $t: --scopealloc-print-runtime printed a runtime"
done
cmd=$(SCOPEALLOC_RUNTIME=none "$cc" -### "$src/mini-libc.c" 2>&1)
! has "$cmd" 'scopealloc_rt\|pthread' || fail "SCOPEALLOC_RUNTIME=none: the host link got a runtime: $cmd"
echo "  SCOPEALLOC_RUNTIME=none: no runtime for a hosted cross, an unsupported, a supported target and the host"
# Compiles need no runtime: a target without one compiles.
"$cc" --target=armv7a-none-eabi "${cflags[@]}" -mllvm -scope-alloc-max-stack-alloca=256 \
  -c "$src/prog.c" -o armv7a.o
"$cc" --target=aarch64-linux-gnu "${cflags[@]}" -c "$src/prog.c" -o aarch64-linux.o
echo "  compiles (-c) for armv7a-none-eabi and aarch64-linux-gnu: fine"
# The host keeps its runtime.
[ "$("$cc" --scopealloc-print-runtime)" = "$prefix/lib/libscopealloc_rt.so" ] &&
  [ "$("$cc" --target=x86_64-linux-gnu -static --scopealloc-print-runtime)" = "$prefix/lib/libscopealloc_rt.a" ] ||
  fail "the host's runtime changed"
echo "  host: $prefix/lib/libscopealloc_rt.so, -static: libscopealloc_rt.a"

echo
echo "cross-links: ok ($ran images run on QEMU${skipped:+; not run: ${skipped[*]}})"
