# C = A @ B with K split SPLIT ways: block (i, j, s) multiplies the s-th
# range of K tiles into a float32 workspace W[s]; a second kernel sums the
# SPLIT partial products into C. (No atomics: the sum is deterministic.)
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def partial_kernel(A, B, W, tm: ConstInt, tn: ConstInt, tk: ConstInt, SPLIT: ConstInt):
    i = ct.bid(0)
    j = ct.bid(1)
    s = ct.bid(2)
    k_tiles = ct.num_tiles(A, axis=1, shape=(tm, tk))
    per_split = ct.cdiv(k_tiles, SPLIT)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(s * per_split, min(k_tiles, (s + 1) * per_split)):
        a = ct.load(A, index=(i, k), shape=(tm, tk))
        b = ct.load(B, index=(k, j), shape=(tk, tn))
        acc = ct.mma(a, b, acc)
    ct.store(W, index=(s, i, j), tile=acc.reshape((1, tm, tn)))


@ct.kernel
def reduce_kernel(W, C, tm: ConstInt, tn: ConstInt, SPLIT: ConstInt):
    i = ct.bid(0)
    j = ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for s in range(SPLIT):
        acc += ct.load(W, index=(s, i, j), shape=(1, tm, tn)).reshape((tm, tn))
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


def split_k_matmul(A, B, split=4):
    tm, tn, tk = 64, 64, 32
    m, _ = A.shape
    _, n = B.shape
    W = torch.empty((split, m, n), dtype=torch.float32, device=A.device)
    C = torch.empty((m, n), dtype=A.dtype, device=A.device)
    grid = (ct.cdiv(m, tm), ct.cdiv(n, tn), split)
    ct.launch(torch.cuda.current_stream(), grid, partial_kernel, (A, B, W, tm, tn, tk, split))
    ct.launch(torch.cuda.current_stream(), (grid[0], grid[1], 1), reduce_kernel, (W, C, tm, tn, split))
    return C
