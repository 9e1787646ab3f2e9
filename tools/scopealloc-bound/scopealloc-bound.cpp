//===- scopealloc-bound.cpp - Whole-program stack and pool bounds ---------===//
//
// scopealloc-bound [options] <linked ELF image>
//
// Reads the facts the ScopeAlloc pass left in .scopealloc_facts and the
// frame sizes of .stack_sizes, builds the call graph and prints, per entry
// point, the worst-case machine stack and the worst-case use of each pool,
// with the critical chain and each frame's bytes, or why there is no bound.
//
//===----------------------------------------------------------------------===//
#include "BoundSettings.h"
#include "Bounds.h"
#include "CallGraph.h"
#include "Check.h"
#include "Image.h"
#include "Output.h"
#include "PolicyUse.h"
#include "Suggest.h"
#include "Tasks.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace scopealloc::bound;

static cl::OptionCategory Category("scopealloc-bound options");

static cl::opt<std::string> Input(cl::Positional, cl::Required,
                                  cl::desc("<linked ELF image>"),
                                  cl::cat(Category));
static cl::opt<bool> JSON("json", cl::desc("Print JSON instead of text"),
                          cl::cat(Category));
static cl::opt<std::string>
    SVG("svg", cl::value_desc("file"),
        cl::desc("Also write a flame-style chart of the critical stack "
                 "chains (SVG)"),
        cl::cat(Category));
static cl::list<std::string>
    Entries("entry", cl::value_desc("function"), cl::CommaSeparated,
            cl::desc("An entry point besides main, thread start routines, "
                     "interrupt handlers and marked functions"),
            cl::cat(Category));
static cl::list<std::string> RecursionBounds(
    "recursion-bound", cl::value_desc("function=depth"),
    cl::desc("The cycle through <function> holds at most <depth> frames of "
             "its functions at once"),
    cl::cat(Category));
static cl::list<std::string>
    Assume("assume", cl::value_desc("function=bytes"),
           cl::desc("Worst-case stack of a function without facts, callees "
                    "included"),
           cl::cat(Category));
static cl::list<std::string> InterruptPriority(
    "interrupt-priority", cl::value_desc("handler=priority"),
    cl::desc("An interrupt handler's priority: a lower number preempts a "
             "higher one, equal ones do not nest (by default every handler "
             "may preempt every other entry and handler, once)"),
    cl::cat(Category));
static cl::opt<std::string>
    Config("config", cl::value_desc("file"),
           cl::desc("Settings, one a line: 'entry <f>', 'recursion <f> "
                    "<depth>', 'assume <f> <bytes>', 'priority <handler> "
                    "<number>'"),
           cl::cat(Category));
static cl::opt<bool> NoBuiltin(
    "no-builtin-assumptions",
    cl::desc("Assume no size for libc, compiler-rt and runtime functions"),
    cl::cat(Category));
static cl::opt<int64_t> CallOverhead(
    "call-overhead", cl::init(-1), cl::value_desc("bytes"),
    cl::desc("Bytes a call adds to the callee's frame (default: 8 on x86-64, "
             "4 on i386: the return address; else 0)"),
    cl::cat(Category));
static cl::opt<int64_t>
    RedZone("red-zone", cl::init(-1), cl::value_desc("bytes"),
            cl::desc("Bytes a leaf function may use below the stack pointer "
                     "(default: 128 on x86-64, else 0)"),
            cl::cat(Category));
static cl::opt<int64_t> ExceptionFrame(
    "exception-frame", cl::init(-1), cl::value_desc("bytes"),
    cl::desc("Bytes the hardware pushes on entering an interrupt handler "
             "(default: on ARM images with a vector table 32, or 104 when "
             "the image may use the floating-point unit; else 0)"),
    cl::cat(Category));
static cl::opt<std::string>
    Policy("policy", cl::value_desc("file"),
           cl::desc("A policy file (-scope-alloc-policy): the stack bounds, "
                    "pool sizes and recursion depths of its target that "
                    "applies ('stack-bound', 'entries', 'pool-sizes', "
                    "'recursion', 'interrupt-priorities', 'tasks', 'rtos')"),
           cl::cat(Category));
static cl::opt<std::string>
    TargetTag("target", cl::value_desc("tag"),
              cl::desc("The policy file's target (-scope-alloc-target)"),
              cl::cat(Category));
static cl::opt<std::string> TargetTriple(
    "triple", cl::value_desc("triple"),
    cl::desc("The image's target triple: selects the policy file's target "
             "whose 'triples' match it, as the pass does"),
    cl::cat(Category));
static cl::opt<bool> Check(
    "check",
    cl::desc("Print nothing but the bounds that do not hold (a stack over "
             "its bound, a pool smaller than its worst case, an unbounded "
             "result under a bound) and exit 1 if any, and warn about "
             "--policy entries that match nothing; with no bound declared, "
             "check only the image's pool buffers and the stack its linker "
             "script reserves"),
    cl::cat(Category));
static cl::opt<bool>
    WarnOnly("warn-only",
             cl::desc("With --check: report violations as warnings, exit 0"),
             cl::cat(Category));
static cl::opt<bool> DeleteOnFailure(
    "delete-on-failure",
    cl::desc("With --check: delete the image when a bound does not hold, as "
             "a failed link leaves no output"),
    cl::cat(Category));
static cl::opt<std::string> SuggestPolicy(
    "suggest-policy", cl::value_desc("file"),
    cl::desc("Write --policy to <file> with per-function frame budgets in its "
             "target's 'functions' that make the stack bounds hold on a "
             "rebuild"),
    cl::cat(Category));
static cl::opt<bool>
    DumpFacts("dump-facts",
              cl::desc("Print the records as read (also of a relocatable "
                       "object) and stop"),
              cl::cat(Category));

static int fail(const Twine &Message) {
  WithColor::error(errs(), "scopealloc-bound") << Message << '\n';
  return 1;
}

int main(int Argc, char **Argv) {
  InitLLVM X(Argc, Argv);
  cl::HideUnrelatedOptions(Category);
  cl::ParseCommandLineOptions(
      Argc, Argv,
      "scopealloc-bound: worst-case stack and pool use per entry point of a "
      "program linked from objects built through ScopeAlloc\n");

  // The policy first: a --check it declares nothing for holds only the
  // pool buffers of an image it can read (the wrappers run it on every link
  // of an image that defines a pool).
  Settings S;
  if (!Policy.empty())
    if (Error E = readPolicy(Policy, TargetTag, TargetTriple, S))
      return fail(toString(std::move(E)));
  bool BuffersOnly = Check && !declaresBound(S) && SuggestPolicy.empty();
  if (!SuggestPolicy.empty() && Policy.empty())
    return fail("--suggest-policy needs --policy: the file it extends");
  if (!SuggestPolicy.empty() && !S.SuggestTarget)
    return fail("--suggest-policy writes into a target of " + Policy + ": " +
                S.SuggestTargetWhy);

  Expected<Image> Img = loadImage(Input);
  if (!Img && BuffersOnly) {
    consumeError(Img.takeError());
    return 0;
  }
  if (!Img)
    return fail(Input + ": " + toString(Img.takeError()));
  // With no bound declared: the pool buffers, and the stack a linker
  // script reserves, are what an image can overrun
  // (and the stacks of the tasks it creates with constant arguments).
  bool CreatesTasks = llvm::any_of(Img->Records, [](const scopealloc::FunctionFacts &R) {
    return !R.TaskCreations.empty();
  });
  if (BuffersOnly && Policy.empty() &&
      ((Img->Pools.empty() && !Img->Stack.Bytes && !CreatesTasks) ||
       Img->Relocatable))
    return 0;
  if (DumpFacts) {
    dumpFacts(outs(), *Img);
    return 0;
  }
  if (Img->Relocatable)
    return fail(Input + " is a relocatable object: bounds need the linked "
                        "image (--dump-facts prints an object's records)");

  if (!NoBuiltin)
    addBuiltinAssumptions(S);
  setMachineDefaults(*Img, S);
  if (!Config.empty())
    if (Error E = readConfig(Config, S))
      return fail(toString(std::move(E)));
  for (const std::string &E : Entries)
    S.Entries.push_back(E);
  for (const std::string &R : RecursionBounds) {
    if (Error E = parseAssignment(R, "recursion-bound", S.RecursionDepth))
      return fail(toString(std::move(E)));
    StringRef Function = StringRef(R).rsplit('=').first;
    if (Error E = checkDepth(Function, S.RecursionDepth[Function],
                             "--recursion-bound=" + R))
      return fail(toString(std::move(E)));
    S.RecursionFrom[StringRef(R).rsplit('=').first] = "--recursion-bound";
  }
  for (const std::string &A : Assume) {
    if (Error E = parseAssignment(A, "assume", S.Assumed))
      return fail(toString(std::move(E)));
    S.AssumedFrom[StringRef(A).rsplit('=').first] = "--assume";
  }
  for (const std::string &P : InterruptPriority)
    if (Error E = parsePriority(P, S))
      return fail(toString(std::move(E)));
  if (CallOverhead >= 0)
    S.CallOverhead = CallOverhead;
  if (RedZone >= 0)
    S.RedZone = RedZone;
  if (ExceptionFrame >= 0) {
    S.ExceptionFrame = ExceptionFrame;
    S.ExceptionFrameWhy = "--exception-frame";
  }

  // Tasks the image creates with constant arguments, beside the policy's.
  for (const std::string &W : addCreatedTasks(*Img, S))
    WithColor::warning(errs(), "scopealloc-bound") << W << '\n';

  CallGraph G = analyzeImage(*Img, S);
  Bounds B = computeBounds(G, S);
  if (!SuggestPolicy.empty())
    return suggestPolicy(outs(), SuggestPolicy, *Img, G, S) ? 0 : 1;
  if (Check) {
    warnUnmatchedPolicyEntries(errs(), *Img, S);
    CheckResult R = checkBounds(errs(), *Img, G, S, B, WarnOnly);
    if (!R.Violations || WarnOnly)
      return 0;
    // The suggestion reads the image: after a deletion it says how to get
    // one back first, rather than name a file that is gone.
    if (DeleteOnFailure) {
      if (std::error_code EC = sys::fs::remove(Input))
        return fail("cannot delete '" + Input + "': " + EC.message());
      WithColor::note(errs(), "scopealloc-bound")
          << "deleted " << Input << " (--delete-on-failure)\n";
    }
    if (R.StackOver && !Policy.empty())
      WithColor::note(errs(), "scopealloc-bound")
          << (DeleteOnFailure ? "relink keeping the image "
                                "(SCOPEALLOC_BOUND_CHECK=warn), then "
                              : "")
          << "scopealloc-bound --policy=" << Policy
          << (TargetTag.empty() ? "" : " --target=" + TargetTag)
          << (TargetTriple.empty() ? "" : " --triple=" + TargetTriple)
          << " --suggest-policy=<new policy> " << Input
          << " writes per-function frame budgets that make the stack bounds "
             "hold on a rebuild\n";
    return 1;
  }
  if (JSON)
    printJSON(outs(), *Img, G, S, B);
  else
    printText(outs(), *Img, G, S, B);
  if (!SVG.empty()) {
    std::error_code EC;
    raw_fd_ostream OS(SVG, EC, sys::fs::OF_Text);
    if (EC)
      return fail("cannot write '" + SVG + "': " + EC.message());
    printSVG(OS, *Img, G, B);
  }
  return 0;
}
