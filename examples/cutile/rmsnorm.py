# RMS normalization: Y = X * rsqrt(mean(X^2) + eps) * W along each row of
# X (M, N).
#
# When a row fits in one tile (N <= max_tile, 8192), rmsnorm_row_kernel loads tm
# whole rows as one (tm, TILE_N) tile, TILE_N the power of two >= N picked
# by the host (padding loads as zero, which the sum of squares ignores):
# X is read once. Longer rows take rmsnorm_loop_kernel, two passes: the
# sum of squares, then the output.
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]

# Rows per block: tm * TILE_N is BLOCK_ELEMS (one row when rows are
# longer). With W (and Bias) held beside the row, an 8192-column row takes
# 160-220 registers a thread without spills; 16384 columns would spill, so
# longer rows take the loop (max_tile).
BLOCK_ELEMS = 4096


@ct.kernel
def rmsnorm_row_kernel(X, W, Y, eps: ct.Constant[float], tm: ConstInt, TILE_N: ConstInt):
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(tm, TILE_N)).astype(ct.float32)
    rstd = ct.rsqrt(ct.sum(x * x, axis=1, keepdims=True) / X.shape[1] + eps)
    w = ct.load(W, index=(0,), shape=(TILE_N,)).astype(ct.float32)
    ct.store(Y, index=(i, 0), tile=(x * rstd * w[None, :]).astype(Y.dtype))


@ct.kernel
def rmsnorm_loop_kernel(X, W, Y, eps: ct.Constant[float], tm: ConstInt, tn: ConstInt):
    i = ct.bid(0)
    tiles = ct.num_tiles(X, axis=1, shape=(tm, tn))
    ss = ct.zeros((tm, 1), dtype=ct.float32)
    for j in range(tiles):
        x = ct.load(X, index=(i, j), shape=(tm, tn)).astype(ct.float32)
        ss += ct.sum(x * x, axis=1, keepdims=True)
    rstd = ct.rsqrt(ss / X.shape[1] + eps)
    for j in range(tiles):
        x = ct.load(X, index=(i, j), shape=(tm, tn)).astype(ct.float32)
        w = ct.load(W, index=(j,), shape=(tn,)).astype(ct.float32)
        ct.store(Y, index=(i, j), tile=(x * rstd * w[None, :]).astype(Y.dtype))


def next_power_of_2(n):
    p = 1
    for _ in range(31):
        if p < n:
            p *= 2
    return p


def rmsnorm(X, W, eps=1e-6, max_tile=8192):
    m, n = X.shape
    Y = torch.empty_like(X)
    tile_n = next_power_of_2(n)
    if tile_n <= max_tile:
        tm = max(1, min(BLOCK_ELEMS // tile_n, 32))
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, tm), 1, 1), rmsnorm_row_kernel, (X, W, Y, eps, tm, tile_n))
    else:
        ct.launch(torch.cuda.current_stream(), (m, 1, 1), rmsnorm_loop_kernel, (X, W, Y, eps, 1, min(max_tile, 2048)))
    return Y


# rmsnorm launched reps times (tilec run --entry bench_rmsnorm prints each
# launch's kernel time; the first is cold).
def bench_rmsnorm(X, W, reps=10):
    Y = rmsnorm(X, W)
    for _ in range(reps - 1):
        Y = rmsnorm(X, W)
    return Y
