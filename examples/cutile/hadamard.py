# An FFT-like butterfly network on ct.extract and ct.cat: the fast
# Walsh-Hadamard transform of every row of an (R, 16) array in four radix-2
# stages; each splits pairs of blocks of h elements with extract and joins
# their sum and difference with cat.
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


def stage(x, ROWS: ConstInt, h: ConstInt):
    y = ct.reshape(x, (ROWS, 16 // (2 * h), 2, h))
    a = ct.extract(y, (0, 0, 0, 0), (ROWS, 16 // (2 * h), 1, h))
    b = ct.extract(y, (0, 0, 1, 0), (ROWS, 16 // (2 * h), 1, h))
    return ct.reshape(ct.cat((a + b, a - b), 2), (ROWS, 16))


@ct.kernel
def hadamard_kernel(X, Y, ROWS: ConstInt):
    x = ct.load(X, index=(ct.bid(0), 0), shape=(ROWS, 16))
    x = stage(x, ROWS, 1)
    x = stage(x, ROWS, 2)
    x = stage(x, ROWS, 4)
    x = stage(x, ROWS, 8)
    ct.store(Y, index=(ct.bid(0), 0), tile=x)


def hadamard(X):
    ROWS = 16
    Y = torch.empty_like(X)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(X.shape[0], ROWS), 1, 1), hadamard_kernel, (X, Y, ROWS))
    return Y
