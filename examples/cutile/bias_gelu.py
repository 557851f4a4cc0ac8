# Y = gelu(X + bias) with the tanh approximation, bias broadcast along
# rows: gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
import cuda.tile as ct
import torch
import math

ConstInt = ct.Constant[int]
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


@ct.kernel
def bias_gelu_kernel(X, Bias, Y, tm: ConstInt, tn: ConstInt):
    i = ct.bid(0)
    j = ct.bid(1)
    x = ct.load(X, index=(i, j), shape=(tm, tn)).astype(ct.float32)
    x = x + ct.load(Bias, index=(j,), shape=(tn,)).astype(ct.float32)[None, :]
    y = 0.5 * x * (1.0 + ct.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))
    ct.store(Y, index=(i, j), tile=y.astype(Y.dtype))


def bias_gelu(X, Bias):
    m, n = X.shape
    Y = torch.empty_like(X)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 32), ct.cdiv(n, 64), 1), bias_gelu_kernel, (X, Bias, Y, 32, 64))
    return Y
