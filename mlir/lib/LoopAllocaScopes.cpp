//===- LoopAllocaScopes.cpp - free loop-body allocas every iteration ------===//
//
// MLIR's loops are allocation scopes (trait AutomaticAllocationScope): a
// memref.alloca whose closest allocation scope is a loop is freed when the
// iteration ends. MLIR 19's lowering of those loops (convert-scf-to-cf,
// lower-affine) does not save and restore the stack pointer, so in LLVM IR
// the alloca takes new memory every iteration. This pass makes the lowering
// keep MLIR's semantics: it brackets the body with llvm.intr.stacksave and
// llvm.intr.stackrestore, which is exactly what memref.alloca_scope lowers
// to, and what ScopeAlloc turns into a mark and a release of the pool.
//
//===----------------------------------------------------------------------===//
#include "scopealloc/mlir/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace scopealloc {

void registerMemRefScopesPass();

namespace {

struct LoopAllocaScopesPass
    : public PassWrapper<LoopAllocaScopesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LoopAllocaScopesPass)

  StringRef getArgument() const final {
    return "scopealloc-loop-alloca-scopes";
  }
  StringRef getDescription() const final {
    return "Free the memref.alloca buffers of loop bodies every iteration "
           "(llvm.intr.stacksave/stackrestore around the body), as MLIR's "
           "allocation-scope semantics say and its lowering forgets";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<LLVM::LLVMDialect>();
  }

  void runOnOperation() override {
    // The loops (allocation scopes that are neither functions nor
    // memref.alloca_scope, which lowers with its own save and restore) and,
    // for each, the regions that allocate directly.
    llvm::SetVector<std::pair<Operation *, Region *>> bodies;
    getOperation().walk([&](memref::AllocaOp alloca) {
      Operation *scope =
          alloca->getParentWithTrait<OpTrait::AutomaticAllocationScope>();
      if (!scope ||
          isa<FunctionOpInterface, memref::AllocaScopeOp, ModuleOp>(scope))
        return;
      for (Region &region : scope->getRegions())
        if (region.isAncestor(alloca->getParentRegion()))
          bodies.insert({scope, &region});
    });
    for (auto [loop, region] : bodies)
      bracket(loop, *region);
  }

  void bracket(Operation *loop, Region &region) {
    if (!region.hasOneBlock()) {
      loop->emitWarning()
          << "memref.alloca in a body of several blocks is not freed every "
             "iteration (scopealloc-loop-alloca-scopes handles one-block "
             "bodies)";
      return;
    }
    Block &body = region.front();
    Operation *terminator = body.getTerminator();
    // A memref made in the iteration and handed on by the terminator would
    // outlive the restore.
    for (Value v : terminator->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (isa<BaseMemRefType>(v.getType()) && def && def->getBlock() == &body) {
        loop->emitWarning()
            << "memref.alloca in this loop's body is not freed every "
               "iteration: the body yields a memref made in the iteration";
        return;
      }
    }
    OpBuilder builder(loop->getContext());
    auto ptrType = LLVM::LLVMPointerType::get(loop->getContext());
    builder.setInsertionPointToStart(&body);
    Value saved =
        LLVM::StackSaveOp::create(builder, loop->getLoc(), ptrType).getResult();
    builder.setInsertionPoint(terminator);
    LLVM::StackRestoreOp::create(builder, loop->getLoc(), saved);
  }
};

} // namespace

std::unique_ptr<Pass> createLoopAllocaScopesPass() {
  return std::make_unique<LoopAllocaScopesPass>();
}

void registerScopeAllocPasses() {
  registerMemRefScopesPass();
  PassRegistration<LoopAllocaScopesPass>();
}

} // namespace scopealloc
