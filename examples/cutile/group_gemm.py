# Grouped GEMM: C_g = A_g @ B_g for a list of problems of different sizes
# in one persistent launch. The kernel takes the lists As, Bs and Cs
# (cuTile's List[Array]: one dtype and rank, each array its own shape);
# block b walks the output tiles b, b + num_blocks, ... numbered across
# the groups in order, finding each tile's group by its running tile count.
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]


@ct.kernel
def group_gemm_kernel(As, Bs, Cs, tm: ConstInt, tn: ConstInt, tk: ConstInt,
                      b_is_nk: ConstBool):
    t = ct.bid(0)
    stride = ct.num_blocks(0)
    first = 0  # the number of the group's first tile
    for g in range(len(As)):
        A = As[g]
        B = Bs[g]
        C = Cs[g]
        tiles_m = ct.num_tiles(C, axis=0, shape=(tm, tn))
        tiles_n = ct.num_tiles(C, axis=1, shape=(tm, tn))
        steps = ct.num_tiles(A, axis=1, shape=(tm, tk))
        last = first + tiles_m * tiles_n
        while t < last:
            i = (t - first) // tiles_n
            j = (t - first) % tiles_n
            acc = ct.zeros((tm, tn), dtype=ct.float32)
            for k in range(steps):
                a = ct.load(A, index=(i, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
                if b_is_nk:
                    b = ct.load(B, index=(j, k), shape=(tn, tk), padding_mode=ct.PaddingMode.ZERO)
                    b = ct.transpose(b)
                else:
                    b = ct.load(B, index=(k, j), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
                acc = ct.mma(a, b, acc)
            ct.store(C, index=(i, j), tile=acc.astype(C.dtype))
            t += stride
        first = last


def group_gemm(As, Bs, b_is_nk=False, tm=64, tn=64, tk=32, num_sms=None):
    if len(As) == 0 or len(As) != len(Bs):
        raise ValueError("group_gemm takes as many A matrices as B matrices, at least one")
    if num_sms is None:
        num_sms = torch.cuda.get_device_properties(0).multi_processor_count
    Cs = [torch.empty((As[g].shape[0], Bs[g].shape[0] if b_is_nk else Bs[g].shape[1]),
                      dtype=As[g].dtype, device=As[g].device) for g in range(len(As))]
    tiles = 0
    for C in Cs:
        tiles += ct.cdiv(C.shape[0], tm) * ct.cdiv(C.shape[1], tn)
    ct.launch(torch.cuda.current_stream(), (min(num_sms, tiles), 1, 1), group_gemm_kernel,
              (As, Bs, Cs, tm, tn, tk, b_is_nk))
    return Cs


if __name__ == "__main__":
    torch.manual_seed(0)
    sizes = [(200, 96, 130), (64, 96, 64), (33, 96, 250), (128, 96, 17)]  # (M, K, N) per group
    As = [torch.randn((m, k), dtype=torch.float16, device="cuda") for m, k, n in sizes]
    Bs = [torch.randn((k, n), dtype=torch.float16, device="cuda") for m, k, n in sizes]
    Cs = group_gemm(As, Bs)
    for g in range(len(sizes)):
        torch.testing.assert_close(Cs[g], As[g] @ Bs[g], atol=1e-2, rtol=1e-2)
    Bts = [B.t().contiguous() for B in Bs]
    Cts = group_gemm(As, Bts, b_is_nk=True)
    for g in range(len(sizes)):
        torch.testing.assert_close(Cts[g], As[g] @ Bs[g], atol=1e-2, rtol=1e-2)
    print("group_gemm:", len(sizes), "groups, B as (K, N) and as (N, K), match torch")
