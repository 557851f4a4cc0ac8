# C = A @ B with a 2-D grid: block (i, j) computes the tm x tn tile of C at
# tile index (i, j), walking K in steps of tk. float32 inputs go through
# the tensor cores as tfloat32, as cuTile's own sample does.
import cuda.tile as ct
import torch
from math import ceil

ConstInt = ct.Constant[int]


@ct.kernel
def matmul_kernel(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    i = ct.bid(0)
    j = ct.bid(1)
    mma_type = ct.tfloat32 if A.dtype == ct.float32 else A.dtype
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(i, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO).astype(mma_type)
        b = ct.load(B, index=(k, j), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO).astype(mma_type)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


# Hopper's tiles, largest first: the seed post's 128x256 (two consumer
# warpgroups on wgmma), then smaller ones for a C of few tiles. A
# decode-shaped GEMM (a few rows of A through a large B) streams B from
# memory and needs a block on most SMs to do it at full bandwidth; 64 rows
# is wgmma's smallest tile.
HOPPER_TILES = ((128, 256), (128, 128), (128, 64), (64, 64), (64, 32))


def hopper_tiles(m, n, num_sms):
    tiles = [(tm, tn) for tm, tn in HOPPER_TILES if m > 64 or tm == 64]
    for tm, tn in tiles:
        if ceil(m / tm) * ceil(n / tn) >= num_sms * 4 // 5:
            return tm, tn
    return tiles[-1]


def matmul(A, B):
    major, _ = torch.cuda.get_device_capability()
    if A.dtype.itemsize == 2 and major >= 9:
        num_sms = torch.cuda.get_device_properties(A.device).multi_processor_count
        tm, tn = hopper_tiles(A.shape[0], B.shape[1], num_sms)
        tk = 64
    elif A.dtype.itemsize == 2:
        tm, tn, tk = 128, 128, 32
    else:
        tm, tn, tk = 64, 64, 32
    m, k = A.shape
    k2, n = B.shape
    assert k == k2, "inner dimensions differ"
    C = torch.empty((m, n), dtype=A.dtype, device=A.device)
    grid = (ceil(m / tm), ceil(n / tn), 1)
    ct.launch(torch.cuda.current_stream(), grid, matmul_kernel, (A, B, C, tm, tn, tk))
    return C
