# A ragged GEMM through Array.slice, as FlashInfer-style kernels multiply
# variable-length segments: segment q of A's rows, [Ptr[q], Ptr[q+1]),
# times B[q]. A and C are sliced to the segment at run-time bounds, so a
# tile's loads pad with zeros and its stores drop at the segment's end
# (where the next segment's rows begin), not at the array's. For the GPU
# check (testdata/gpu/cases.txt): each launch is checked against the
# interpreter; the driver also checks C against float64. Segments of odd
# lengths, an empty one and one longer than two tiles.
import cuda.tile as ct
import torch


@ct.kernel
def ragged_gemm(A, B, C, Ptr, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    m, n, q = ct.bid(0), ct.bid(1), ct.bid(2)
    lo = ct.load(Ptr, (q,), shape=())
    hi = ct.load(Ptr, (q + 1,), shape=())
    if m * tm < hi - lo:
        Aq = A.slice(axis=0, start=lo, stop=hi)
        Cq = C.slice(axis=0, start=lo, stop=hi)
        acc = ct.full((tm, tn), 0, dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            a = ct.load(Aq, (m, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
            b = ct.load(B, (q, k, n), shape=(1, tk, tn), padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(a, ct.reshape(b, (tk, tn)), acc)
        ct.store(Cq, (m, n), acc)


def ragged_matmul(A, B, Ptr, longest, tm=64, tn=64, tk=32):
    C = torch.zeros(A.shape[0], B.shape[2], dtype=torch.float32, device=A.device)
    grid = (ct.cdiv(longest, tm), ct.cdiv(B.shape[2], tn), B.shape[0])
    ct.launch(torch.cuda.current_stream(), grid, ragged_gemm, (A, B, C, Ptr, tm, tn, tk))
    return C


if __name__ == "__main__":
    K, N = 200, 90
    Ptr = torch.tensor([0, 37, 37, 190, 195, 260], dtype=torch.int32, device="cuda")
    A = torch.randn(260, K, dtype=torch.float16, device="cuda")
    B = torch.randn(5, K, N, dtype=torch.float16, device="cuda")
    C = ragged_matmul(A, B, Ptr, 153)
    want = torch.zeros(260, N, dtype=torch.float64, device="cuda")
    want[0:37] = torch.matmul(A[0:37].double(), B[0].double())
    want[37:190] = torch.matmul(A[37:190].double(), B[2].double())
    want[190:195] = torch.matmul(A[190:195].double(), B[3].double())
    want[195:260] = torch.matmul(A[195:260].double(), B[4].double())
    torch.testing.assert_close(C.double(), want, rtol=1e-3, atol=1e-2)
    print("ok")
