# Dropout with a counter-based hash on bitwise ops (uint32): element i is
# kept when the low 24 bits of hash(i ^ seed) are at least p * 2^24, and
# scaled by 1 / (1 - p); the mask is a pure function of (i, seed), so the
# same seed drops the same elements on every backend.
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


def mix(h):
    h = h ^ (h >> 16)
    h = h * 0x7feb352d
    h = h ^ (h >> 15)
    h = h * 0x846ca68b
    return h ^ (h >> 16)


@ct.kernel
def dropout_kernel(X, Y, seed: int, threshold: int, scale: float, TILE: ConstInt):
    bid = ct.bid(0)
    i = bid * TILE + ct.arange(TILE, dtype=ct.int32)
    x = ct.load(X, index=(bid,), shape=(TILE,))
    h = mix(ct.astype(i, ct.uint32) ^ ct.astype(seed, ct.uint32))
    keep = ct.astype(h & 0xffffff, ct.int32) >= threshold
    ct.store(Y, index=(bid,), tile=ct.where(keep, x * scale, 0.0))


def dropout(X, p=0.25, seed=1234):
    TILE = 1024
    n = X.shape[0]
    Y = torch.empty_like(X)
    threshold = int(p * 16777216)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(n, TILE), 1, 1), dropout_kernel,
              (X, Y, seed, threshold, 1.0 / (1.0 - p), TILE))
    return Y
