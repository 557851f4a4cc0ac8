# Rotary position embedding on X (S, D), D even, with Cos and Sin (S, D/2):
#   Y[:, :D/2] = X1 * cos - X2 * sin,  Y[:, D/2:] = X2 * cos + X1 * sin,
# X1 and X2 being X's halves (tile indices 0 and 1 of width D/2).
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def rope_kernel(X, Cos, Sin, Y, tm: ConstInt, HALF: ConstInt):
    i = ct.bid(0)
    x1 = ct.load(X, index=(i, 0), shape=(tm, HALF)).astype(ct.float32)
    x2 = ct.load(X, index=(i, 1), shape=(tm, HALF)).astype(ct.float32)
    c = ct.load(Cos, index=(i, 0), shape=(tm, HALF)).astype(ct.float32)
    s = ct.load(Sin, index=(i, 0), shape=(tm, HALF)).astype(ct.float32)
    ct.store(Y, index=(i, 0), tile=(x1 * c - x2 * s).astype(Y.dtype))
    ct.store(Y, index=(i, 1), tile=(x2 * c + x1 * s).astype(Y.dtype))


def rope(X, Cos, Sin):
    s, d = X.shape
    assert d % 2 == 0 and Cos.shape == (s, d // 2) and Sin.shape == Cos.shape
    Y = torch.empty_like(X)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(s, 16), 1, 1), rope_kernel, (X, Cos, Sin, Y, 16, d // 2))
    return Y
