"""The second model of the tvm-micro test: a depthwise-separable block
built by TVM itself (tvm.relax.frontend.nn), no softmax, so every float
operation is a multiply, an add or a max: a depthwise 3x3 convolution
(its padded input, 4x22x22 floats = 7744 B, is a TVM workspace), a
pointwise 1x1 convolution with stride 2, ReLU and a dense layer, on a
1x4x20x20 input. Weights and input come from a fixed seed."""

import numpy as np
from tvm.relax.frontend import nn

INPUT_SHAPE = (1, 4, 20, 20)
SEED = 11


class DWNet(nn.Module):
    def __init__(self):
        self.dw = nn.Conv2D(4, 4, 3, padding=1, groups=4)
        self.pw = nn.Conv2D(4, 8, 1, stride=2)
        self.fc = nn.Linear(8 * 10 * 10, 6)

    def forward(self, x):
        x = nn.op.relu(self.dw(x))
        x = nn.op.relu(self.pw(x))
        return self.fc(nn.op.reshape(x, (1, 8 * 10 * 10)))


def relax_module():
    spec = {"forward": {"x": nn.spec.Tensor(INPUT_SHAPE, "float32")}}
    return DWNet().export_tvm(spec)


def arguments(params):
    rng = np.random.default_rng(SEED)
    args = [rng.standard_normal(INPUT_SHAPE).astype("float32")]
    for _, p in params:
        shape = [int(d) for d in p.shape]
        args.append((rng.standard_normal(shape) * 0.1).astype("float32"))
    return args
