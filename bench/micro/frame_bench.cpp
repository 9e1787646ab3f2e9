// Frame benchmark: the cost of one call of a function with a 2 KiB buffer
// when the buffer is on the stack, demoted to the workspace (inline fast
// path, or runtime calls), or taken from malloc; and the stack and demoted
// frames again in PIC shared libraries (libframe_shared_*.so, the arena
// pointer reached with initial-exec or general-dynamic TLS). All variants
// are the same C source (frames.c) and run in this one process, so the
// ratios against the stack variant compare like with like.
//
// Before timing, a self-check proves the variants are what their names say:
// identical results, one workspace allocation per call for the demoted ones
// and none for the others. It exits non-zero when that fails, so ctest can
// run the benchmark briefly without asserting any timing.
#include "frame_bench_config.h"

#include <benchmark/benchmark.h>
#include <scopealloc/scopealloc.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

extern "C" {
uint32_t frame_stack(uint32_t seed);
uint32_t frame_demoted_inline(uint32_t seed);
uint32_t frame_demoted_call(uint32_t seed);
uint32_t frame_malloc(uint32_t seed);
uint32_t frame_shared_stack(uint32_t seed);
uint32_t frame_shared_inline(uint32_t seed);
uint32_t frame_shared_inline_gd(uint32_t seed);
}

namespace {

// The ratio a demoted frame must stay under (issue 5: at most 1.3x the
// stack frame's time; issue 14: also in a PIC shared library). Applies to
// the inline fast path with the default TLS model; the other rows are
// printed for reference.
constexpr double DemotedFrameTarget = 1.3;

struct Variant {
  const char *Name;
  uint32_t (*Fn)(uint32_t);
  uint64_t WorkspaceAllocsPerCall;
  bool HasTarget;
  bool InSharedLibrary;
};

const Variant Variants[] = {
    {"stack", frame_stack, 0, false, false},
    {"demoted_inline", frame_demoted_inline, 1, true, false},
    {"demoted_call", frame_demoted_call, 1, false, false},
    {"malloc", frame_malloc, 0, false, false},
    {"shared_stack", frame_shared_stack, 0, false, true},
    {"shared_inline", frame_shared_inline, 1, true, true},
    {"shared_inline_gd", frame_shared_inline_gd, 1, false, true},
};

uint64_t workspaceAllocs() {
  scopealloc_stats Stats;
  scopealloc_thread_stats(&Stats);
  return Stats.allocs;
}

// Same results everywhere, and the workspace used exactly by the demoted
// variants: otherwise the timings below would compare different things.
bool selfCheck() {
  constexpr uint32_t Calls = 1000;
  bool Ok = true;
  for (const Variant &V : Variants) {
    uint64_t Before = workspaceAllocs();
    for (uint32_t Seed = 0; Seed < Calls; ++Seed) {
      uint32_t Expected = frame_stack(Seed), Got = V.Fn(Seed);
      if (Got != Expected) {
        std::fprintf(stderr,
                     "frame_bench: frame_%s(%u) returned %u, frame_stack %u\n",
                     V.Name, Seed, Got, Expected);
        return false;
      }
    }
    uint64_t Allocs = workspaceAllocs() - Before;
    if (Allocs != V.WorkspaceAllocsPerCall * Calls) {
      std::fprintf(stderr,
                   "frame_bench: %u calls of frame_%s made %llu workspace "
                   "allocations, expected %llu (was it built as intended?)\n",
                   Calls, V.Name, (unsigned long long)Allocs,
                   (unsigned long long)(V.WorkspaceAllocsPerCall * Calls));
      Ok = false;
    }
  }
  return Ok;
}

void runFrame(benchmark::State &State, uint32_t (*Fn)(uint32_t)) {
  uint32_t Seed = 0;
  for (auto _ : State)
    benchmark::DoNotOptimize(Fn(Seed++));
}

// Keeps Google Benchmark's console output and remembers each variant's CPU
// time (on a busy machine the wall time also counts time spent preempted):
// the median over repetitions when there are several, else the single run.
class SummaryReporter : public benchmark::ConsoleReporter {
public:
  std::map<std::string, double> MedianNs, SingleNs;

  void ReportRuns(const std::vector<Run> &Runs) override {
    ConsoleReporter::ReportRuns(Runs);
    for (const Run &R : Runs) {
      std::string Name = R.run_name.function_name;
      if (R.run_type == Run::RT_Aggregate && R.aggregate_name == "median")
        MedianNs[Name] = R.GetAdjustedCPUTime();
      else if (R.run_type == Run::RT_Iteration && !R.error_occurred)
        SingleNs[Name] = R.GetAdjustedCPUTime();
    }
  }

  bool timeOf(const std::string &Name, double &Ns) const {
    auto It = MedianNs.find(Name);
    if (It == MedianNs.end())
      It = SingleNs.find(Name);
    if (It == SingleNs.end())
      return false;
    Ns = It->second;
    return true;
  }
};

} // namespace

int main(int Argc, char **Argv) {
  if (!selfCheck())
    return 1;
  for (const Variant &V : Variants)
    benchmark::RegisterBenchmark((std::string("frame/") + V.Name).c_str(),
                                 runFrame, V.Fn)
        ->Unit(benchmark::kNanosecond);
  benchmark::Initialize(&Argc, Argv);
  if (benchmark::ReportUnrecognizedArguments(Argc, Argv))
    return 1;
  SummaryReporter Reporter;
  benchmark::RunSpecifiedBenchmarks(&Reporter);
  benchmark::Shutdown();

  double StackNs, SharedStackNs;
  if (!Reporter.timeOf("frame/stack", StackNs) || StackNs <= 0) {
    std::fprintf(stderr, "frame_bench: no time for frame/stack "
                         "(filtered out?), no ratios\n");
    return 0;
  }
  bool HaveSharedStack =
      Reporter.timeOf("frame/shared_stack", SharedStackNs) && SharedStackNs > 0;
  std::printf("\nframe with a %d-byte buffer, ratio to the stack frame "
              "(target: demoted_inline and shared_inline <= %.1fx); "
              "shared_*: in a PIC shared library, also as a ratio to its "
              "stack frame\n",
              FRAME_BUFFER_BYTES, DemotedFrameTarget);
  std::printf("%-16s %10s %8s  %-6s %s\n", "variant", "CPU ns", "ratio",
              "target", "ratio to shared_stack");
  for (const Variant &V : Variants) {
    double Ns;
    if (!Reporter.timeOf(std::string("frame/") + V.Name, Ns))
      continue;
    double Ratio = Ns / StackNs;
    const char *Verdict = !V.HasTarget                  ? "-"
                          : Ratio <= DemotedFrameTarget ? "PASS"
                                                        : "MISS";
    std::printf("%-16s %10.2f %7.2fx  %-6s", V.Name, Ns, Ratio, Verdict);
    if (V.InSharedLibrary && HaveSharedStack)
      std::printf(" %.2fx", Ns / SharedStackNs);
    std::printf("\n");
  }
  if (!FRAME_BENCH_HAVE_FAST_PATH_OPTION)
    std::printf("note: this plugin has no -scope-alloc-inline-fast-path "
                "option: demoted_inline also calls the runtime\n");
  return 0;
}
