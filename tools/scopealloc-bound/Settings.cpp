//===- Settings.cpp - What the user tells scopealloc-bound ----------------===//
#include "Settings.h"
#include "PolicyFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace scopealloc {
namespace bound {

namespace {
/// Assumed worst-case stack, callees included, of functions that usually
/// come without facts. Rough, on the safe side for glibc and newlib on
/// 64-bit hosts; a config file or --assume replaces any of them.
struct Assumption {
  uint64_t Bytes;
  const char *Names;
};
const Assumption Builtin[] = {
    // String and memory routines, integer and soft-float helpers: leaves.
    {128, "memcpy memmove memset memcmp memchr bcmp bzero strlen strnlen "
          "strcmp strncmp strcpy strncpy strcat strncat strchr strrchr "
          "strstr __memcpy_chk __memmove_chk __memset_chk "
          "__aeabi_memcpy __aeabi_memcpy4 __aeabi_memcpy8 __aeabi_memmove "
          "__aeabi_memmove4 __aeabi_memmove8 __aeabi_memset __aeabi_memset4 "
          "__aeabi_memset8 __aeabi_memclr __aeabi_memclr4 __aeabi_memclr8 "
          "__aeabi_idiv __aeabi_uidiv __aeabi_idivmod __aeabi_uidivmod "
          "__aeabi_ldivmod __aeabi_uldivmod __aeabi_lmul __aeabi_llsl "
          "__aeabi_llsr __aeabi_lasr __udivdi3 __divdi3 __umoddi3 __moddi3 "
          "__udivmoddi4 __divmoddi4 __udivsi3 __divsi3 __umodsi3 __modsi3 "
          "__udivti3 __divti3 __umodti3 __modti3 __muldi3 __multi3 "
          "__ashldi3 __ashrdi3 __lshrdi3 __popcountsi2 __popcountdi2 "
          "__clzsi2 __clzdi2 __ctzsi2 __ctzdi2 "
          "__aeabi_fadd __aeabi_fsub __aeabi_fmul __aeabi_fdiv __aeabi_dadd "
          "__aeabi_dsub __aeabi_dmul __aeabi_ddiv __aeabi_f2d __aeabi_d2f "
          "__aeabi_i2f __aeabi_i2d __aeabi_ui2f __aeabi_ui2d __aeabi_f2iz "
          "__aeabi_d2iz __aeabi_f2uiz __aeabi_d2uiz __aeabi_fcmpeq "
          "__aeabi_fcmplt __aeabi_fcmple __aeabi_fcmpgt __aeabi_fcmpge "
          "__aeabi_dcmpeq __aeabi_dcmplt __aeabi_dcmple __aeabi_dcmpgt "
          "__aeabi_dcmpge __aeabi_fcmpun __aeabi_dcmpun "
          "__adddf3 __subdf3 __muldf3 __divdf3 __addsf3 __subsf3 __mulsf3 "
          "__divsf3 __extendsfdf2 __truncdfsf2 __floatsidf __floatsisf "
          "__fixdfsi __fixsfsi __floatunsidf __floatunsisf"},
    // Math library.
    {512, "sqrt sqrtf fabs fabsf floor floorf ceil ceilf round roundf "
          "trunc truncf fmod fmodf exp expf log logf pow powf sin sinf cos "
          "cosf tan tanf atan atanf atan2 atan2f"},
    // Allocation.
    {1024, "malloc free calloc realloc aligned_alloc posix_memalign "
           "memalign"},
    // Threads and process.
    {1024, "pthread_create pthread_join pthread_mutex_lock "
           "pthread_mutex_unlock pthread_once pthread_self sched_yield "
           "write read close open getpid"},
    // Formatted and stream output: glibc's vfprintf is large.
    {8192, "printf fprintf sprintf snprintf vprintf vfprintf vsprintf "
           "vsnprintf dprintf __printf_chk __fprintf_chk __sprintf_chk "
           "__snprintf_chk __vfprintf_chk __vsnprintf_chk puts fputs fputc "
           "putc putchar fwrite fflush perror"},
    // C++ allocation; exceptions (the unwinder walks the stack from the
    // throw, and runs no code of the program but destructors and handlers,
    // which are the program's own calls).
    {1024, "_Znwm _Znam _ZdlPv _ZdaPv _ZdlPvm _ZdaPvm _ZnwmSt11align_val_t "
           "_ZdlPvSt11align_val_t _Znwj _Znaj _ZdlPvj"},
    {8192, "__cxa_allocate_exception __cxa_free_exception __cxa_throw "
           "__cxa_rethrow __cxa_begin_catch __cxa_end_catch "
           "__cxa_call_unexpected _Unwind_Resume __cxa_guard_acquire "
           "__cxa_guard_release __cxa_guard_abort __cxa_atexit "
           "__cxa_pure_virtual _ZSt9terminatev"},
    // Ends of the program: exit runs the atexit handlers, abort the
    // SIGABRT handler; neither is followed.
    {8192, "exit _exit _Exit abort __stack_chk_fail __assert_fail "
           "__assert_func"},
    // ScopeAlloc's hosted runtime: the fast paths are leaves, the slow
    // paths grow the arena (mmap) and report exhaustion through stdio.
    {8192, "__scopealloc_mark __scopealloc_alloc __scopealloc_release "
           "__scopealloc_frame_slow __scopealloc_pool_mark "
           "__scopealloc_pool_alloc __scopealloc_pool_release "
           "__scopealloc_note_frame"},
};

Error parseNumber(StringRef Text, uint64_t &Value, const Twine &Where) {
  if (Text.getAsInteger(10, Value))
    return createStringError(inconvertibleErrorCode(),
                             Where + ": '" + Text +
                                 "' is not a decimal number");
  return Error::success();
}
} // namespace

void addBuiltinAssumptions(Settings &S) {
  for (const Assumption &A : Builtin) {
    SmallVector<StringRef, 64> Names;
    SplitString(A.Names, Names);
    for (StringRef N : Names) {
      S.Assumed[N] = A.Bytes;
      S.AssumedFrom[N] = "built-in";
    }
  }
}

Error readPolicy(StringRef Path, StringRef Tag, StringRef Triple, Settings &S) {
  Expected<std::shared_ptr<const PolicyFile>> File = loadPolicyFile(Path);
  if (!File)
    return File.takeError();
  S.Policy = *File;
  std::vector<const PolicyTarget *> Apply;
  const PolicyTarget *ByTriple =
      Triple.empty() ? nullptr : (*File)->matchTriple(Triple);
  if (ByTriple)
    Apply.push_back(ByTriple);
  const PolicyTarget *ByTag = Tag.empty() ? nullptr : (*File)->findTarget(Tag);
  if (ByTag && ByTag != ByTriple)
    Apply.push_back(ByTag);
  S.SuggestTarget = ByTag ? ByTag : ByTriple;
  if (!S.SuggestTarget) {
    S.SuggestTargetWhy =
        Tag.empty() && Triple.empty()
            ? "no target selected (give --target=<tag> or --triple=<triple>)"
        : !Tag.empty()
            ? "target '" + Tag.str() + "' is not in " + Path.str() +
                  (Triple.empty()
                       ? ""
                       : " and no target's triples match " + Triple.str())
            : "no target's triples match " + Triple.str();
  }
  for (const PolicyTarget *T : Apply) {
    std::string In = "of target '" + T->Name + "' in " + Path.str();
    const BoundFields &B = T->Bounds;
    if (B.StackBound)
      S.StackBound = Limit{*B.StackBound, "'stack-bound' " + In};
    for (const auto &[Entry, Bytes] : B.Entries) {
      S.EntryBounds[Entry] = Limit{Bytes, "'entries' " + In};
      S.Entries.push_back(Entry);
    }
    for (const auto &[Pool, Bytes] : B.PoolSizes)
      S.PoolSizes[Pool] = Limit{Bytes, "'pool-sizes' " + In};
    for (const auto &[Function, Depth] : B.Recursion) {
      S.RecursionDepth[Function] = Depth;
      S.RecursionFrom[Function] = "'recursion' " + In;
    }
  }
  return Error::success();
}

bool declaresBound(const Settings &S) {
  return S.StackBound || !S.EntryBounds.empty() || !S.PoolSizes.empty();
}

Error readConfig(StringRef Path, Settings &S) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError(Buf.getError(),
                             "cannot read config file '" + Path +
                                 "': " + Buf.getError().message());
  SmallVector<StringRef, 64> Lines;
  (*Buf)->getBuffer().split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I) {
    std::string Where = (Path + ":" + Twine(I + 1)).str();
    StringRef Line = Lines[I].split('#').first.trim();
    if (Line.empty())
      continue;
    SmallVector<StringRef, 4> Words;
    SplitString(Line, Words);
    auto Bad = [&](const Twine &Why) {
      return createStringError(inconvertibleErrorCode(),
                               Where + ": " + Why +
                                   " (expected 'entry <f>', "
                                   "'recursion <f> <depth>' "
                                   "or 'assume <f> <bytes>')");
    };
    if (Words[0] == "entry") {
      if (Words.size() != 2)
        return Bad("'entry' takes one function");
      S.Entries.push_back(Words[1].str());
    } else if (Words[0] == "recursion" || Words[0] == "assume") {
      if (Words.size() != 3)
        return Bad("'" + Words[0] + "' takes a function and a number");
      uint64_t N;
      if (Error E = parseNumber(Words[2], N, Where))
        return E;
      if (Words[0] == "recursion") {
        S.RecursionDepth[Words[1]] = N;
        S.RecursionFrom[Words[1]] = Where;
      } else {
        S.Assumed[Words[1]] = N;
        S.AssumedFrom[Words[1]] = Where;
      }
    } else {
      return Bad("unknown setting '" + Words[0] + "'");
    }
  }
  return Error::success();
}

Error parseAssignment(StringRef Text, StringRef Option,
                      StringMap<uint64_t> &Into) {
  auto [Name, Number] = Text.rsplit('=');
  uint64_t N;
  if (Name.empty() || Number.empty() || Number.getAsInteger(10, N))
    return createStringError(inconvertibleErrorCode(),
                             "--" + Option + "=" + Text +
                                 ": expected <function>=<decimal number>");
  Into[Name] = N;
  return Error::success();
}

} // namespace bound
} // namespace scopealloc
