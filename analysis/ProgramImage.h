//===- ProgramImage.h - What a call graph is built from ---------*- C++ -*-===//
//
// A whole program as the call graph (CallGraph.h) sees it: the records of
// .scopealloc_facts (docs/facts-format.md), the machine frame sizes, the
// function symbols, the function addresses stored in data (tables, vtables,
// vector tables: the address-taken functions that no record names) and the
// interrupt vector table. scopealloc-bound reads it from a linked ELF file
// (tools/scopealloc-bound/Image.h); the pass's stack-bound fit makes one
// from the whole-program module, with its frame estimates as the frame
// sizes (plugin/placement/BoundFit.h). Addresses are normalised: on ARM
// the Thumb bit is cleared.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_PROGRAMIMAGE_H
#define SCOPEALLOC_PROGRAMIMAGE_H

#include "FunctionFacts.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/ELF.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace scopealloc {
namespace bound {

/// A pool whose memory the image defines (SCOPEALLOC_DEFINE_POOL...).
struct PoolCapacity {
  uint64_t Bytes = 0;
  std::string From;   ///< the symbol it was read from
  bool Buffer = true; ///< From is the buffer, else the pool's struct
  /// Why Bytes is less than the memory From spans ("" when it is not): a
  /// pool's struct whose base is off SCOPEALLOC_MIN_ALIGN, so that its
  /// first frame starts past it.
  std::string Unusable;
  /// A shared pool (SCOPEALLOC_DEFINE_POOL_SHARED...): the partition size
  /// its struct asks for (scopealloc_pool.unrounded); 0 for a plain pool.
  uint64_t PartitionAsked = 0;
  /// The image's runtime cuts a shared pool into partitions, one per
  /// thread (a hosted image); the single-threaded runtime serves it whole.
  bool Partitioned = false;

  /// Bytes per partition: the size asked for, rounded up to
  /// SCOPEALLOC_POOL_ALIGN as the runtime does.
  static constexpr uint64_t PartitionAlign = 64; ///< SCOPEALLOC_POOL_ALIGN
  uint64_t partitionBytes() const {
    return (PartitionAsked + PartitionAlign - 1) / PartitionAlign *
           PartitionAlign;
  }
  /// How many partitions the runtime makes (0: not partitioned).
  uint64_t partitions() const {
    return Partitioned && PartitionAsked ? Bytes / partitionBytes() : 0;
  }
};

struct Image {
  std::string Path;
  std::string Machine; ///< "x86-64", "ARM", ...
  uint16_t EMachine = 0;
  bool Relocatable = false;
  unsigned AddressSize = 8;

  std::vector<FunctionFacts> Records;
  /// .stack_sizes: function address -> bytes of its machine frame.
  std::map<uint64_t, uint64_t> StackSizes;
  /// Defined function symbols: address -> names (global ones first).
  std::map<uint64_t, std::vector<std::string>> FunctionNames;
  /// Global and weak defined functions by name.
  llvm::StringMap<uint64_t> GlobalFunctions;
  /// Every defined function by name, locals included (hidden symbols are
  /// local in a linked image): the addresses of each.
  llvm::StringMap<std::vector<uint64_t>> AllFunctions;
  /// Linked against shared libraries (has .dynamic): an undefined weak
  /// function may still be defined at run time.
  bool Dynamic = false;
  /// Runs under an operating system (a dynamic executable, or one linked
  /// with a C library's startup files): interrupt handlers are not guessed
  /// by their names.
  bool Hosted = false;
  /// Calls through the PLT are bound at their first call (no -z now): the
  /// dynamic linker's resolver then runs on the caller's stack, uncounted.
  bool LazyBinding = false;
  unsigned StackSizeEntries = 0;
  /// Function addresses stored in allocated data, or in dynamic relocations.
  std::set<uint64_t> AddressesInData;
  /// Interrupt vector table (.isr_vector, .vectors, ..., or on Cortex-M
  /// the initial stack pointer and reset vector at the vector base,
  /// wherever its section lies): index, function.
  std::vector<std::pair<unsigned, uint64_t>> Vectors;
  /// Constructors and destructors: the section (.init_array, .fini_array,
  /// .preinit_array, .ctors, .dtors) and the function of each entry.
  std::vector<std::pair<std::string, uint64_t>> Startup;
  /// Pools by name: the size of buffer scopealloc_buffer_<name>, else the
  /// initial limit - base of __scopealloc_pool_<name>.
  std::map<std::string, PoolCapacity> Pools;
  /// Defined data objects by name, with their sizes (a task's stack array,
  /// which a policy's 'tasks' may name).
  std::map<std::string, uint64_t> DataObjects;
  /// plan: static's regions (scopealloc.plan.<entry>): the planned
  /// frames' memory, static data rather than pool use.
  struct StaticRegion {
    uint64_t Bytes;
    bool PerThread;
  };
  std::map<std::string, StaticRegion> StaticRegions;
  /// The stack a bare-metal link reserves, from its linker script: a pair
  /// of symbols around it (__stack_bottom/__stack_top, _sstack/_estack,
  /// __StackLimit/__StackTop, ...), else a section (.stack, .stack_dummy,
  /// .co_stack), else a size symbol (_Min_Stack_Size, __stack_size,
  /// STACK_SIZE, ...). Bytes 0: none found (or a hosted image).
  struct ReservedStack {
    uint64_t Bytes = 0;
    std::string From; ///< "symbols __stack_bottom..__stack_top"
  } Stack;
  /// ARM: why the image's code may use the floating-point unit, or ""
  /// when it does not: .ARM.attributes (Tag_FP_arch, Tag_ABI_VFP_args, as
  /// the linker kept them) or the first instruction that uses it. A
  /// Cortex-M exception taken with FP state active stacks 104 bytes, not
  /// 32 (exceptionFrame, TargetStack.h).
  std::string FloatingPoint;
  /// ARM: what each function's own instructions do to the stack pointer
  /// (tools/scopealloc-bound/ArmCode.h), by address: the bytes they move it
  /// down by, each move once, or why that is not known. It holds what no
  /// .stack_sizes entry does: naked functions, inline asm, assembly.
  struct CodeStack {
    uint64_t Bytes = 0;
    std::string Unknown; ///< "`mov sp, r0` at 0x8000124 moves ..."
  };
  std::map<uint64_t, CodeStack> CodeStacks;
  /// Where the interrupt vector table was found: a section's name, or a
  /// symbol's or an address's when it lies inside another section.
  std::string VectorsFrom;
  /// What could not be read, e.g. a truncated record.
  std::vector<std::string> Problems;

  bool isARM() const { return EMachine == llvm::ELF::EM_ARM; }
  /// \p Address without the Thumb bit on ARM.
  uint64_t normalize(uint64_t Address) const {
    return isARM() ? Address & ~uint64_t(1) : Address;
  }
};

} // namespace bound
} // namespace scopealloc

#endif
