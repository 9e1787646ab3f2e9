# lit suite for build systems driving the installed drivers as a project
# would: autotools (configure probes, libtool, .S, make check), CMake (Ninja
# and Unix Makefiles, with and without ccache, ThinLTO static libraries and
# the binutils names), Meson, and a Makefile with response files. Each
# project is built at limit 0 (SCOPEALLOC_FLAGS, the way docs/integration.md gives to set a
# limit for a whole build) and its program must show demoted frames in
# SCOPEALLOC_STATS=1 output. The projects live in Inputs/.
import os, platform, shutil, sys
config.scopealloc_suite_cfg = __file__
sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
import lit_common
lit_common.configure(config, lit_config, "ScopeAlloc-buildsystems", [".test"])
config.excludes = ["Inputs"]
config.substitutions.append(("%inputs", os.path.join(os.path.dirname(__file__), "Inputs")))
config.substitutions.append(("%logged", "sh " + os.path.join(os.path.dirname(__file__), "Inputs", "logged.sh")))
# A user's PATH: lit puts LLVM 19's bin directory first, where a user's
# shell has Debian's /usr/bin, whose llvm-ar and llvm-nm are LLVM 14's.
config.substitutions.append(("%{user_path}", os.pathsep.join(
    d for d in os.environ.get("PATH", "").split(os.pathsep)
    if d and os.path.realpath(d) != os.path.realpath(config.llvm_tools_dir))))
config.substitutions.append(("%limit0", "-mllvm -scope-alloc-max-stack-alloca=0"))
# The projects' assembly is x86-64.
if platform.machine() in ("x86_64", "AMD64"):
    config.available_features.add("x86_64")
for tool in ("ccache", "meson", "autoreconf", "libtoolize", "ninja", "make"):
    if shutil.which(tool):
        config.available_features.add(tool)
for var in ("HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
