#!/usr/bin/env bash
# ScopeAlloc on bare metal (thumbv7em-none-eabi, Cortex-M4), no libc, no
# cross CMake toolchain: the installed scopealloc-clang compiles and links.
#
#  1. checks that the installed freestanding runtime for the target (the one
#     the wrapper links: lib/baremetal/thumbv7em-none-eabi) needs nothing
#     from a libc (only the application's `workspace` pool);
#  2. compiles examples/bare-metal/ through the plugin, links it through the
#     wrapper (ld.lld, cortex-m4.ld, the runtime added by the wrapper), and
#     checks the result: the 4 KiB buffer became __scopealloc_* calls and
#     left the stack, the pools sit in their memory;
#  3. builds the same program with plain clang for comparison;
#  4. runs both on QEMU's netduinoplus2 (STM32F405) with semihosting and
#     compares results, pool statistics and the measured stack high-water;
#  5. checks the failure modes: a default pool too small traps, a program
#     without one fails to link naming __scopealloc_pool_workspace.
#
# Usage: test/baremetal/bare-metal-demo.sh [--prefix P] [--out DIR]
#   --prefix P  an installed ScopeAlloc (default: build and use build/install)
#   --out DIR   where objects and images go (default: build/bare-metal)
# Exits 77 (ctest: skipped) after the static checks if qemu-system-arm is
# missing (scripts/setup.sh installs it).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${SCOPEALLOC_BUILD_DIR:-$root/build}
prefix=
out=$build/bare-metal
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) prefix=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 [--prefix P] [--out DIR]" >&2; exit 2 ;;
  esac
done
if [ -z "$prefix" ]; then
  bash "$root/scripts/build.sh" >/dev/null
  prefix=$build/install
fi
[ -x "$prefix/bin/scopealloc-clang" ] || { echo "bare-metal-demo: no ScopeAlloc installed under $prefix" >&2; exit 1; }
prefix=$(cd "$prefix" && pwd)

llvm=/usr/lib/llvm-19/bin
src=$root/examples/bare-metal
target=(--target=thumbv7em-none-eabi -mcpu=cortex-m4 -mthumb)
cflags=("${target[@]}" -std=c11 -ffreestanding -fno-builtin -nostdlib -O2 -g
        -ffunction-sections -fdata-sections -fstack-size-section -Wall -Wextra -Werror)
# The built-in cortex-m target tag: 256-byte limit, 2048-byte frame budget.
policy=(-mllvm -scope-alloc-target=cortex-m)
qemu=(qemu-system-arm -M netduinoplus2 -display none -serial null -monitor none
      -semihosting-config enable=on,target=native)
mkdir -p "$out/rt"
cd "$out"
cc=$prefix/bin/scopealloc-clang
# Links through the wrapper: no libc, no start files, the board's map.
ldflags=("${target[@]}" -nostdlib -T "$src/cortex-m4.ld" -Wl,--gc-sections)

fail() { echo "bare-metal-demo: FAIL: $*" >&2; exit 1; }
step() { echo; echo "== $*"; }

step "Runtime for thumbv7em-none-eabi (freestanding, no libc)"
rt=$("$cc" "${target[@]}" --scopealloc-print-runtime)
[ "$rt" = "$prefix/lib/baremetal/thumbv7em-none-eabi/libscopealloc_rt.a" ] ||
  fail "scopealloc-clang ${target[*]} links '$rt', not lib/baremetal/thumbv7em-none-eabi/libscopealloc_rt.a"
echo "  ${rt#"$prefix"/}"
"$llvm/llvm-ar" t "$rt" | sed 's/^/  /'
# Everything the runtime still needs once its objects are linked together:
# weak references (ASan hooks, pool list bounds) resolve to 0 on bare metal;
# the only strong one must be the application's default pool.
"$llvm/ld.lld" -r --whole-archive "$rt" -o rt/all.o
"$llvm/llvm-nm" -u rt/all.o | sed 's/^ */  /'
unexpected=$("$llvm/llvm-nm" -u rt/all.o | grep -v ' w ' |
             grep -vx ' *U __scopealloc_pool_workspace' || true)
[ -z "$unexpected" ] || fail "the runtime needs symbols a bare-metal program does not have: $unexpected"
"$llvm/llvm-size" "$rt" | sed 's/ (ex .*//; s/^/  /'

step "Demo through the plugin (scopealloc-clang ${target[*]} -O2 ${policy[*]})"
"$cc" "${cflags[@]}" "${policy[@]}" -Rpass=scope-alloc \
  -fno-diagnostics-show-option -c "$src/demo.c" -o demo.o 2>remarks.txt
grep 'remark:' remarks.txt | sed -E 's/^.*demo\.c:/  demo.c:/'
"$llvm/clang" "${cflags[@]}" -c "$src/startup.c" -o startup.o
"$cc" "${ldflags[@]}" -Wl,-Map=demo.map startup.o demo.o -o demo.elf
grep -qF "$rt(fixed_default_pool.c.o)" demo.map ||
  fail "demo.elf does not link the default pool from $rt"
"$llvm/llvm-size" -A -x demo.elf | grep -E '^(section|\.isr|\.text|\.rodata|scopealloc|\.data|\.bss|\.stack |\.sram2)' | sed 's/^/  /'

# The image must not need anything (weak references resolve to 0).
strong=$("$llvm/llvm-nm" -u demo.elf | grep -v ' w ' || true)
[ -z "$strong" ] || fail "demo.elf has undefined symbols: $strong"

disasm() { "$llvm/llvm-objdump" -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '$2 == f {p = 1; next} /^$/ {p = 0} p'; }
stack_size() { # ELF FUNCTION -> bytes of its frame (.stack_sizes)
  local hex
  hex=$("$llvm/llvm-readobj" --stack-sizes "$1" |
    awk -v f="[$2]" '$1 == "Functions:" {hit = ($2 == f)} hit && $1 == "Size:" {print $2; hit = 0}')
  echo $((hex))
}
# (Captured first: `grep -q` closing a pipe early would fail it under pipefail.)
hist_asm=$(disasm demo.elf histogram_checksum)
dma_asm=$(disasm demo.elf dma_frame_checksum)
for call in __scopealloc_mark __scopealloc_alloc __scopealloc_release; do
  grep -q "<$call>" <<<"$hist_asm" || fail "histogram_checksum does not call $call"
done
grep -q '<__scopealloc_pool_alloc>' <<<"$dma_asm" ||
  fail "dma_frame_checksum does not call __scopealloc_pool_alloc"
echo "  histogram_checksum calls:" $(grep -o '<__scopealloc_[a-z_]*>' <<<"$hist_asm" | tr -d '<>')
echo "  dma_frame_checksum calls:" $(grep -o '<__scopealloc_[a-z_]*>' <<<"$dma_asm" | tr -d '<>')
echo "  stack adjustment in histogram_checksum:" $(grep -E 'sub(\.w)?[[:space:]]+sp' <<<"$hist_asm" | awk '{$1=""; print}' | paste -sd';')

# Where the pools ended up (cortex-m4.ld: SRAM1 0x20000000, SRAM2 0x2001c000).
symbol() { "$llvm/llvm-objdump" -t demo.elf | awk -v s="$1" '$NF == s {print $1, $(NF-2), $(NF-1)}'; }
read -r ws_addr ws_section ws_size < <(symbol scopealloc_buffer_workspace)
read -r dma_addr dma_section dma_size < <(symbol scopealloc_buffer_dma)
echo "  pool workspace buffer: 0x$ws_addr in $ws_section, $((16#$ws_size)) bytes"
echo "  pool dma buffer:       0x$dma_addr in $dma_section, $((16#$dma_size)) bytes"
[ "$ws_section" = .bss ] && [ $((16#$ws_addr)) -ge $((0x20000000)) ] &&
  [ $((16#$ws_addr)) -lt $((0x2001c000)) ] || fail "pool workspace is not in SRAM1 .bss"
[ "$dma_section" = .sram2 ] && [ $((16#$dma_addr)) -eq $((0x2001c000)) ] ||
  fail "pool dma is not at the start of SRAM2 (.sram2)"

step "Same program with plain clang (no ScopeAlloc pass)"
"$llvm/clang" "${cflags[@]}" -I"$prefix/include" -c "$src/demo.c" -o plain.o
"$llvm/ld.lld" -T "$src/cortex-m4.ld" --gc-sections startup.o plain.o "$rt" -o plain.elf

sa_frame=$(stack_size demo.elf histogram_checksum)
plain_frame=$(stack_size plain.elf histogram_checksum)
echo "  stack frame of histogram_checksum (.stack_sizes): $sa_frame bytes with ScopeAlloc, $plain_frame bytes without"
[ "$sa_frame" -le 128 ] || fail "histogram_checksum still uses $sa_frame bytes of stack"
[ "$plain_frame" -ge 4096 ] || fail "the plain build's frame ($plain_frame bytes) should hold the 4 KiB buffer"

step "Failure modes"
# A default pool smaller than the 4 KiB frame: the default handler traps.
"$cc" "${cflags[@]}" "${policy[@]}" -DDEMO_WORKSPACE_SIZE=1024 \
  -c "$src/demo.c" -o small.o
"$cc" "${ldflags[@]}" startup.o small.o -o small.elf
# No default pool at all: the link names the missing pool.
"$cc" "${cflags[@]}" "${policy[@]}" -DDEMO_NO_WORKSPACE_POOL \
  -c "$src/demo.c" -o nopool.o
if "$cc" "${ldflags[@]}" startup.o nopool.o -o nopool.elf 2>nopool.err; then
  fail "a program without a default pool linked"
fi
grep -q 'undefined symbol: __scopealloc_pool_workspace' nopool.err ||
  fail "the link error does not name __scopealloc_pool_workspace: $(cat nopool.err)"
echo "  no default pool: $(head -1 nopool.err)"

if ! command -v qemu-system-arm >/dev/null; then
  echo
  echo "bare-metal-demo: qemu-system-arm not found (scripts/setup.sh installs it): not running the images"
  exit 77
fi

run() { # ELF -> output in $1.out, exit status in $1.rc
  local rc=0
  timeout 60 "${qemu[@]}" -kernel "$1" >"$1.out" 2>&1 || rc=$?
  echo "$rc" >"$1.rc"
}
field() { # FILE LINE-PREFIX FIELD -> the number after FIELD on that line
  grep "^$2" "$1" | sed -E "s/.*$3 ([0-9]+).*/\1/"
}

step "Run on QEMU netduinoplus2 (Cortex-M4), ScopeAlloc build"
run demo.elf
sed 's/^/  /' demo.elf.out
[ "$(cat demo.elf.rc)" = 0 ] || fail "demo.elf exited with $(cat demo.elf.rc)"

step "Run on QEMU, plain build"
run plain.elf
sed 's/^/  /' plain.elf.out
[ "$(cat plain.elf.rc)" = 0 ] || fail "plain.elf exited with $(cat plain.elf.rc)"

step "Run on QEMU, default pool of 1024 bytes"
run small.elf
sed 's/^/  /' small.elf.out
[ "$(cat small.elf.rc)" = 1 ] || fail "small.elf exited with $(cat small.elf.rc), expected the trap's 1"
grep -q '^HardFault: undefined instruction' small.elf.out ||
  fail "small.elf did not trap on exhaustion"
! grep -q 'checksum' small.elf.out || fail "small.elf went on after exhaustion"

step "Checks"
diff <(grep checksum demo.elf.out) <(grep checksum plain.elf.out) >/dev/null ||
  fail "results differ between the ScopeAlloc and the plain build"
echo "  results identical to the plain build"
[ "$(field demo.elf.out 'pool workspace' current)" = 0 ] &&
  [ "$(field demo.elf.out 'pool workspace' peak)" = 4096 ] &&
  [ "$(field demo.elf.out 'pool workspace' allocs)" = 1 ] ||
  fail "pool workspace statistics are not current 0, peak 4096, allocs 1"
[ "$(field demo.elf.out 'pool dma' current)" = 0 ] &&
  [ "$(field demo.elf.out 'pool dma' peak)" = 2048 ] &&
  [ "$(field demo.elf.out 'pool dma' allocs)" = 1 ] ||
  fail "pool dma statistics are not current 0, peak 2048, allocs 1"
echo "  pools: workspace peak 4096, dma peak 2048, both empty at exit"
sa_stack=$(field demo.elf.out 'stack high-water' 'high-water:')
plain_stack=$(field plain.elf.out 'stack high-water' 'high-water:')
[ "$sa_stack" -lt 1024 ] || fail "the ScopeAlloc build used $sa_stack bytes of stack"
[ "$plain_stack" -gt 4096 ] || fail "the plain build used only $plain_stack bytes of stack"
echo "  measured stack high-water: $sa_stack bytes with ScopeAlloc, $plain_stack bytes without"
echo
echo "bare-metal-demo: ok"
