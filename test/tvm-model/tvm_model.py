"""A small convolutional net built by TVM itself (tvm.relax.frontend.nn),
used by the TVM model test (check_model.py) and its benchmark
(bench/tvm-model.py). Weights and input come from a fixed seed; nothing is
downloaded.

Its kernels have both kinds of buffer TVM's LowerTVMBuiltin makes: the
padded inputs of conv1 (3x18x18 floats, 3888 B) and conv2 (8x10x10, 3200 B)
are over TVM's kMaxStackAlloca (1024) and become TVMBackendAllocWorkspace
calls; conv3's (2x10x10, 800 B) stays a stack buffer.
"""

import numpy as np
import tvm
from tvm import relax
from tvm.relax.frontend import nn

INPUT_SHAPE = (1, 3, 16, 16)
SEED = 7


class Net(nn.Module):
    def __init__(self):
        self.conv1 = nn.Conv2D(3, 8, 3, stride=2, padding=1)
        self.conv2 = nn.Conv2D(8, 2, 3, padding=1)
        self.conv3 = nn.Conv2D(2, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 8 * 8, 10)

    def forward(self, x):
        x = nn.op.relu(self.conv1(x))
        x = nn.op.relu(self.conv2(x))
        x = nn.op.relu(self.conv3(x))
        x = nn.op.reshape(x, (1, 4 * 8 * 8))
        return nn.op.softmax(self.fc(x), axis=-1)


def relax_module():
    """The model as a Relax IRModule, and its parameters' (name, spec)."""
    spec = {"forward": {"x": nn.spec.Tensor(INPUT_SHAPE, "float32")}}
    return Net().export_tvm(spec)


def arguments(params):
    """The input and the weights, from the fixed seed."""
    rng = np.random.default_rng(SEED)
    args = [rng.standard_normal(INPUT_SHAPE).astype("float32")]
    for _, p in params:
        shape = [int(d) for d in p.shape]
        args.append((rng.standard_normal(shape) * 0.1).astype("float32"))
    return args


def build(target="llvm", system_lib=False):
    """TVM's own build of the model: a Relax VM executable, and the args."""
    mod, params = relax_module()
    ex = relax.build(mod, tvm.target.Target(target), system_lib=system_lib)
    return ex, arguments(params)


class Loaded:
    """An exported model loaded into TVM's runtime, ready to run."""

    def __init__(self, path, args, system_lib=False):
        if system_lib:
            import ctypes

            ctypes.CDLL(path, ctypes.RTLD_GLOBAL)
            lib = tvm.runtime.system_lib()
        else:
            lib = tvm.runtime.load_module(path)
        self.vm = relax.VirtualMachine(lib, tvm.cpu())
        self.args = [tvm.runtime.tensor(a) for a in args]

    def run(self):
        return self.vm["forward"](*self.args).numpy()
