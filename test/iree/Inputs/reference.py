"""Inputs and NumPy reference of maxpool_grad.mlir (test/iree).

  reference.py inputs DIR        writes DIR/x.npy, DIR/g.npy (seeded)
  reference.py check DIR OUT...  each OUT.npy equals the reference, bit for bit
"""
import sys
import numpy as np

C = 8192


def reference(x, g):
    # For each 4x4 window and channel, the gradient goes to the first
    # maximum (the select is `>=` over a scan where a later equal value
    # wins only if it is >=: with random data there are no ties).
    out = np.zeros((2, 4, 2, 4, C), np.float32)
    for i in range(2):
        for j in range(2):
            w = x[i * 4:i * 4 + 4, j * 4:j * 4 + 4, :].reshape(16, C)
            k = np.argmax(w, axis=0)
            out[i, k // 4, j, k % 4, np.arange(C)] = g[i, j]
    return out


def main(argv):
    if argv[0] == "inputs":
        rng = np.random.default_rng(2026)
        np.save(argv[1] + "/x.npy", rng.standard_normal((8, 8, C)).astype(np.float32))
        np.save(argv[1] + "/g.npy", rng.standard_normal((2, 2, C)).astype(np.float32))
        return 0
    d = argv[1]
    x, g = np.load(d + "/x.npy"), np.load(d + "/g.npy")
    assert len(np.unique(x.reshape(-1, C), axis=0)) == 64, "ties in the input"
    ref = reference(x, g)
    bad = 0
    for name in argv[2:]:
        out = np.load(name)
        same = out.shape == ref.shape and np.array_equal(out, ref)
        print("%s: %s, %d nonzero, %s" % (name.split("/")[-1], "x".join(map(str, out.shape)),
                                         np.count_nonzero(out), "equal to NumPy" if same else "DIFFERENT"))
        bad += not same
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
