# SwiGLU's elementwise part on separate gate and up tensors:
# Y = silu(G) * U, with silu(g) = g * sigmoid(g).
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


def sigmoid(x):
    return 1.0 / (1.0 + ct.exp(-x))


@ct.kernel
def swiglu_kernel(G, U, Y, tm: ConstInt, tn: ConstInt):
    i = ct.bid(0)
    j = ct.bid(1)
    g = ct.load(G, index=(i, j), shape=(tm, tn)).astype(ct.float32)
    u = ct.load(U, index=(i, j), shape=(tm, tn)).astype(ct.float32)
    ct.store(Y, index=(i, j), tile=(g * sigmoid(g) * u).astype(Y.dtype))


def swiglu(G, U):
    m, n = G.shape
    Y = torch.empty_like(G)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 32), ct.cdiv(n, 64), 1), swiglu_kernel, (G, U, Y, 32, 64))
    return Y
