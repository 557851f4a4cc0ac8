# The matrix multiplication of the cuTile matmul blog post (the seed of
# tilec), written from the post's description: a kernel in which each block
# computes one tm x tn tile of C = A @ B, blocks mapped to tiles through a
# grouped ("swizzled") order, and the host function that picks tile sizes
# by dtype, allocates C and launches a 1-D grid.
#
#   tilec run examples/seed_matmul.py --entry cutile_matmul \
#       --arg A=f16[M,K] --arg B=f16[K,N] --shape M=1000,K=700,N=500

import cuda.tile as ct
from math import ceil
import torch

ConstInt = ct.Constant[int]

GROUP_SIZE_M = 8


def swizzle_2d_from_bid(M, N, tm, tn, GROUP_SIZE_M, bid):
    # Blocks walk the output tiles GROUP_SIZE_M tile-rows at a time, so that
    # consecutive blocks share rows of A and columns of B in the cache.
    num_bid_m = ct.cdiv(M, tm)
    num_bid_n = ct.cdiv(N, tn)
    num_bid_in_group = GROUP_SIZE_M * num_bid_n
    group_id = bid // num_bid_in_group
    first_bid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_bid_m - first_bid_m, GROUP_SIZE_M)
    bid_m = first_bid_m + (bid % group_size_m)
    bid_n = (bid % num_bid_in_group) // group_size_m
    return bid_m, bid_n


def swizzle_2d(M, N, tm, tn, GROUP_SIZE_M):
    bid = ct.bid(0)
    return swizzle_2d_from_bid(M, N, tm, tn, GROUP_SIZE_M, bid)


@ct.kernel
def matmul_kernel(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    M = A.shape[0]
    N = B.shape[1]
    bidx, bidy = swizzle_2d(M, N, tm, tn, GROUP_SIZE_M)
    num_tiles_k = ct.num_tiles(A, axis=1, shape=(tm, tk))
    accumulator = ct.full((tm, tn), 0, dtype=ct.float32)
    zero_pad = ct.PaddingMode.ZERO
    for k in range(num_tiles_k):
        a = ct.load(A, index=(bidx, k), shape=(tm, tk), padding_mode=zero_pad)
        b = ct.load(B, index=(k, bidy), shape=(tk, tn), padding_mode=zero_pad)
        accumulator = ct.mma(a, b, accumulator)
    accumulator = ct.astype(accumulator, C.dtype)
    ct.store(C, index=(bidx, bidy), tile=accumulator)


def cutile_matmul(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    # Tile sizes by element size: large tiles for 2-byte types (tensor
    # cores), small ones otherwise.
    if A.dtype.itemsize == 2:
        tm, tn, tk = 128, 256, 64
    else:
        tm, tn, tk = 32, 32, 32
    m, k = A.shape
    _, n = B.shape
    # One block per output tile, flattened into a 1-D grid.
    grid_x = ceil(m / tm)
    grid_y = ceil(n / tn)
    grid_size = grid_x * grid_y
    grid = (grid_size, 1, 1)
    C = torch.empty((m, n), device=A.device, dtype=A.dtype)
    ct.launch(torch.cuda.current_stream(), grid, matmul_kernel, (A, B, C, tm, tn, tk))
    return C
