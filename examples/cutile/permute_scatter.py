# A permutation by scatter: Y[p(i)] = X[i] with p(i) = (i * STRIDE) % n, a
# bijection of 0..n-1 when STRIDE and n are coprime (STRIDE is a prime
# larger than any n used here). One tile of i per block.
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
STRIDE = 7919


@ct.kernel
def permute_scatter_kernel(X, Y, n: int, TILE: ConstInt):
    i = ct.bid(0) * TILE + ct.arange(TILE, dtype=ct.int32)
    p = (ct.astype(i, ct.int64) * STRIDE) % n
    x = ct.gather(X, i)
    ct.scatter(Y, ct.where(i < n, p, -1), x)


def permute_scatter(X):
    TILE = 256
    n = X.shape[0]
    Y = torch.empty_like(X)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(n, TILE), 1, 1), permute_scatter_kernel, (X, Y, n, TILE))
    return Y
