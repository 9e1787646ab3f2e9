# lit suite for whole programs: built with plain clang and with the installed
# scopealloc-clang wrappers (-O0/-O2, default policy and limit 0), run, and
# their outputs compared.
import os, sys
config.scopealloc_suite_cfg = __file__
sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
import lit_common
lit_common.configure(config, "ScopeAlloc-e2e", [".c", ".cpp", ".test"])
config.excludes = ["Inputs"]

import shutil
if shutil.which("gdb"):
    config.available_features.add("gdb")
