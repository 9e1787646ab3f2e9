"""The third model of the tvm-micro test: workspaces that carry a scope.
One TIR kernel (docs/tvm.md's `scaled`) whose two buffers, a 256-byte one
TVM keeps on the stack and a 4 KiB one TVM makes a workspace call, carry
scopealloc_tvm.annotate_scope(..., "global.sram"), called from a Relax
function. The pass makes both buffers of pool `sram`, so the harness
reserves no array for the workspace and TVM's slot is not called."""

import numpy as np
import scopealloc_tvm
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

POOLS = ("sram",)


@I.ir_module
class Scaled:
    @T.prim_func
    def scaled(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "scaled", "tir.noalias": True})
        small = T.alloc_buffer((64,), "float32")    # 256 B: TVM's alloca
        big = T.alloc_buffer((1024,), "float32")    # 4 KiB: TVM's workspace
        T.evaluate(scopealloc_tvm.annotate_scope(small, "global.sram"))
        T.evaluate(scopealloc_tvm.annotate_scope(big, "global.sram"))
        for i in range(64):
            small[i] = A[i] * T.float32(2)
        for i in range(1024):
            big[i] = small[i % 64] + T.float32(i)
        for i in range(64):
            B[i] = small[63 - i] + big[i * 16]

    @R.function
    def forward(x: R.Tensor((64,), "float32")) -> R.Tensor((64,), "float32"):
        cls = Scaled
        y = R.call_tir(cls.scaled, (x,), out_ty=R.Tensor((64,), "float32"))
        return y


def relax_module():
    return Scaled, []


def arguments(params):
    return [np.arange(64, dtype="float32") - 20]
