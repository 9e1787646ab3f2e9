# Substitutions shared by the lit suites, so tests read like LLVM's own:
#   %opt %clang %clangxx        the tools of the LLVM the plugin is built for
# and the features (REQUIRES:/UNSUPPORTED:, docs/llvm-versions.md):
#   llvm-15 llvm-16 llvm-19 llvm-22  that LLVM's major version
#   debug-records               debug records (#dbg_declare...), LLVM 19+
#   aarch64-nonlazybind         AArch64 calls through the GOT for
#                               nonlazybind (LLVM 18+): the AArch64 slow
#                               path can be preserve-most
#   pass-plugin-parses-options  clang loads -fpass-plugin= before it parses
#                               -mllvm, so the plugin's options need no
#                               -fplugin= (clang 22)
#   %{llvm-major}               that major version, e.g. 19
#   %{tls-address}              INTRINSIC (llvm.threadlocal.address, 16+) or
#                               GLOBAL (15: a thread_local global is its own
#                               address), for version-aware check prefixes
#   %plugin                     the built ScopeAlloc.so
#   %loadplugin                 -load-pass-plugin %plugin
#   %clangplugin                clang flags that load the plugin (+ -mllvm
#                               options): -fpass-plugin= (and -fplugin=
#                               before clang 22)
#   %prefix %scc %scxx          the test install prefix and its wrappers
#   %scopealloc-bound           the built scopealloc-bound (every build has it)
#   %rtinc %rtlib               the runtime's headers and library
import os
import lit.formats


def configure(config, lit_config, name, suffixes):
    config.name = name
    config.test_format = lit.formats.ShTest(execute_external=False)
    config.suffixes = suffixes
    config.test_source_root = os.path.dirname(config.scopealloc_suite_cfg)
    config.test_exec_root = os.path.join(config.scopealloc_obj_root, "test",
                                         os.path.basename(config.test_source_root))
    # A hung test fails by name after 5 minutes instead of eating the whole
    # suite's ctest timeout in silence (lit needs psutil to kill it).
    try:
        import psutil  # noqa: F401
        lit_config.maxIndividualTestTime = 300
    except ImportError:
        lit_config.note("psutil is missing: no per-test timeout")
    major = config.scopealloc_llvm_major
    config.available_features.add("llvm-%d" % major)
    if major >= 19:
        config.available_features.add("debug-records")
    if major >= 18:
        config.available_features.add("aarch64-nonlazybind")
    if major >= 22:
        config.available_features.add("pass-plugin-parses-options")
    bin_dir = config.llvm_tools_dir
    config.environment["PATH"] = os.pathsep.join(
        [bin_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
    # Deterministic runtime behaviour regardless of the caller's environment.
    for var in ("SCOPEALLOC_STATS", "SCOPEALLOC_RESERVE", "SCOPEALLOC_FLAGS",
                "SCOPEALLOC_COMPILER", "SCOPEALLOC_REPORT_DIR",
                "SCOPEALLOC_RUNTIME", "SCOPEALLOC_ALLOW_PRIVATE_RUNTIME"):
        config.environment.pop(var, None)
    plugin = config.scopealloc_plugin
    prefix = config.scopealloc_install_prefix
    subs = [
        ("%opt", os.path.join(bin_dir, "opt")),
        ("%clangxx", os.path.join(bin_dir, "clang++")),
        ("%clangplugin", "-fpass-plugin=%s" % plugin if major >= 22 else
         "-fpass-plugin=%s -fplugin=%s" % (plugin, plugin)),
        ("%clang", os.path.join(bin_dir, "clang")),
        ("%loadplugin", "-load-pass-plugin " + plugin),
        ("%plugin", plugin),
        ("%scxx", os.path.join(prefix, "bin", "scopealloc-clang++")),
        ("%scc", os.path.join(prefix, "bin", "scopealloc-clang")),
        ("%scopealloc-bound", config.scopealloc_bound),
        ("%prefix", prefix),
        ("%rtinc", os.path.join(config.scopealloc_src_root, "runtime", "include")),
        ("%rtlib", config.scopealloc_runtime),
        ("%srcroot", config.scopealloc_src_root),
        ("%{tls-address}", "INTRINSIC" if major >= 16 else "GLOBAL"),
        ("%{llvm-major}", str(major)),
    ]
    config.substitutions.extend(subs)
