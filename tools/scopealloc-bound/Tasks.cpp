//===- Tasks.cpp - The stack bound of each task of a policy ---------------===//
#include "Tasks.h"
#include "PolicyFile.h"
#include "FactsFormat.h"
#include "Scope.h"

#include "llvm/Support/MathExtras.h"

#include "LLVMCompat.h"

namespace scopealloc {
namespace bound {

std::string taskArenaBuffer(llvm::StringRef Arena) {
  return ("scopealloc_task_buffer_" + Arena).str();
}

bool inTaskArena(const Image &Img, const CallGraph &G, const Settings &S,
                 const EntryBound &E, llvm::StringRef Pool) {
  const Settings::Task *T = S.taskOfEntry(G.Nodes[E.Entry.Node].Name);
  if (T && Pool != DefaultPoolName && T->Pools.count(Pool.str()))
    return true;
  return T && !T->Arena.empty() && Pool == DefaultPoolName &&
         Img.DataObjects.count(taskArenaBuffer(T->Arena));
}

std::vector<std::string> addCreatedTasks(const Image &Img, Settings &S) {
  std::vector<std::string> Warnings;
  const bool FP = !Img.FloatingPoint.empty();
  for (const FunctionFacts &R : Img.Records) {
    if (!R.Address)
      continue;
    for (const FunctionFacts::TaskCreation &C : R.TaskCreations) {
      if (S.isTaskEntry(C.Entry))
        continue; // the policy's 'tasks' has it
      Settings::Task T;
      T.Name = C.TaskName.empty() ? C.Entry : C.TaskName;
      if (llvm::any_of(S.Tasks, [&](const Settings::Task &Old) {
            return Old.Name == T.Name;
          }))
        T.Name += " (" + C.Entry + ")";
      T.Entry = C.Entry;
      T.StackSymbol = C.StackSymbol;
      if (C.StackSymbol.empty())
        T.StackBytes = C.StackBytes;
      std::string Where = R.File.empty()
                              ? std::string()
                              : " (" + R.File + ":" +
                                    std::to_string(C.Line ? C.Line : R.Line) +
                                    ")";
      T.From = C.Creator + " in '" + R.Name + "'" + Where;
      llvm::StringRef Family;
      for (const facts::TaskCreator &TC : facts::TaskCreators)
        if (C.Creator == TC.Name)
          Family = TC.Rtos;
      // CMSIS-RTOS2 over FreeRTOS (STM32Cube): the kernel's own creation
      // calls are in the image.
      if (Family == "cmsis-rtos2" &&
          (Img.GlobalFunctions.count("xTaskCreate") ||
           Img.GlobalFunctions.count("xTaskCreateStatic")))
        Family = "freertos";
      if (!S.Rtos.empty())
        T.Rtos = S.Rtos;
      else if (Family == "freertos")
        T.Rtos = FP ? "freertos-cm4f" : "freertos-cm3";
      else
        Warnings.push_back(
            "task '" + T.Name + "' (" + T.From + "): no switch context is "
            "known for " + Family.str() + ": its bound counts none; give the "
            "target's 'rtos' or name the task in 'tasks' with its "
            "'switch-context' (docs/rtos.md)");
      if (!T.StackSymbol.empty() || T.StackBytes) {
        if (!llvm::is_contained(S.Entries, T.Entry))
          S.Entries.push_back(T.Entry);
        S.Tasks.push_back(std::move(T));
      } else {
        Warnings.push_back("task '" + T.Name + "' (" + T.From +
                           "): its stack is not a constant of the call: "
                           "name the task in the policy's 'tasks' with its "
                           "'stack' (docs/rtos.md)");
      }
    }
  }
  return Warnings;
}

std::vector<TaskBound> taskBounds(const Image &Img, const CallGraph &G,
                                  const Settings &S, const Bounds &B) {
  std::vector<TaskBound> Out;
  for (const Settings::Task &T : S.Tasks) {
    TaskBound R;
    R.Task = &T;
    for (const EntryBound &E : B.Entries)
      if (G.Nodes[E.Entry.Node].Name == T.Entry)
        R.Entry = &E;
    if (R.Entry) {
      R.Chain = R.Entry->Stack.Bytes;
      R.Bounded = R.Entry->Stack.Bounded;
    }
    R.ExceptionFrame = S.ExceptionFrame;
    bool FP = !Img.FloatingPoint.empty();
    if (T.SwitchContext) {
      R.SwitchContext = *T.SwitchContext;
      R.SwitchFrom = "its 'switch-context'";
    } else if (const RtosPort *P = findRtosPort(T.Rtos)) {
      R.SwitchContext = FP ? P->SwitchFP : P->Switch;
      R.SwitchFrom =
          ("'rtos: " + P->Name + "'" +
           (FP && P->SwitchFP != P->Switch ? ", with FP state" : "") + ": " +
           P->Why)
              .str();
    }
    bool Over = false;
    R.Bytes = llvm::SaturatingAdd(R.Chain, R.ExceptionFrame, &Over);
    R.Bytes = llvm::SaturatingAdd(R.Bytes, R.SwitchContext, &Over);
    R.Bounded &= !Over;
    if (T.StackBytes) {
      R.StackBytes = T.StackBytes;
      R.StackFrom = llvm::StringRef(T.From).starts_with("'tasks'")
                        ? "'stack' " + T.From
                        : "the stack size given to " + T.From;
    } else if (auto It = Img.DataObjects.find(T.StackSymbol);
               It != Img.DataObjects.end() && It->second) {
      R.StackBytes = It->second;
      R.StackFrom = "the size of " + T.StackSymbol + " in the image";
    } else {
      R.StackProblem = "its stack array '" + T.StackSymbol + "' (" + T.From +
                       ") is not a " +
                       (It == Img.DataObjects.end() ? "" : "sized ") +
                       "data symbol of the image";
    }
    if (!T.Arena.empty()) {
      std::string Buffer = taskArenaBuffer(T.Arena);
      auto It = Img.DataObjects.find(Buffer);
      if (It == Img.DataObjects.end() || !It->second) {
        R.ArenaProblem = "its arena '" + T.Arena + "' (" + T.From +
                         ") has no buffer " + Buffer +
                         " in the image (SCOPEALLOC_DEFINE_TASK_ARENA(" +
                         T.Arena + ", <bytes>) defines it)";
      } else {
        R.ArenaBytes = It->second;
        R.ArenaFrom = "its buffer " + Buffer + " in the image";
      }
      if (R.Entry)
        for (const ResourceBound &P : R.Entry->Pools)
          if (P.Name == DefaultPoolName)
            R.ArenaUse = &P;
    }
    for (const auto &[Pool, Asked] : T.Pools) {
      TaskBound::PoolShare Share;
      Share.Pool = Pool;
      Share.Asked = Asked;
      Share.Bytes = llvm::alignTo(Asked, PoolCapacity::PartitionAlign);
      if (R.Entry)
        for (const ResourceBound &P : R.Entry->Pools)
          if (P.Name == Pool)
            Share.Use = &P;
      R.Shares.push_back(std::move(Share));
    }
    Out.push_back(std::move(R));
  }
  return Out;
}

} // namespace bound
} // namespace scopealloc
