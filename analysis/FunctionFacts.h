//===- FunctionFacts.h - What one function's facts record says --*- C++ -*-===//
//
// One function's record of .scopealloc_facts, decoded: what the pass writes
// (plugin/facts/StackFacts.cpp encodes it, the stack-bound fit reads it
// before encoding) and what scopealloc-bound reads back from an image. The
// encoding is FactsFormat.h's.
//
//===----------------------------------------------------------------------===//
#ifndef SCOPEALLOC_FUNCTIONFACTS_H
#define SCOPEALLOC_FUNCTIONFACTS_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace scopealloc {

struct FunctionFacts {
  std::string Name;     ///< the function's symbol
  uint64_t Address = 0; ///< in a linked image; 0 before, or in an object
  uint64_t Flags = 0;   ///< facts::Flag bits
  std::string Type;     ///< its type signature (typeSignature)
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
    uint64_t ConstantBytes = 0; ///< 0 = size not a constant
    uint64_t Align = 1;
    uint64_t Flags = 0; ///< facts::DynamicFlag bits
    std::string Name;
    unsigned Line = 0;
  };
  std::vector<Dynamic> Dynamics;
  struct SymbolUse {
    std::string Name;
    /// Defined in the module: the record is relocated against it. Else
    /// (declarations, library calls that code generation introduces such
    /// as memcpy) the tool finds it by name.
    bool Relocatable = true;
    uint64_t Flags = 0;   ///< facts::CallFlag or facts::RefFlag bits
    uint64_t Address = 0; ///< read from an image: 0 when not relocated
  };
  std::vector<SymbolUse> Calls, Refs;
  std::map<std::string, uint64_t> IndirectCalls; ///< type -> call sites
  /// An RTOS task created with a function constant (facts::TaskCreators).
  struct TaskCreation {
    std::string Creator, TaskName, Entry, StackSymbol;
    uint64_t StackBytes = 0; ///< 0: not a constant
    unsigned Line = 0;
  };
  std::vector<TaskCreation> TaskCreations;
  /// SCOPEALLOC_RECURSION_BOUND: frames of its cycle at once (0: none).
  uint64_t RecursionBound = 0;
  /// Constant-size allocations left in the machine frame, what a smaller
  /// max-stack-alloca or frame-budget could move to a pool
  /// (scopealloc-bound --suggest-policy).
  struct StackAlloca {
    uint64_t Bytes = 0, Align = 1;
    std::string Name;
    unsigned Line = 0;
    uint64_t Flags = 0; ///< facts::StackAllocaFlag bits
  };
  std::vector<StackAlloca> StackAllocas;
};

} // namespace scopealloc

#endif
