# Split-K GEMM reduced with atomics: block (i, j, s) multiplies the s-th
# range of K tiles and adds its partial (tm, tn) product into the float32
# C with ct.atomic_add (relaxed, device scope), so the SPLIT partials of
# one output tile meet in global memory. The sum's rounding depends on the
# blocks' order, as on any GPU.
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def atomic_split_k_kernel(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt, SPLIT: ConstInt):
    i, j, s = ct.bid(0), ct.bid(1), ct.bid(2)
    k_tiles = ct.num_tiles(A, axis=1, shape=(tm, tk))
    per_split = ct.cdiv(k_tiles, SPLIT)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(s * per_split, min(k_tiles, (s + 1) * per_split)):
        a = ct.load(A, index=(i, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, j), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    rows = i * tm + ct.arange(tm, dtype=ct.int32)
    cols = j * tn + ct.arange(tn, dtype=ct.int32)
    ct.atomic_add(C, (rows[:, None], cols[None, :]), acc,
                  memory_order=ct.MemoryOrder.RELAXED, memory_scope=ct.MemoryScope.DEVICE)


def atomic_split_k(A, B, split=0):
    major, _ = torch.cuda.get_device_capability()
    if A.dtype.itemsize == 2 and major >= 9:
        tm, tn, tk = 128, 256, 64  # Hopper: the seed post's tiles, on wgmma
    else:
        tm, tn, tk = 64, 64, 32
    m, k = A.shape
    _, n = B.shape
    if split == 0:
        # One wave: as many splits as fill the SMs once (more would leave
        # a second, partial wave), each with at least 4 k-tiles.
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        tiles = ct.cdiv(m, tm) * ct.cdiv(n, tn)
        split = max(1, min(sms // tiles, ct.cdiv(k, tk) // 4))
    C = torch.zeros((m, n), dtype=torch.float32, device=A.device)
    grid = (ct.cdiv(m, tm), ct.cdiv(n, tn), split)
    ct.launch(torch.cuda.current_stream(), grid, atomic_split_k_kernel, (A, B, C, tm, tn, tk, split))
    return C
