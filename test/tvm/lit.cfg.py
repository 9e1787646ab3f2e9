# lit suite for libscopealloc_tvm (TVM's workspace ABI over the arena):
# programs built the way TVM's generated code is, with plain clang and with
# the installed scopealloc-clang, linked against the installed libraries.
import os, sys
config.scopealloc_suite_cfg = __file__
sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
import lit_common
lit_common.configure(config, lit_config, "ScopeAlloc-tvm", [".c", ".test"])
config.excludes = ["Inputs"]
config.substitutions.append(
    ("%tvmlibs", "%s %s -lpthread -lm" % (
        os.path.join(config.scopealloc_install_prefix, "lib", "libscopealloc_tvm.a"),
        os.path.join(config.scopealloc_install_prefix, "lib", "libscopealloc_rt.a"))))
