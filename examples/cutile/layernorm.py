# Layer normalization forward: Y = (X - mean) * rstd * W + Bias per row,
# rstd = 1 / sqrt(var + eps); Mean and Rstd are saved for the backward
# pass. One block per tm rows; a row is one tile of TILE_N >= N columns
# (padded columns are masked out of the variance).
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def layernorm_fwd_kernel(X, W, Bias, Y, Mean, Rstd, eps: ct.Constant[float], tm: ConstInt, TILE_N: ConstInt):
    i = ct.bid(0)
    N = X.shape[1]
    x = ct.load(X, index=(i, 0), shape=(tm, TILE_N)).astype(ct.float32)
    mean = ct.sum(x, axis=1, keepdims=True) / N
    in_row = (ct.arange(TILE_N) < N)[None, :]
    xc = ct.where(in_row, x - mean, 0.0)
    rstd = ct.rsqrt(ct.sum(xc * xc, axis=1, keepdims=True) / N + eps)
    w = ct.load(W, index=(0,), shape=(TILE_N,)).astype(ct.float32)
    b = ct.load(Bias, index=(0,), shape=(TILE_N,)).astype(ct.float32)
    ct.store(Y, index=(i, 0), tile=(xc * rstd * w + b).astype(Y.dtype))
    ct.store(Mean, index=(i,), tile=mean.reshape((tm,)))
    ct.store(Rstd, index=(i,), tile=rstd.reshape((tm,)))


def next_power_of_2(n):
    p = 1
    for _ in range(31):
        if p < n:
            p *= 2
    return p


def layernorm(X, W, Bias, eps=1e-5):
    m, n = X.shape
    tm = 16
    Y = torch.empty_like(X)
    Mean = torch.empty((m,), dtype=torch.float32, device=X.device)
    Rstd = torch.empty((m,), dtype=torch.float32, device=X.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, tm), 1, 1), layernorm_fwd_kernel,
              (X, W, Bias, Y, Mean, Rstd, eps, tm, next_power_of_2(n)))
    return Y, Mean, Rstd
