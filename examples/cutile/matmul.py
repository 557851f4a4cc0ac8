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


# C = A @ B for a few rows of A (a decode step's tokens), computed as
# C^T = B^T A^T: the tokens are the mma's N side, which can be as small as
# 8, so that a tile is tm tokens by tn columns of B (tn = 64, the mma's
# smallest M on Hopper) instead of 64 rows of which most would be zeros.
# Block (i, j) computes C's tm x tn tile at (i, j) as its transpose.
@ct.kernel
def matmul_swapped_kernel(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    i = ct.bid(0)
    j = ct.bid(1)
    acc = ct.full((tn, tm), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(i, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, j), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ct.transpose(b), ct.transpose(a), acc)
    ct.store(C, index=(i, j), tile=ct.transpose(acc).astype(C.dtype))


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
    m, k = A.shape
    k2, n = B.shape
    assert k == k2, "inner dimensions differ"
    C = torch.empty((m, n), dtype=A.dtype, device=A.device)
    stream = torch.cuda.current_stream()
    if A.dtype.itemsize == 2 and major >= 9 and m <= 32:
        # 16 or 32 tokens a tile: on the H100 this ran (16, 4096) @ (4096,
        # 4096) at cuBLAS's time, where 64x32 tiles of C took 1.27 times it.
        tm = 16 if m <= 16 else 32
        ct.launch(stream, (ceil(m / tm), ceil(n / 64), 1), matmul_swapped_kernel, (A, B, C, tm, 64, 64))
        return C
    if A.dtype.itemsize == 2 and major >= 9:
        num_sms = torch.cuda.get_device_properties(A.device).multi_processor_count
        tm, tn = hopper_tiles(m, n, num_sms)
        tk = 64
    elif A.dtype.itemsize == 2:
        tm, tn, tk = 128, 128, 32
    else:
        tm, tn, tk = 64, 64, 32
    ct.launch(stream, (ceil(m / tm), ceil(n / tn), 1), matmul_kernel, (A, B, C, tm, tn, tk))
    return C
