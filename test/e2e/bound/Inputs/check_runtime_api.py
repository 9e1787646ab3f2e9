#!/usr/bin/env python3
"""Checks the assumed sizes of the runtime's public API against the runtime.

  check_runtime_api.py PREFIX RUNTIME_DIR ASSUMPTIONS PROGRAM.c WORKDIR

Every function that runtime/include/scopealloc/scopealloc.h declares, and
every constructor and destructor of the runtime, needs an 'assume' line in
ASSUMPTIONS (analysis/assumptions.conf): a
program links the hosted runtime without facts, so a call into the API (or,
statically linked, its constructors as entry points) is otherwise "a call
into code without facts". The sizes are measured
as the freestanding runtime's are (test/baremetal/cross-links.sh): the
runtime's sources built with frame sizes and the pass's records, nothing
rewritten (-scope-alloc-facts-only), linked with PROGRAM.c (which calls
every function), and each function bounded as an entry point by
scopealloc-bound. The sanitizer hooks (weak, absent from a plain build)
count 0; the cycle that matching indirect calls by type finds through the
exit-time statistics counts 5 frames (its length). Prints one line per
function; exits 1 when one is missing or measures over its assumption.
"""
import json
import os
import re
import subprocess
import sys

# SCOPEALLOC_RT_SOURCES of runtime/CMakeLists.txt, and runtime_identity.c.
SOURCES = ["tool_hooks", "exhaustion", "arena", "stats", "named_pool",
           "guard_fault", "thread_arena", "fiber", "asan_names", "runtime_identity"]
MEASURE = """
assume __msan_unpoison 0
assume __tsan_release 0
assume __tsan_acquire 0
assume __asan_poison_memory_region 0
assume __asan_unpoison_memory_region 0
assume __asan_get_report_address 0
assume __asan_address_is_poisoned 0
assume sa_loaded_pools 0
recursion pthread_once 2
recursion sa_print_stats_at_exit 5
"""


def main():
    prefix, runtime, table, program, work = sys.argv[1:6]
    scc = os.path.join(prefix, "bin", "scopealloc-clang")
    tool = os.path.join(prefix, "bin", "scopealloc-bound")
    header = open(os.path.join(runtime, "include", "scopealloc",
                               "scopealloc.h")).read()
    header = re.sub(r"/\*.*?\*/", "", header, flags=re.S)
    # scopealloc_freestanding_failure: the program's, on bare metal (the
    # hosted runtime neither defines nor calls it). scopealloc_task_*: the
    # bare-metal runtimes' task arenas (task_arena.c, docs/rtos.md), which
    # an image links with its facts, so that no size is assumed for them.
    api = sorted(name for name in
                 set(re.findall(r"\b(scopealloc_[a-z0-9_]+)\s*\(", header))
                 - {"scopealloc_freestanding_failure"}
                 if not name.startswith("scopealloc_task_"))
    assumed = {}
    for line in open(table):
        words = line.split("#")[0].split()
        if len(words) == 3 and words[0] == "assume":
            assumed[words[1]] = int(words[2])
    objects = []
    for name in SOURCES:
        obj = os.path.join(work, "rt_%s.o" % name)
        subprocess.run([scc, "-std=c11", "-O2", "-fPIC", "-fstack-size-section",
                        "-mllvm", "-scope-alloc-facts-only", "-c",
                        os.path.join(runtime, "src", name + ".c"), "-o", obj],
                       check=True)
        objects.append(obj)
    prog_o = os.path.join(work, "api.o")
    image = os.path.join(work, "api")
    subprocess.run([scc, "-O2", "-c", program, "-o", prog_o], check=True)
    subprocess.run(["clang", prog_o] + objects + ["-lpthread", "-ldl", "-o",
                                                  image], check=True)
    config = os.path.join(work, "measure.cfg")
    open(config, "w").write(MEASURE)
    # The runtime's constructors and destructors are entry points of every
    # image that links it statically: they need assumptions too.
    doc = json.loads(subprocess.run([tool, "--json", "--config=" + config,
                                     image], check=True, capture_output=True,
                                    text=True).stdout)
    startup = sorted(e["function"] for e in doc["entries"]
                     if e["kind"].startswith(("constructor", "destructor"))
                     and not e["stack"]["chain"][0].get("assumed"))
    failed = False
    for name in api + startup:
        if name not in assumed:
            print("error: %s: no assumed size in %s" % (name, table))
            failed = True
            continue
        out = subprocess.run([tool, "--json", "--config=" + config,
                              "--entry=" + name, image], check=True,
                             capture_output=True, text=True).stdout
        doc = json.loads(out)
        entry = [e for e in doc["entries"] if e["function"] == name]
        if not entry or not entry[0]["stack"]["bounded"]:
            print("error: %s: no bound in the measured runtime" % name)
            failed = True
            continue
        # An assumption excludes the return address into the function.
        bytes = entry[0]["stack"]["bytes"] - doc["call_overhead"]
        ok = bytes <= assumed[name]
        failed |= not ok
        print("%s: %s measured %d bytes, assumed %d" %
              ("ok" if ok else "error", name, bytes, assumed[name]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
