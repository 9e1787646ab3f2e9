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
#     without one fails to link naming __scopealloc_pool_workspace;
#  6. checks that the measured stack high-water and pool peaks are at most
#     what scopealloc-bound computes for the image (the installed runtime
#     and the start-up code carry facts but are not rewritten:
#     -scope-alloc-facts-only), and within 10% of it (tightness);
#  7. enforcement: the demo is built with examples/bare-metal/policy.yaml,
#     whose target declares a stack bound and the pool sizes, so the
#     wrapper's link runs scopealloc-bound --check: a default pool smaller
#     than its worst case fails the link naming the pool and the chain;
#  8. fit: with a stack bound below today's use the link fails printing the
#     chain; scopealloc-bound --suggest-policy writes the frame budgets that
#     make it hold, and the rebuilt demo fits and prints the same results;
#  9. fit under full LTO: the same tight policy with -flto, no suggestion and
#     no rebuild: the pass at the link moves what the estimate needs, the
#     link's check passes, and the demo prints the same results;
# 10. plan: static under full LTO (start-up code in the LTO link too): the
#     4 KiB buffer gets a fixed offset in Reset_Handler's region, with no
#     runtime call; the demo prints the same results with no workspace
#     allocation; the region's size beside the bump's peak, the bound and a
#     greedy-by-size plan of the same buffers.
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

# The LLVM the installed plugin is for (its pkg-config file says).
llvm=/usr/lib/llvm-$(sed -n 's/^llvm_major=//p' "$prefix/lib/pkgconfig/scopealloc.pc")/bin
src=$root/examples/bare-metal
target=(--target=thumbv7em-none-eabi -mcpu=cortex-m4 -mthumb)
cflags=("${target[@]}" -std=c11 -ffreestanding -fno-builtin -nostdlib -O2 -g
        -ffunction-sections -fdata-sections -fstack-size-section -Wall -Wextra -Werror)
# Target netduino of policy.yaml: the limits of the built-in cortex-m tag
# (256 bytes, frame budget 2048) and the bounds the link checks. The link
# gets the flags too, as compile flags passed on to a link do.
policy=(-mllvm "-scope-alloc-policy=$src/policy.yaml" -mllvm -scope-alloc-target=netduino)
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
# Start-up code with facts but not rewritten, for scopealloc-bound.
"$cc" "${cflags[@]}" -mllvm -scope-alloc-facts-only -c "$src/startup.c" -o startup.o
"$cc" "${ldflags[@]}" "${policy[@]}" -Wl,-Map=demo.map startup.o demo.o -o demo.elf
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
# The default pool's frame is bumped inline (load cur and bound, add,
# compare, store; the release a store): __scopealloc_alloc is its slow
# path, the frame its own mark.
grep -q "<__scopealloc_alloc>" <<<"$hist_asm" ||
  fail "histogram_checksum has no slow path calling __scopealloc_alloc"
! grep -Eq '<__scopealloc_(mark|release)>' <<<"$hist_asm" ||
  fail "histogram_checksum calls __scopealloc_mark or __scopealloc_release: no inline fast path"
grep -q '<__scopealloc_pool_alloc>' <<<"$dma_asm" ||
  fail "dma_frame_checksum does not call __scopealloc_pool_alloc"
echo "  histogram_checksum calls:" $(grep -o '<__scopealloc_[a-z_]*>' <<<"$hist_asm" | tr -d '<>')
echo "  dma_frame_checksum calls:" $(grep -o '<__scopealloc_[a-z_]*>' <<<"$dma_asm" | tr -d '<>')
# Code size (issue 48): the inline fast path against the calls it replaced
# (-scope-alloc-inline-fast-path=false), at most 5% more text.
"$cc" "${cflags[@]}" "${policy[@]}" -mllvm -scope-alloc-inline-fast-path=false -c "$src/demo.c" -o calls.o
"$cc" "${ldflags[@]}" "${policy[@]}" startup.o calls.o -o calls.elf
text_inline=$("$llvm/llvm-size" demo.elf | awk 'NR == 2 {print $1}')
text_calls=$("$llvm/llvm-size" calls.elf | awk 'NR == 2 {print $1}')
echo "  text: $text_inline bytes with the inline fast path, $text_calls with runtime calls"
[ $((text_inline * 100)) -le $((text_calls * 105)) ] ||
  fail "the inline fast path grows the demo's text by more than 5% ($text_inline against $text_calls bytes)"
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
# A default pool smaller than the 4 KiB frame: the link's bound check names
# the pool and the chain, and leaves no image.
"$cc" "${cflags[@]}" "${policy[@]}" -DDEMO_WORKSPACE_SIZE=1024 \
  -c "$src/demo.c" -o small.o
if "$cc" "${ldflags[@]}" "${policy[@]}" startup.o small.o -o small.elf 2>small.err; then
  fail "a default pool of 1024 bytes passed the link's bound check"
fi
grep -q 'error: small.elf: pool workspace is 1024 bytes (its buffer scopealloc_buffer_workspace in the image), smaller than its worst case of 4096 bytes, from entry' small.err &&
  grep -q ' 4096  histogram_checksum ' small.err ||
  fail "the link error does not name the pool, its size, the worst case and the chain: $(cat small.err)"
[ ! -e small.elf ] || fail "the failed link left small.elf"
echo "  default pool of 1024 bytes: $(grep -o 'pool workspace is.*bytes, from' small.err | sed 's/, from$//')"
# Without the check the image links, and the default handler traps.
SCOPEALLOC_BOUND_CHECK=off "$cc" "${ldflags[@]}" "${policy[@]}" startup.o small.o -o small.elf
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
# The painted stack holds Reset_Handler's frame and everything below it.
"$prefix/bin/scopealloc-bound" demo.elf > bound.txt
bound_of() { # ENTRY RESOURCE -> its bound in bytes; nothing if unbounded
  awk -v e="entry $1 " -v r="  $2: " 'index($0, e) == 1 {hit = 1; next}
    /^entry / {hit = 0}
    hit && index($0, r) == 1 {if ($0 !~ /unbounded/) {sub(/^[^:]*: /, ""); print $1}; exit}' bound.txt
}
# ENTRY RESOURCE -> its own part, without the interrupt handlers that may
# preempt it ("stack: 368 bytes, 304 of its own and 64 of the ...").
own_of() {
  awk -v e="entry $1 " -v r="  $2: " 'index($0, e) == 1 {hit = 1; next}
    /^entry / {hit = 0}
    hit && index($0, r) == 1 {sub(/^[^:]*: /, ""); if ($0 ~ /of its own/) print $3; else print $1; exit}' bound.txt
}
stack_bound=$(bound_of Reset_Handler stack)
ws_bound=$(bound_of Reset_Handler "pool workspace")
dma_bound=$(bound_of Reset_Handler "pool dma")
[ -n "$stack_bound" ] && [ -n "$ws_bound" ] && [ -n "$dma_bound" ] ||
  fail "scopealloc-bound found no bound for Reset_Handler: $(cat bound.txt)"
# The fault handlers (HardFault_Handler, Unexpected_Handler: 32 bytes each,
# the exception frame) may preempt anything: the stack's bound counts them
# on top of Reset_Handler's own chain, which the run below measures.
stack_own=$(own_of Reset_Handler stack)
[ "$stack_bound" -eq $((stack_own + 64)) ] ||
  fail "Reset_Handler's stack bound $stack_bound is not its own $stack_own plus the two fault handlers' 64 bytes"
[ "$sa_stack" -le "$stack_own" ] ||
  fail "measured stack high-water $sa_stack bytes exceeds the bound $stack_own (without interrupts)"
[ 4096 -le "$ws_bound" ] && [ 2048 -le "$dma_bound" ] ||
  fail "pool peaks (workspace 4096, dma 2048) exceed the bounds ($ws_bound, $dma_bound)"
echo "  scopealloc-bound: stack $stack_bound bytes with the fault handlers on top, $stack_own without (measured $sa_stack, no fault), pool workspace $ws_bound (peak 4096), dma $dma_bound (peak 2048)"
# Tightness: each bound within 10% of what the run measured. The critical
# chain (Reset_Handler, main, fir_checksum and its 240-byte delay line) is
# a path the run takes, and writes down to its last word. (Before the demo
# had fir_checksum, its bound was 200 bytes against a measured 116: the
# deepest path was the runtime's report of a bad release, main ->
# dma_frame_checksum -> __scopealloc_pool_release -> sa_pool_release_slow
# -> sa_release_or_fail -> sa_fail -> sa_report -> the exhaustion handler,
# 72 bytes deeper than the deepest path that ran (128 bytes, through
# sa_pool_alloc_slow claiming pool dma); and painting missed 12 bytes of
# that one, sa_pool_alloc_slow's outgoing-argument area for its sa_fail
# call, reserved but not written when the allocation succeeds. Both are
# real: no exception frame or assumed size was counted for Reset_Handler.
# The failure reports are 200 bytes deep still, now under the FIR chain.)
tight() { # WHAT BOUND MEASURED
  [ $(($2 * 100)) -le $(($3 * 110)) ] ||
    fail "$1: the bound $2 is more than 10% over the measured $3"
  echo "  $1: bound $2, measured $3 (+$(( ($2 - $3) * 1000 / $3 / 10 )).$(( ($2 - $3) * 1000 / $3 % 10 ))%)"
}
tight "stack" "$stack_own" "$sa_stack"
tight "pool workspace" "$ws_bound" 4096
tight "pool dma" "$dma_bound" 2048

# The stack bound the fit steps ask for, below the demo's: 320 bytes on
# LLVM 22; clang 19 and older build the start-up code and main 16 bytes
# deeper, so that the fit's estimate (which counts the runtime's slow path
# at its ceiling) needs 336 there.
llvm_major=$(sed -n 's/^llvm_major=//p' "$prefix/lib/pkgconfig/scopealloc.pc")
tight=320
[ "$llvm_major" -ge 22 ] || tight=336

# ELF WHAT: the image's stack bound is at most $tight (scopealloc-bound), it
# runs to the end on QEMU with the plain build's results, and its measured
# stack is within that bound. Sets fitted_bound and fitted_stack.
check_fitted() {
  local elf=$1 what=$2 bound stack
  "$prefix/bin/scopealloc-bound" "$elf" > bound.txt
  bound=$(bound_of Reset_Handler stack)
  [ -n "$bound" ] && [ "$bound" -le $tight ] ||
    fail "the $what's stack bound is '$bound', not at most $tight"
  run "$elf"
  [ "$(cat "$elf.rc")" = 0 ] || fail "$elf exited with $(cat "$elf.rc")"
  diff <(grep checksum "$elf.out") <(grep checksum plain.elf.out) >/dev/null ||
    fail "results of the $what differ from the plain build"
  stack=$(field "$elf.out" 'stack high-water' 'high-water:')
  [ "$stack" -le "$bound" ] ||
    fail "the $what measured $stack bytes of stack over its bound $bound"
  fitted_bound=$bound fitted_stack=$stack
}

step "Fit: a stack bound below today's use, and --suggest-policy"
# policy.yaml with 'stack-bound: $tight', under the demo's $stack_bound bytes.
sed "s/^\( *stack-bound:\).*/\1 $tight/" "$src/policy.yaml" >tight.yaml
grep -q "^ *stack-bound: $tight\$" tight.yaml || fail "tight.yaml has no stack-bound of $tight"
tight_policy=(-mllvm -scope-alloc-policy=tight.yaml -mllvm -scope-alloc-target=netduino)
if "$cc" "${ldflags[@]}" "${tight_policy[@]}" startup.o demo.o -o tight.elf 2>tight.err; then
  fail "the demo passed a stack bound of $tight bytes at $stack_bound"
fi
grep -q "error: tight.elf: entry Reset_Handler (interrupt vector 1) needs $stack_bound bytes of stack, with the interrupt handlers that may preempt it ($stack_own bytes of its own, 32 Unexpected_Handler, 32 HardFault_Handler), over its bound of $tight bytes ('stack-bound' of target 'netduino' in tight.yaml); critical chain:" tight.err &&
  grep -q ' fir_checksum ' tight.err ||
  fail "the link error does not name the entry, the bounds and the chain: $(cat tight.err)"
[ ! -e tight.elf ] || fail "the failed link left tight.elf"
sed -n '/entry Reset_Handler/,/fir_checksum/p' tight.err | sed 's/^/  /'
# The image as it is (the check reports, keeps it), and the suggestion.
SCOPEALLOC_BOUND_CHECK=warn "$cc" "${ldflags[@]}" "${tight_policy[@]}" startup.o demo.o -o tight.elf 2>/dev/null
"$prefix/bin/scopealloc-bound" --policy=tight.yaml --target=netduino \
  --suggest-policy=fit.yaml tight.elf | sed 's/^/  /'
grep -q '^ *fir_checksum: { frame-budget: 0 }' fit.yaml ||
  fail "fit.yaml gives fir_checksum no frame budget of 0: $(cat fit.yaml)"
# The rebuild with it: the link's check passes.
fit_policy=(-mllvm -scope-alloc-policy=fit.yaml -mllvm -scope-alloc-target=netduino)
"$cc" "${cflags[@]}" "${fit_policy[@]}" -c "$src/demo.c" -o fit.o
"$cc" "${ldflags[@]}" "${fit_policy[@]}" startup.o fit.o -o fit.elf
check_fitted fit.elf "rebuilt demo"
fit_bound=$fitted_bound fit_stack=$fitted_stack
echo "  rebuilt with fit.yaml: stack bound $fit_bound bytes (at most $tight), measured $fit_stack; results identical to the plain build"

step "Fit under full LTO: the same stack bound of $tight, fitted at the link"
# The fit's estimate counts neither the two fault handlers (64 bytes) nor
# the runtime's real frames: clang 19 builds __scopealloc_alloc's chain
# 144 bytes deep (since the RTOS task check), and main's own 280 with the
# handlers pass 320. The fitted link is checked on LLVM 22 (docs/known-limits.md).
if [ "$llvm_major" -lt 22 ]; then
  echo "  skipped on LLVM $llvm_major (the fit does not count the fault handlers)"
else
"$cc" "${cflags[@]}" "${tight_policy[@]}" -flto -c "$src/demo.c" -o lto.o
# startup.o stays a native object (start-up code with facts): the estimate
# does not count it, the link's check does.
"$cc" "${ldflags[@]}" "${tight_policy[@]}" -flto -Rpass=scope-alloc \
  -fno-diagnostics-show-option startup.o lto.o -o lto.elf >lto-link.txt 2>&1 ||
  fail "the full-LTO link did not fit the stack bound of $tight: $(cat lto-link.txt)"
grep -q "'delay' in .* (240 bytes.*moved to pool 'workspace'.*\[rule fit-stack-bound\]" lto-link.txt ||
  fail "the LTO link moved no buffer by rule fit-stack-bound: $(cat lto-link.txt)"
grep -q "entry 'main' (main): estimated stack [0-9]* bytes.*within its bound of $tight bytes.*after moving 1 buffer" lto-link.txt ||
  fail "the LTO link does not report main's estimate within $tight: $(cat lto-link.txt)"
! grep -q 'warning:' lto-link.txt || fail "the LTO link warned: $(cat lto-link.txt)"
grep -E "fit-stack-bound|estimated stack" lto-link.txt | sed -E 's/^.*demo\.c:/  demo.c:/' | cut -c1-220
check_fitted lto.elf "LTO-fitted demo"
lto_bound=$fitted_bound lto_stack=$fitted_stack
echo "  full LTO with tight.yaml: stack bound $lto_bound bytes (at most $tight), measured $lto_stack; results identical to the plain build"
fi

step "plan: static under full LTO: demoted frames at fixed offsets"
# startup.c joins the LTO link: the planner must see every function that
# Reset_Handler reaches (the board's output included) to place a frame.
"$cc" "${cflags[@]}" "${policy[@]}" -flto -mllvm -scope-alloc-plan=static -c "$src/demo.c" -o plan.o
"$cc" "${cflags[@]}" "${policy[@]}" -flto -mllvm -scope-alloc-plan=static -c "$src/startup.c" -o plan-startup.o
"$cc" "${ldflags[@]}" "${policy[@]}" -flto -Rpass=scope-alloc -Rpass-analysis=scope-alloc \
  -fno-diagnostics-show-option plan-startup.o plan.o -o plan.elf >plan-link.txt 2>&1 ||
  fail "the plan: static link failed: $(cat plan-link.txt)"
grep -q "'histogram_checksum': frame of 4096 bytes at offset 0 of the static region of 'Reset_Handler'" plan-link.txt ||
  fail "the link did not plan histogram_checksum's frame: $(cat plan-link.txt)"
plan_greedy=$(sed -nE 's/.*static region scopealloc.plan.Reset_Handler: .*greedy-by-size offsets of the same buffers: ([0-9]+) bytes.*/\1/p' plan-link.txt)
[ -n "$plan_greedy" ] || fail "no region remark for Reset_Handler: $(cat plan-link.txt)"
read -r _ plan_section plan_size < <("$llvm/llvm-objdump" -t plan.elf |
  awk '$NF == "scopealloc.plan.Reset_Handler" {print $1, $(NF-2), $(NF-1)}')
[ "$plan_section" = .bss ] || fail "scopealloc.plan.Reset_Handler is not in .bss"
plan_size=$((16#$plan_size))
plan_asm=$(disasm plan.elf histogram_checksum)
! grep -q '<__scopealloc_' <<<"$plan_asm" ||
  fail "the planned histogram_checksum calls the runtime: $(grep -o '<__scopealloc_[a-z_]*>' <<<"$plan_asm" | sort -u)"
run plan.elf
[ "$(cat plan.elf.rc)" = 0 ] || fail "plan.elf exited with $(cat plan.elf.rc)"
diff <(grep checksum plan.elf.out) <(grep checksum plain.elf.out) >/dev/null ||
  fail "results of the planned demo differ from the plain build"
[ "$(field plan.elf.out 'pool workspace' allocs)" = 0 ] ||
  fail "the planned demo still allocated from pool workspace: $(grep 'pool workspace' plan.elf.out)"
[ "$plan_size" -le 4096 ] || fail "the planned region ($plan_size bytes) exceeds the bump's peak of 4096"
echo "  histogram_checksum: no runtime call; results identical to the plain build; pool workspace: 0 allocations"
echo "  memory of the demoted frames: planned region $plan_size bytes; bump's peak 4096; bound $ws_bound; greedy-by-size $plan_greedy"
echo
echo "bare-metal-demo: ok"
