# Row softmax for any row length: one block per tm rows; the first loop
# keeps each row's running max and sum of exponentials (online softmax),
# the second writes exp(x - max) / sum. Padding loads as -inf.
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def softmax_kernel(X, Y, tm: ConstInt, tn: ConstInt):
    i = ct.bid(0)
    tiles = ct.num_tiles(X, axis=1, shape=(tm, tn))
    row_max = ct.full((tm, 1), float("-inf"), dtype=ct.float32)
    row_sum = ct.zeros((tm, 1), dtype=ct.float32)
    for j in range(tiles):
        x = ct.load(X, index=(i, j), shape=(tm, tn), padding_mode=ct.PaddingMode.NEG_INF).astype(ct.float32)
        new_max = ct.maximum(row_max, x.max(axis=1, keepdims=True))
        row_sum = row_sum * ct.exp(row_max - new_max) + ct.exp(x - new_max).sum(axis=1, keepdims=True)
        row_max = new_max
    for j in range(tiles):
        x = ct.load(X, index=(i, j), shape=(tm, tn), padding_mode=ct.PaddingMode.NEG_INF).astype(ct.float32)
        ct.store(Y, index=(i, j), tile=(ct.exp(x - row_max) / row_sum).astype(Y.dtype))


def softmax(X):
    m, _ = X.shape
    Y = torch.empty_like(X)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 16), 1, 1), softmax_kernel, (X, Y, 16, 64))
    return Y
