# Row sums: Y[i] = sum_j X[i, j] for any number of columns, accumulated
# in float32 over column tiles (zero padding adds nothing).
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def row_sum_kernel(X, Y, tm: ConstInt, tn: ConstInt):
    i = ct.bid(0)
    acc = ct.zeros((tm,), dtype=ct.float32)
    for j in range(ct.num_tiles(X, axis=1, shape=(tm, tn))):
        acc += ct.sum(ct.load(X, index=(i, j), shape=(tm, tn)).astype(ct.float32), axis=1)
    ct.store(Y, index=(i,), tile=acc.astype(Y.dtype))


def row_sum(X):
    m, _ = X.shape
    Y = torch.empty((m,), dtype=X.dtype, device=X.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 32), 1, 1), row_sum_kernel, (X, Y, 32, 64))
    return Y
