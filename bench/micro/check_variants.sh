#!/usr/bin/env bash
# Checks that the frame benchmark's variants were built as their names say,
# from their object files:
#   frame_stack           a stack frame that holds the buffer, no runtime;
#   frame_safestack       SafeStack: a small frame, the unsafe stack pointer
#                         (__safestack_unsafe_stack_ptr) referenced, not
#                         ScopeAlloc's runtime;
#   frame_demoted_inline  a small frame, the workspace runtime referenced
#                         (with the inline fast path: the thread's pool,
#                         __scopealloc_tls_pool);
#   frame_demoted_standard  as frame_demoted_inline, its slow branch
#                         calling __scopealloc_mark and __scopealloc_alloc,
#                         never __scopealloc_frame_slow;
#   frame_demoted_call    a small frame, __scopealloc_alloc called, the
#                         thread's pool not touched inline;
#   frame_malloc          malloc and free called;
#   frame_planned         plan: static: a small frame, no runtime referenced
#                         (the buffer in its region, scopealloc.plan.*);
#   frame_shared_stack    (frame_shared_*.pic.o, compiled -fPIC for a shared
#                         library) like frame_stack;
#   frame_shared_safestack  like frame_safestack, the unsafe stack pointer
#                         reached with initial-exec TLS;
#   frame_shared_inline   a small frame, __scopealloc_tls_pool reached with
#                         initial-exec TLS (a GOT TP-offset relocation, no
#                         __tls_get_addr);
#   frame_shared_inline_gd  the same with general-dynamic TLS (a TLSGD
#                         relocation and a __tls_get_addr call).
# Usage: check_variants.sh LLVM_BIN_DIR OBJECT_DIR BUFFER_BYTES
set -euo pipefail
bin=$1 dir=$2 bytes=$3
failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }

# Largest constant the function's code subtracts from the stack pointer
# (x86-64: sub $imm,%rsp; AArch64: sub sp, sp, #imm).
frame_bytes() { # OBJECT
  "$bin/llvm-objdump" -d --no-show-raw-insn "$1" |
    awk 'match($0, /sub[lq]?[ \t]+\$0x[0-9a-f]+, *%rsp/) ||
         match($0, /sub[ \t]+sp, sp, #0x[0-9a-f]+/) {
           s = substr($0, RSTART, RLENGTH); sub(/.*0x/, "", s); sub(/[^0-9a-f].*/, "", s)
           v = 0
           for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
           if (v > max) max = v
         }
         END { print max + 0 }'
}
undefined() { "$bin/llvm-nm" -u "$1" | awk '{print $NF}'; }
refers() { undefined "$1" | grep -qx "$2"; }

fast_path=$(sed -n 's/.*FRAME_BENCH_HAVE_FAST_PATH_OPTION \([01]\).*/\1/p' "$dir/frame_bench_config.h")
# x86-64 leaf functions may keep 128 bytes below the stack pointer (red zone).
stack_min=$((bytes - 128))
small=256

# SafeStack's frame: the buffer is off the machine stack, on the unsafe one.
check_safestack() { # NAME OBJECT SIZE
  [ "$3" -le "$small" ] || fail "$1's frame is $3 bytes, expected the buffer on the unsafe stack (<= $small)"
  refers "$2" __safestack_unsafe_stack_ptr || fail "$1 does not use __safestack_unsafe_stack_ptr (not built with -fsanitize=safe-stack?)"
  if undefined "$2" | grep -q '^__scopealloc'; then fail "$1 refers to the ScopeAlloc runtime"; fi
}

for v in stack safestack demoted_inline demoted_standard demoted_call malloc planned; do
  obj=$dir/frame_$v.o
  [ -f "$obj" ] || { fail "$obj is missing"; continue; }
  size=$(frame_bytes "$obj")
  echo "frame_$v: stack frame $size bytes; undefined: $(undefined "$obj" | tr '\n' ' ')"
  case $v in
    stack)
      [ "$size" -ge "$stack_min" ] || fail "frame_stack's frame is $size bytes, expected >= $stack_min"
      if undefined "$obj" | grep -q '^__scopealloc'; then fail "frame_stack refers to the runtime"; fi
      if refers "$obj" __safestack_unsafe_stack_ptr; then fail "frame_stack uses the unsafe stack"; fi ;;
    safestack)
      check_safestack frame_safestack "$obj" "$size" ;;
    demoted_*)
      [ "$size" -le "$small" ] || fail "frame_$v's frame is $size bytes, expected the buffer demoted (<= $small)" ;;&
    demoted_inline)
      if [ "$fast_path" = 1 ]; then
        refers "$obj" __scopealloc_tls_pool || fail "frame_demoted_inline does not use __scopealloc_tls_pool (no inline fast path)"
        # x86-64's default slow branch: the asm call of the thunk.
        if [ "$(uname -m)" = x86_64 ]; then
          refers "$obj" __scopealloc_frame_thunk_regs || fail "frame_demoted_inline does not call __scopealloc_frame_thunk_regs (not frameless)"
        fi
      else
        refers "$obj" __scopealloc_alloc || fail "frame_demoted_inline does not call __scopealloc_alloc"
      fi ;;
    demoted_standard)
      refers "$obj" __scopealloc_mark && refers "$obj" __scopealloc_alloc ||
        fail "frame_demoted_standard does not call __scopealloc_mark and __scopealloc_alloc"
      if refers "$obj" __scopealloc_frame_slow; then fail "frame_demoted_standard calls __scopealloc_frame_slow"; fi
      if [ "$fast_path" = 1 ]; then
        refers "$obj" __scopealloc_tls_pool || fail "frame_demoted_standard does not use __scopealloc_tls_pool (no inline fast path)"
      fi ;;
    demoted_call)
      refers "$obj" __scopealloc_alloc || fail "frame_demoted_call does not call __scopealloc_alloc"
      if refers "$obj" __scopealloc_tls_pool; then fail "frame_demoted_call uses the inline fast path"; fi ;;
    malloc)
      refers "$obj" malloc && refers "$obj" free || fail "frame_malloc does not call malloc and free" ;;
    planned)
      [ "$size" -le "$small" ] || fail "frame_planned's frame is $size bytes, expected the buffer planned (<= $small)"
      if undefined "$obj" | grep -q '^__scopealloc'; then fail "frame_planned refers to the runtime"; fi
      "$bin/llvm-nm" "$obj" | grep -q ' scopealloc\.plan\.frame_planned$' ||
        fail "frame_planned has no region scopealloc.plan.frame_planned" ;;
  esac
done
# Relocation types against a TLS variable (x86-64: R_X86_64_GOTTPOFF for
# initial-exec, R_X86_64_TLSGD for general-dynamic; AArch64:
# R_AARCH64_TLSIE_* and R_AARCH64_TLSDESC_*).
tls_relocs() { # OBJECT SYMBOL
  "$bin/llvm-objdump" -r "$1" | awk -v sym="$2" '$3 == sym || index($3, sym "-") == 1 || index($3, sym "+") == 1 {print $2}' |
    sort -u | tr '\n' ' '
}
for v in shared_stack shared_safestack shared_inline shared_inline_gd; do
  obj=$dir/frame_$v.pic.o
  [ -f "$obj" ] || { fail "$obj is missing"; continue; }
  size=$(frame_bytes "$obj")
  relocs=$(tls_relocs "$obj" __scopealloc_tls_pool)
  [ $v != shared_safestack ] || relocs=$(tls_relocs "$obj" __safestack_unsafe_stack_ptr)
  echo "frame_$v (PIC): stack frame $size bytes; undefined: $(undefined "$obj" | tr '\n' ' '); TLS relocations: ${relocs:-none}"
  case $v in
    shared_stack)
      [ "$size" -ge "$stack_min" ] || fail "frame_shared_stack's frame is $size bytes, expected >= $stack_min"
      if undefined "$obj" | grep -q '^__scopealloc'; then fail "frame_shared_stack refers to the runtime"; fi
      continue ;;
    shared_safestack)
      check_safestack frame_shared_safestack "$obj" "$size"
      case $relocs in *TLSGD*|*TLSDESC*|*TLSLD*) fail "frame_shared_safestack reaches the unsafe stack pointer with dynamic TLS ($relocs), expected initial-exec" ;; esac
      continue ;;
  esac
  [ "$size" -le "$small" ] || fail "frame_$v's frame is $size bytes, expected the buffer demoted (<= $small)"
  [ "$fast_path" = 1 ] || continue
  refers "$obj" __scopealloc_tls_pool || fail "frame_$v does not use __scopealloc_tls_pool (no inline fast path)"
  case $v in
    shared_inline)
      case $relocs in *TLSGD*|*TLSDESC*|*TLSLD*) fail "frame_shared_inline reaches the pool with dynamic TLS ($relocs), expected initial-exec" ;; esac
      if refers "$obj" __tls_get_addr; then fail "frame_shared_inline calls __tls_get_addr"; fi ;;
    shared_inline_gd)
      case $relocs in *TLSGD*|*TLSDESC*) ;; *) fail "frame_shared_inline_gd does not use general-dynamic TLS ($relocs)" ;; esac ;;
  esac
done
[ "$fast_path" = 1 ] || echo "note: the plugin has no -scope-alloc-inline-fast-path option; both demoted variants call the runtime"
exit $failed
