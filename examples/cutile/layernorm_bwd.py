# Layer normalization backward, from the forward's saved Mean and Rstd:
#   xhat = (x - mean) * rstd, g = dy * w,
#   dx = (g - mean(g) - xhat * mean(g * xhat)) * rstd   (per row),
#   dw = sum over rows of dy * xhat, db = sum over rows of dy.
# The first kernel computes dx and each row block's partial dw and db; the
# second sums the partials over the row blocks.
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def layernorm_bwd_dx_kernel(X, W, DY, Mean, Rstd, DX, DWp, DBp, tm: ConstInt, TILE_N: ConstInt):
    i = ct.bid(0)
    N = X.shape[1]
    in_row = (ct.arange(TILE_N, dtype=ct.int32) < N)[None, :]
    x = ct.load(X, index=(i, 0), shape=(tm, TILE_N)).astype(ct.float32)
    dy = ct.load(DY, index=(i, 0), shape=(tm, TILE_N)).astype(ct.float32)
    w = ct.load(W, index=(0,), shape=(TILE_N,)).astype(ct.float32)
    mean = ct.load(Mean, index=(i,), shape=(tm,))[:, None]
    rstd = ct.load(Rstd, index=(i,), shape=(tm,))[:, None]
    xhat = ct.where(in_row, (x - mean) * rstd, 0.0)
    g = dy * w
    c1 = ct.sum(g * xhat, axis=1, keepdims=True) / N
    c2 = ct.sum(g, axis=1, keepdims=True) / N
    dx = (g - c2 - xhat * c1) * rstd
    ct.store(DX, index=(i, 0), tile=dx.astype(DX.dtype))
    ct.store(DWp, index=(i, 0), tile=ct.sum(dy * xhat, axis=0, keepdims=True))
    ct.store(DBp, index=(i, 0), tile=ct.sum(dy, axis=0, keepdims=True))


@ct.kernel
def column_sum_kernel(P, Out, tr: ConstInt, tn: ConstInt):
    j = ct.bid(0)
    acc = ct.zeros((tn,), dtype=ct.float32)
    for r in range(ct.num_tiles(P, axis=0, shape=(tr, tn))):
        acc += ct.sum(ct.load(P, index=(r, j), shape=(tr, tn)), axis=0)
    ct.store(Out, index=(j,), tile=acc.astype(Out.dtype))


def next_power_of_2(n):
    p = 1
    for _ in range(31):
        if p < n:
            p *= 2
    return p


def layernorm_backward(X, W, DY, Mean, Rstd):
    m, n = X.shape
    tm = 16
    blocks = ct.cdiv(m, tm)
    DX = torch.empty_like(X)
    DWp = torch.empty((blocks, n), dtype=torch.float32, device=X.device)
    DBp = torch.empty((blocks, n), dtype=torch.float32, device=X.device)
    DW = torch.empty_like(W)
    DB = torch.empty_like(W)
    stream = torch.cuda.current_stream()
    ct.launch(stream, (blocks, 1, 1), layernorm_bwd_dx_kernel,
              (X, W, DY, Mean, Rstd, DX, DWp, DBp, tm, next_power_of_2(n)))
    tn = 64
    ct.launch(stream, (ct.cdiv(n, tn), 1, 1), column_sum_kernel, (DWp, DW, 8, tn))
    ct.launch(stream, (ct.cdiv(n, tn), 1, 1), column_sum_kernel, (DBp, DB, 8, tn))
    return DX, DW, DB
