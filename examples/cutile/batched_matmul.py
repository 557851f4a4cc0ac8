# C[b] = A[b] @ B[b] for a batch of matrices: grid axis 2 is the batch;
# tiles are (1, tm, tk) boxes of the 3-D arrays, reshaped to 2-D for the mma.
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def bmm_kernel(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    i = ct.bid(0)
    j = ct.bid(1)
    b = ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        a = ct.load(A, index=(b, i, k), shape=(1, tm, tk)).reshape((tm, tk))
        w = ct.load(B, index=(b, k, j), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(C, index=(b, i, j), tile=acc.astype(C.dtype).reshape((1, tm, tn)))


def bmm(A, B):
    major, _ = torch.cuda.get_device_capability()
    if A.dtype.itemsize == 2 and major >= 9:
        tm, tn, tk = 128, 256, 64  # Hopper: the seed post's tiles, on wgmma
    else:
        tm, tn, tk = 64, 64, 32
    batch, m, _ = A.shape
    n = B.shape[2]
    C = torch.empty((batch, m, n), dtype=A.dtype, device=A.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, tm), ct.cdiv(n, tn), batch), bmm_kernel, (A, B, C, tm, tn, tk))
    return C
