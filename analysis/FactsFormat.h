//===- FactsFormat.h - Records of section .scopealloc_facts -----*- C++ -*-===//
//
// The binary layout of the per-function records that the pass writes
// (StackFacts.h) and scopealloc-bound reads (tools/scopealloc-bound),
// described in docs/facts-format.md. Constants only: both sides include it.
//
// A record: magic "SAFR", version, address size, two reserved bytes, the
// byte count of the rest (u32), the function's address (relocated), then
// fields (tag, size, payload; ULEB128 tag and size) up to the end. Readers
// skip fields whose tag they do not know, and records of another version.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_FACTSFORMAT_H
#define SCOPEALLOC_FACTSFORMAT_H

#include <cstdint>
#include <string_view>

namespace scopealloc {
namespace facts {

inline constexpr const char *SectionName = ".scopealloc_facts";
inline constexpr char Magic[4] = {'S', 'A', 'F', 'R'};
inline constexpr uint8_t Version = 1;
/// Bytes before the function's address: magic, version, address size,
/// reserved, the u32 byte count.
inline constexpr unsigned HeaderSize = 12;

/// Field tags. The payload of each, in order ("str": ULEB128 length, bytes;
/// "addr": an address of the header's size, relocated):
enum Tag : uint8_t {
  TagName = 1,    ///< bytes: the function's symbol name
  TagFlags = 2,   ///< uleb: Flag bits
  TagType = 3,    ///< bytes: the function's type signature
  TagPool = 4,    ///< str pool ("" = default), uleb frame bytes, uleb align
  TagDynamic = 5, ///< uleb Place, str pool, uleb constant bytes (0 = not
                  ///< constant), uleb align, uleb DynamicFlag bits, str name,
                  ///< uleb line
  TagCall = 6,    ///< addr callee (0: not defined in the module), str
                  ///< callee name, uleb CallFlag bits
  TagIndirectCall = 7,    ///< str type signature, uleb call sites
  TagRef = 8,             ///< addr function, str name, uleb RefFlag bits
  TagSource = 9,          ///< str file, uleb line
  TagRecursionBound = 10, ///< uleb: most frames of its call cycle at once
                          ///< (SCOPEALLOC_RECURSION_BOUND)
  TagStackAlloca = 11,    ///< uleb bytes, uleb align, str name, uleb line,
                          ///< uleb StackAllocaFlag bits: a constant-size
                          ///< allocation kept in the machine frame
  TagTaskCreate = 12,     ///< str creation call (TaskCreators), str task
                          ///< name ("": not a constant), str entry
                          ///< function, str stack array ("": none), uleb
                          ///< stack bytes (0: not a constant), uleb
                          ///< line of the call (0: unknown)
};

/// TagFlags bits.
enum Flag : uint64_t {
  FlagAddressTaken = 1,       ///< used other than as a callee in its module
  FlagEntry = 2,              ///< marked as an entry (scope-alloc-entry)
  FlagExternal = 4,           ///< not of local linkage
  FlagUnknownThreadStart = 8, ///< starts a thread at a routine not known here
  FlagFactsOnly = 16,         ///< compiled with -scope-alloc-facts-only
  /// Its address is handed to code the module does not show: passed to a
  /// call other than as a LibraryCallbacks registration, stored, returned.
  /// (A global's initializer is a table the image's data shows.)
  FlagAddressEscapes = 32,
};

/// TagDynamic place.
enum Place : uint8_t { PlaceStack = 0, PlacePool = 1 };

/// TagDynamic flag bits.
enum DynamicFlag : uint64_t {
  DynamicInCycle = 1, ///< in a CFG cycle: may run many times per call
};

/// TagCall flag bits.
enum CallFlag : uint64_t {
  CallWeak = 1, ///< an extern_weak declaration: may be absent (null)
};

/// TagStackAlloca flag bits.
enum StackAllocaFlag : uint64_t {
  StackAllocaPinned = 1, ///< scope "local"/"global.stack": may not move
};

/// TagRef flag bits: how a library function the record's function calls
/// runs the referenced function (LibraryCallbacks).
enum RefFlag : uint64_t {
  RefThreadStart = 1,   ///< passed as pthread_create's or thrd_create's routine
  RefCallback = 2,      ///< run by the library call before it returns (qsort)
  RefSignalHandler = 4, ///< installed as a signal handler (signal)
  RefExitHandler = 8,   ///< run at exit (atexit)
  RefForkHandler = 16,  ///< run around fork() by the forking thread
  /// run by each exiting thread (thread_local destructors, key destructors)
  RefThreadExitHandler = 32,
};

/// Library functions that run a function passed to them: the argument and
/// the RefFlag its function gets. One table for the pass (which marks the
/// reference) and scopealloc-bound (which adds an edge from the library
/// function to a RefCallback, and makes the others entry points).
struct LibraryCallback {
  const char *Name;
  unsigned Argument;
  RefFlag Kind;
};
inline constexpr LibraryCallback LibraryCallbacks[] = {
    {"pthread_create", 2, RefThreadStart},
    {"thrd_create", 1, RefThreadStart},
    {"qsort", 3, RefCallback},
    {"qsort_r", 3, RefCallback},
    {"bsearch", 4, RefCallback},
    {"lfind", 4, RefCallback},
    {"lsearch", 4, RefCallback},
    {"tsearch", 2, RefCallback},
    {"tfind", 2, RefCallback},
    {"tdelete", 2, RefCallback},
    {"twalk", 1, RefCallback},
    {"twalk_r", 1, RefCallback},
    {"ftw", 1, RefCallback},
    {"nftw", 1, RefCallback},
    {"scandir", 2, RefCallback},
    {"scandir", 3, RefCallback},
    {"pthread_once", 1, RefCallback},
    {"call_once", 1, RefCallback},
    {"scopealloc_for_each_pool", 0, RefCallback},
    {"signal", 1, RefSignalHandler},
    {"bsd_signal", 1, RefSignalHandler},
    {"sysv_signal", 1, RefSignalHandler},
    {"sigset", 1, RefSignalHandler},
    {"atexit", 0, RefExitHandler},
    {"at_quick_exit", 0, RefExitHandler},
    {"on_exit", 0, RefExitHandler},
    {"__cxa_atexit", 0, RefExitHandler},
    {"pthread_atfork", 0, RefForkHandler},
    {"pthread_atfork", 1, RefForkHandler},
    {"pthread_atfork", 2, RefForkHandler},
    {"__cxa_thread_atexit", 0, RefThreadExitHandler},
    {"__cxa_thread_atexit_impl", 0, RefThreadExitHandler},
    {"pthread_key_create", 1, RefThreadExitHandler},
    {"tss_create", 1, RefThreadExitHandler},
};

/// An RTOS's call that creates a task: the arguments that give its entry,
/// name, stack array and stack size (-1: none), and the size's unit, or
/// the attribute structure that holds them. The
/// pass records a call whose entry is a function constant (TagTaskCreate);
/// scopealloc-bound makes it a task of its own stack (docs/rtos.md).
struct TaskCreator {
  const char *Name;
  int Entry, TaskName, Stack, Size;
  bool SizeInWords; ///< FreeRTOS: StackType_t words (pointer-sized here)
  const char *Rtos; ///< "freertos", "zephyr", "threadx", "cmsis-rtos2"
  /// The argument that points to a constant attribute structure holding
  /// the name, stack array and size at these field indices (-1: none):
  /// CMSIS-RTOS2's osThreadAttr_t {name, attr_bits, cb_mem, cb_size,
  /// stack_mem, stack_size, ...}.
  int Attr = -1, AttrName = -1, AttrStack = -1, AttrSize = -1;
};
inline constexpr TaskCreator TaskCreators[] = {
    {"xTaskCreateStatic", 0, 1, 5, 2, true, "freertos"},
    {"xTaskCreate", 0, 1, -1, 2, true, "freertos"},
    {"xTaskCreateStaticAffinitySet", 0, 1, 5, 2, true, "freertos"},
    {"xTaskCreateAffinitySet", 0, 1, -1, 2, true, "freertos"},
    {"k_thread_create", 3, -1, 1, 2, false, "zephyr"},
    {"tx_thread_create", 2, 1, 4, 5, false, "threadx"},
    {"_tx_thread_create", 2, 1, 4, 5, false, "threadx"},
    {"_txe_thread_create", 2, 1, 4, 5, false, "threadx"},
    {"osThreadNew", 0, -1, -1, -1, false, "cmsis-rtos2", 2, 0, 4, 5},
};

/// Whether library function \p Name runs a function passed to it before it
/// returns (a RefCallback of LibraryCallbacks, such as qsort).
inline bool runsCallbackBeforeReturning(std::string_view Name) {
  for (const LibraryCallback &LC : LibraryCallbacks)
    if (LC.Kind == RefCallback && Name == LC.Name)
      return true;
  return false;
}

/// The attribute (from annotate("scope-alloc-entry=1"), SCOPEALLOC_ENTRY)
/// that marks a function as an entry point.
inline constexpr const char *EntryAttr = "scope-alloc-entry";

/// The attribute (from annotate("scope-alloc-recursion-bound=<n>"),
/// SCOPEALLOC_RECURSION_BOUND) that declares the most frames of the
/// function's call cycle on the stack at once.
inline constexpr const char *RecursionBoundAttr = "scope-alloc-recursion-bound";

} // namespace facts
} // namespace scopealloc

#endif
