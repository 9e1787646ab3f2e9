# lit suite for whole programs: built with plain clang and with the installed
# scopealloc-clang wrappers (-O0/-O2, default policy and limit 0), run, and
# their outputs compared.
import os, sys
config.scopealloc_suite_cfg = __file__
sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
import lit_common
lit_common.configure(config, lit_config, "ScopeAlloc-e2e", [".c", ".cpp", ".test"])
config.excludes = ["Inputs"]

import shutil
if shutil.which("gdb"):
    config.available_features.add("gdb")
if shutil.which("valgrind"):
    config.available_features.add("valgrind")

# Sanitizer programs: clang 19 must link -fsanitize=thread|memory|address
# (the runtimes come with libclang-rt-19-dev).
import subprocess, tempfile
with tempfile.TemporaryDirectory() as tmp:
    probe = os.path.join(tmp, "probe.c")
    with open(probe, "w") as f:
        f.write("int main(void) { return 0; }\n")
    for feature, sanitizer in (("tsan", "thread"), ("msan", "memory"),
                               ("asan", "address")):
        if subprocess.call([os.path.join(config.llvm_tools_dir, "clang"),
                            "-fsanitize=" + sanitizer, probe, "-o",
                            os.path.join(tmp, "probe")],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL) == 0:
            config.available_features.add(feature)
