# lit suite for the MLIR route (mlir/): the installed
# scopealloc-mlir-translate and ScopeAllocMLIRPlugin.so with mlir-opt-22, and
# MLIR kernels lowered, translated, compiled through the installed wrappers,
# run and compared with the plain lowering built by plain clang.
#   %mlir_opt            mlir-opt-22
#   %mlir_translate      mlir-translate-22 (upstream)
#   %sa_translate        <prefix>/bin/scopealloc-mlir-translate
#   %mlirplugin          --load-pass-plugin=<prefix>/lib/ScopeAllocMLIRPlugin.so
#   %llvm_include, %llvm_lib   LLVM/MLIR 22's headers and libraries
#   %mlir_lower          the upstream memref/scf/arith/func -> LLVM passes, as
#                        a comma-separated list for --pass-pipeline
import os, sys
config.scopealloc_suite_cfg = __file__
sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
import lit_common
lit_common.configure(config, lit_config, "ScopeAlloc-mlir", [".mlir", ".test"])
config.excludes = ["Inputs"]

bin_dir = config.llvm_tools_dir
prefix = config.scopealloc_install_prefix
lower = ",".join([
    "expand-strided-metadata", "lower-affine", "convert-scf-to-cf",
    "finalize-memref-to-llvm", "convert-arith-to-llvm", "convert-cf-to-llvm",
    "convert-func-to-llvm", "reconcile-unrealized-casts",
])
# Longest names first: lit substitutes in order.
config.substitutions[0:0] = [
    ("%mlir_translate", os.path.join(bin_dir, "mlir-translate")),
    ("%mlir_opt", os.path.join(bin_dir, "mlir-opt")),
    ("%mlir_lower", lower),
    ("%llvm_include", os.path.join(os.path.dirname(bin_dir), "include")),
    ("%llvm_lib", os.path.join(os.path.dirname(bin_dir), "lib")),
    ("%sa_translate", os.path.join(prefix, "bin", "scopealloc-mlir-translate")),
    ("%mlirplugin", "--load-pass-plugin=" +
     os.path.join(prefix, "lib", "ScopeAllocMLIRPlugin.so")),
]
