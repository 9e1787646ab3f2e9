# lit suite for Halide 21 (PyPI `halide`, scripts/setup-venv.sh): the Halide
# client pipeline written with Halide's own Python API
# (../halide/Inputs/blur_generator21.py) as bitcode without the Halide
# runtime, lowered by clang -O2 without and with the installed ScopeAlloc
# (default policy, limit 0, a shared named pool, halide_malloc promotion),
# run with 4 threads and compared (ctest halide21, label client).
import os, platform, subprocess, sys
config.scopealloc_suite_cfg = __file__
sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
import lit_common
lit_common.configure(config, lit_config, "ScopeAlloc-halide21", [".test"])

python = config.scopealloc_client_python
if subprocess.run([python, "-c", "import halide"], capture_output=True).returncode:
    lit_config.fatal("Halide 21 not found in %s: run bash scripts/setup-venv.sh" % python)
if platform.machine() not in ("x86_64", "AMD64"):
    config.unsupported = True

inputs = os.path.join(os.path.dirname(os.path.dirname(__file__)), "halide", "Inputs")
config.substitutions.extend([
    ("%halide_pipeline", "bash %s %s %s %s" % (
        os.path.join(inputs, "pipeline21.sh"), inputs,
        os.path.join(config.llvm_tools_dir, "clang"), python)),
    ("%python", sys.executable),
    ("%inputs", inputs),
])
