# C = (A @ B^T) * scale_a * scale_b with A and B in float8 e4m3 (per-tensor
# scales, W8A8 as fp8 inference runs a linear layer: B is the weight
# matrix, one row per output feature), accumulated in float32 and stored in
# bfloat16. ct.mma multiplies float8 exactly and sums in float32; the
# scales are applied once, to the accumulator.
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
FP8_MAX = 448.0  # the largest finite float8_e4m3fn


@ct.kernel
def fp8_matmul_kernel(A, B, C, scale: float, fast: ct.Constant[bool], tm: ConstInt, tn: ConstInt, tk: ConstInt):
    i = ct.bid(0)
    j = ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(i, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(j, k), shape=(tn, tk), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, ct.transpose(b), acc, use_fast_acc=fast)
    ct.store(C, index=(i, j), tile=(acc * scale).astype(C.dtype))


def quantize(x):
    """x as float8 e4m3 with one scale for the whole tensor: x ~ q * s."""
    s = x.abs().amax().item() / FP8_MAX
    return (x / s).to(torch.float8_e4m3fn), s


def fp8_matmul(A, B, scale_a, scale_b, use_fast_acc=False):
    """C = (A @ B^T) * scale_a * scale_b in bfloat16. use_fast_acc lets the
    tensor cores sum in their reduced-precision accumulator, as
    torch._scaled_mm's use_fast_accum does (on Hopper: float8 wgmma)."""
    m, k = A.shape
    n, k2 = B.shape
    assert k == k2, "inner dimensions differ"
    major, _ = torch.cuda.get_device_capability()
    if major >= 9:
        # Hopper: 128 bytes of K per stage; 128x256 tiles (two consumer
        # warpgroups) where they fill the SMs, else the tile with the most
        # tiles that still fit one wave, 128 rows first so that B is read
        # once (a decode-shaped M through a 4096 -> 7168 layer: 128x64 at
        # 128 tokens, 128x128 at 256; on the H100 64x128 at 256 tokens, two
        # waves, was 0.63x torch._scaled_mm against 0.84x).
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        tm, tn, tk = 128, 256, 128
        if ct.cdiv(m, tm) * ct.cdiv(n, tn) < sms:
            most = 0
            for a, b in [(128, 256), (128, 128), (128, 64), (64, 128)]:
                count = ct.cdiv(m, a) * ct.cdiv(n, b)
                if most < count <= sms:
                    tm, tn, most = a, b, count
    else:
        tm, tn, tk = 64, 64, 64
    C = torch.empty((m, n), dtype=torch.bfloat16, device=A.device)
    grid = (ct.cdiv(m, tm), ct.cdiv(n, tn), 1)
    ct.launch(torch.cuda.current_stream(), grid, fp8_matmul_kernel, (A, B, C, scale_a * scale_b, use_fast_acc, tm, tn, tk))
    return C


if __name__ == "__main__":
    torch.manual_seed(0)
    for m, n, k in [(128, 256, 512), (100, 130, 300)]:
        x = torch.randn(m, k, dtype=torch.float32, device="cuda")
        w = torch.randn(n, k, dtype=torch.float32, device="cuda")
        qx, sx = quantize(x)
        qw, sw = quantize(w)
        C = fp8_matmul(qx, qw, sx, sw)
        # The reference: the same float8 values, exact products summed in float32.
        ref = (qx.to(torch.float32) @ qw.to(torch.float32).T) * (sx * sw)
        torch.testing.assert_close(C.to(torch.float32), ref, rtol=1e-2, atol=1e-2)
        # Fast accumulation rounds the running sums more coarsely (Hopper keeps
        # about 14 bits of them).
        # Its error is relative to the sums' magnitude, not each result's.
        fast = fp8_matmul(qx, qw, sx, sw, use_fast_acc=True)
        torch.testing.assert_close(fast.to(torch.float32), ref, rtol=1e-2, atol=1e-2 * ref.abs().amax().item())
        # Against the unquantized product the error is float8's (3 mantissa bits).
        err = ((C.to(torch.float32) - x @ w.T).abs().amax() / (x @ w.T).abs().amax()).item()
        print(f"fp8_matmul {m}x{n}x{k}: matches the float8 product; {err:.3f} of the largest value off the float32 one")
