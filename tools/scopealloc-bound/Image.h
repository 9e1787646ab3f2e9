//===- Image.h - What scopealloc-bound reads from an ELF file ---*- C++ -*-===//
//
// Loads a linked executable or firmware image (or, for --dump-facts, a
// relocatable object): the records of .scopealloc_facts
// (docs/facts-format.md), the machine frame sizes of .stack_sizes, the
// function symbols, the function addresses stored in data (tables, vtables,
// vector tables: the address-taken functions that no record names) and the
// interrupt vector table. Addresses are normalised: on ARM the Thumb bit is
// cleared.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_BOUND_IMAGE_H
#define SCOPEALLOC_BOUND_IMAGE_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace scopealloc {
namespace bound {

/// One function's record, decoded.
struct FactsRecord {
  uint64_t Address = 0; ///< 0 in a relocatable object
  std::string Name;
  uint64_t Flags = 0; ///< facts::Flag bits
  std::string Type;
  std::string File;
  unsigned Line = 0;
  struct Pool {
    std::string Name; ///< "" = the default pool
    uint64_t FrameBytes = 0, Align = 1;
  };
  std::vector<Pool> Pools;
  struct Dynamic {
    uint8_t Place = 0; ///< facts::Place
    std::string Pool;
    uint64_t ConstantBytes = 0, Align = 1, Flags = 0;
    std::string Name;
    unsigned Line = 0;
  };
  std::vector<Dynamic> Dynamics;
  struct SymbolUse {
    uint64_t Address = 0; ///< 0: not relocated, or not in the image
    std::string Name;
    uint64_t Flags = 0; ///< facts::CallFlag or facts::RefFlag bits
  };
  std::vector<SymbolUse> Calls, Refs;
  std::vector<std::pair<std::string, uint64_t>> IndirectCalls; ///< type, sites
  uint64_t RecursionBound = 0; ///< SCOPEALLOC_RECURSION_BOUND, 0: none
  struct StackAlloca {
    uint64_t Bytes = 0, Align = 1;
    std::string Name;
    unsigned Line = 0;
    uint64_t Flags = 0; ///< facts::StackAllocaFlag bits
  };
  std::vector<StackAlloca> StackAllocas;
};

/// A pool whose memory the image defines (SCOPEALLOC_DEFINE_POOL...).
struct PoolCapacity {
  uint64_t Bytes = 0;
  std::string From;   ///< the symbol it was read from
  bool Buffer = true; ///< From is the buffer, else the pool's struct
};

struct Image {
  std::string Path;
  std::string Machine; ///< "x86-64", "ARM", ...
  uint16_t EMachine = 0;
  bool Relocatable = false;
  unsigned AddressSize = 8;

  std::vector<FactsRecord> Records;
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
  /// Calls through the PLT are bound at their first call (no -z now): the
  /// dynamic linker's resolver then runs on the caller's stack, uncounted.
  bool LazyBinding = false;
  unsigned StackSizeEntries = 0;
  /// Function addresses stored in allocated data, or in dynamic relocations.
  std::set<uint64_t> AddressesInData;
  /// Interrupt vector table (.isr_vector, .vectors, ...): index, function.
  std::vector<std::pair<unsigned, uint64_t>> Vectors;
  /// Constructors and destructors: the section (.init_array, .fini_array,
  /// .preinit_array, .ctors, .dtors) and the function of each entry.
  std::vector<std::pair<std::string, uint64_t>> Startup;
  /// Pools by name: the size of buffer scopealloc_buffer_<name>, else the
  /// initial limit - base of __scopealloc_pool_<name>.
  std::map<std::string, PoolCapacity> Pools;
  /// What could not be read, e.g. a truncated record.
  std::vector<std::string> Problems;

  bool isARM() const;
  /// \p Address without the Thumb bit on ARM.
  uint64_t normalize(uint64_t Address) const;
};

/// Reads the file at \p Path. A section that cannot be read (an offset,
/// size, index or count past what the file holds) is an error naming it;
/// a malformed record of .scopealloc_facts is one of Image::Problems.
llvm::Expected<Image> loadImage(llvm::StringRef Path);
/// The same from memory; Image::Path is the buffer's identifier.
llvm::Expected<Image> readImage(llvm::MemoryBufferRef Buffer);

} // namespace bound
} // namespace scopealloc

#endif
