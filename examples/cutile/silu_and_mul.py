# silu_and_mul: X (M, 2N) holds the gate and the up projection side by
# side; Y = silu(X[:, :N]) * X[:, N:], silu(g) = g / (1 + exp(-g)). The up
# half starts at column tile N / tn, so tn divides N (the host picks it).
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def silu_and_mul_kernel(X, Y, tm: ConstInt, tn: ConstInt):
    i = ct.bid(0)
    j = ct.bid(1)
    half = Y.shape[1] // tn
    g = ct.load(X, index=(i, j), shape=(tm, tn)).astype(ct.float32)
    u = ct.load(X, index=(i, j + half), shape=(tm, tn)).astype(ct.float32)
    ct.store(Y, index=(i, j), tile=(g / (1.0 + ct.exp(-g)) * u).astype(Y.dtype))


def silu_and_mul(X):
    m, n2 = X.shape
    n = n2 // 2
    tn = 1
    for _ in range(7):
        if n % (2 * tn) == 0:
            tn *= 2
    Y = torch.empty((m, n), dtype=X.dtype, device=X.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 16), n // tn, 1), silu_and_mul_kernel, (X, Y, 16, tn))
    return Y
