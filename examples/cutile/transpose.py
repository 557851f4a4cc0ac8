# Y = X^T: block (i, j) loads the tm x tn tile (i, j) of X and stores its
# transpose as tile (j, i) of Y.
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def transpose_kernel(X, Y, tm: ConstInt, tn: ConstInt):
    i = ct.bid(0)
    j = ct.bid(1)
    t = ct.load(X, index=(i, j), shape=(tm, tn))
    ct.store(Y, index=(j, i), tile=ct.transpose(t))


def transpose(X):
    tm, tn = 32, 64
    m, n = X.shape
    Y = torch.empty((n, m), dtype=X.dtype, device=X.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, tm), ct.cdiv(n, tn), 1), transpose_kernel, (X, Y, tm, tn))
    return Y
