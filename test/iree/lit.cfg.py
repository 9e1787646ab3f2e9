# lit suite for IREE 3.13 (PyPI iree-base-compiler / iree-base-runtime,
# scripts/setup-venv.sh) through scopealloc-iree-bridge (docs/iree.md):
# dispatches IREE emits, downgraded from LLVM 24's IR text to LLVM 22's;
# a max-pool gradient whose dispatch IREE refuses at its 32 KiB stack limit,
# compiled with the check off, its dispatch through ScopeAlloc at limit 0,
# put back into the module at the `hal` phase and run by iree-run-module on
# IREE's worker threads (ctest iree, label client).
import os, platform, subprocess, sys
config.scopealloc_suite_cfg = __file__
sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
import lit_common
lit_common.configure(config, lit_config, "ScopeAlloc-iree", [".test"])

python = config.scopealloc_client_python
if subprocess.run([python, "-c", "import iree.compiler, iree.runtime, numpy"],
                  capture_output=True).returncode:
    lit_config.fatal("IREE 3.13 not found in %s: run bash scripts/setup-venv.sh" % python)
if platform.machine() not in ("x86_64", "AMD64"):
    config.unsupported = True

venv_bin = os.path.dirname(python)
# iree-run-module itself, not the venv's Python wrapper around it (which
# turns a worker's SIGSEGV into exit status 245, hiding it from `not --crash`).
runtime_libs = subprocess.run(
    [python, "-c", "import os, iree._runtime_libs as m; print(os.path.dirname(m.__file__))"],
    capture_output=True, text=True).stdout.strip()
inputs = os.path.join(os.path.dirname(__file__), "Inputs")
target = ("--iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu "
          "--iree-llvmcpu-target-cpu=generic")
config.substitutions.extend([
    ("%iree-compile", os.path.join(venv_bin, "iree-compile")),
    ("%iree-run-module", os.path.join(runtime_libs, "iree-run-module")),
    ("%iree-target", target),
    # The installed bridge; it finds LLVM 22's llvm-as on PATH (lit_common
    # puts LLVM's bin directory first).
    ("%bridge", "%s %s" % (
        sys.executable, os.path.join(config.scopealloc_install_prefix, "bin", "scopealloc-iree-bridge"))),
    ("%vpython", python),
    ("%inputs", inputs),
])
