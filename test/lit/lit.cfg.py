# lit suite for the pass: .ll files through opt, .c files through clang.
import os, sys
config.scopealloc_suite_cfg = __file__
sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
import lit_common
lit_common.configure(config, lit_config, "ScopeAlloc-plugin", [".ll", ".c", ".cpp", ".test"])
config.excludes = ["Inputs"]
