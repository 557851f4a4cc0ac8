# Layer normalization forward: Y = (X - mean) * rstd * W + Bias along each
# row of X (M, N), rstd = 1 / sqrt(var + eps); Mean and Rstd (float32) are
# saved for the backward pass (layernorm_bwd.py).
#
# When a row fits in one tile (N <= max_tile, 8192), layernorm_row_kernel loads
# tm whole rows as one (tm, TILE_N) tile, TILE_N the power of two >= N
# picked by the host, and computes mean, variance (of the centered values,
# padded columns masked out) and output from registers: X is read once.
# Longer rows take layernorm_loop_kernel, two passes over the row: the
# first merges each chunk's mean and sum of squared deviations into the
# row's (Chan et al.'s parallel variance: no cancellation, unlike
# E[x^2] - E[x]^2), the second writes the output.
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]

# Rows per block: tm * TILE_N is BLOCK_ELEMS (one row when rows are
# longer). With W (and Bias) held beside the row, an 8192-column row takes
# 160-220 registers a thread without spills; 16384 columns would spill, so
# longer rows take the loop (max_tile).
BLOCK_ELEMS = 4096


@ct.kernel
def layernorm_row_kernel(X, W, Bias, Y, Mean, Rstd, eps: ct.Constant[float], tm: ConstInt, TILE_N: ConstInt):
    i = ct.bid(0)
    N = X.shape[1]
    x = ct.load(X, index=(i, 0), shape=(tm, TILE_N)).astype(ct.float32)
    mean = ct.sum(x, axis=1, keepdims=True) / N
    xc = ct.where((ct.arange(TILE_N, dtype=ct.int32) < N)[None, :], x - mean, 0.0)
    rstd = ct.rsqrt(ct.sum(xc * xc, axis=1, keepdims=True) / N + eps)
    w = ct.load(W, index=(0,), shape=(TILE_N,)).astype(ct.float32)
    b = ct.load(Bias, index=(0,), shape=(TILE_N,)).astype(ct.float32)
    ct.store(Y, index=(i, 0), tile=(xc * rstd * w[None, :] + b[None, :]).astype(Y.dtype))
    ct.store(Mean, index=(i,), tile=mean.reshape((tm,)))
    ct.store(Rstd, index=(i,), tile=rstd.reshape((tm,)))


@ct.kernel
def layernorm_loop_kernel(X, W, Bias, Y, Mean, Rstd, eps: ct.Constant[float], tm: ConstInt, tn: ConstInt):
    i = ct.bid(0)
    N = X.shape[1]
    tiles = ct.num_tiles(X, axis=1, shape=(tm, tn))
    mean = ct.zeros((tm, 1), dtype=ct.float32)
    m2 = ct.zeros((tm, 1), dtype=ct.float32)
    for j in range(tiles):
        x = ct.load(X, index=(i, j), shape=(tm, tn)).astype(ct.float32)
        seen = j * tn
        n = min(tn, N - seen)
        chunk_mean = ct.sum(x, axis=1, keepdims=True) / n
        xc = ct.where((seen + ct.arange(tn, dtype=ct.int32) < N)[None, :], x - chunk_mean, 0.0)
        delta = chunk_mean - mean
        frac = n / (seen + n)
        mean = mean + delta * frac
        m2 = m2 + ct.sum(xc * xc, axis=1, keepdims=True) + delta * delta * (seen * frac)
    rstd = ct.rsqrt(m2 / N + eps)
    for j in range(tiles):
        x = ct.load(X, index=(i, j), shape=(tm, tn)).astype(ct.float32)
        w = ct.load(W, index=(j,), shape=(tn,)).astype(ct.float32)
        b = ct.load(Bias, index=(j,), shape=(tn,)).astype(ct.float32)
        ct.store(Y, index=(i, j), tile=((x - mean) * rstd * w[None, :] + b[None, :]).astype(Y.dtype))
    ct.store(Mean, index=(i,), tile=mean.reshape((tm,)))
    ct.store(Rstd, index=(i,), tile=rstd.reshape((tm,)))


def next_power_of_2(n):
    p = 1
    for _ in range(31):
        if p < n:
            p *= 2
    return p


def layernorm(X, W, Bias, eps=1e-5, max_tile=8192):
    m, n = X.shape
    Y = torch.empty_like(X)
    Mean = torch.empty((m,), dtype=torch.float32, device=X.device)
    Rstd = torch.empty((m,), dtype=torch.float32, device=X.device)
    tile_n = next_power_of_2(n)
    if tile_n <= max_tile:
        tm = max(1, min(BLOCK_ELEMS // tile_n, 32))
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, tm), 1, 1), layernorm_row_kernel,
                  (X, W, Bias, Y, Mean, Rstd, eps, tm, tile_n))
    else:
        # 1024-column chunks: at 2048, ptxas 12.4 keeps the f16 loop to 64
        # registers for sm_90a and spills.
        ct.launch(torch.cuda.current_stream(), (m, 1, 1), layernorm_loop_kernel,
                  (X, W, Bias, Y, Mean, Rstd, eps, 1, min(max_tile, 1024)))
    return Y, Mean, Rstd


# layernorm launched reps times (tilec run --entry bench_layernorm prints
# each launch's kernel time; the first is cold).
def bench_layernorm(X, W, Bias, reps=10):
    Y, Mean, Rstd = layernorm(X, W, Bias)
    for _ in range(reps - 1):
        Y, Mean, Rstd = layernorm(X, W, Bias)
    return Y
