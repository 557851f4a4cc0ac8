# c = a + b on vectors of any length: one block per TILE elements; the
# last tile is partial (loads pad, stores drop the padding).
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def vector_add_kernel(a, b, c, TILE: ConstInt):
    bid = ct.bid(0)
    x = ct.load(a, index=(bid,), shape=(TILE,))
    y = ct.load(b, index=(bid,), shape=(TILE,))
    ct.store(c, index=(bid,), tile=x + y)


def vector_add(a, b):
    TILE = 1024
    c = torch.empty_like(a)
    grid = (ct.cdiv(a.shape[0], TILE), 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, vector_add_kernel, (a, b, c, TILE))
    return c
