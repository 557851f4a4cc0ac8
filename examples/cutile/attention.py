# Attention forward (flash attention): O = softmax(Q K^T * scale) V for
# Q, K, V, O of shape (B, H, S, D), D = 64 or 128 (any power of two the
# registers hold).
#
# Block (i, b*H + h) owns tq queries of head h of batch b and walks the
# keys and values tkv at a time with online softmax: the running row max
# m_i (in log2 units: scores are scaled by scale * log2(e) so that exp2
# stands in for exp), the running sum l_i and the unnormalized output acc.
#
# One loop over the key tiles a query block can see. Causal: the loop
# stops at the last tile that crosses the block's diagonal, so the tiles
# right of its last row (fully masked) are never loaded, which halves the
# work; blocks are taken heaviest first (the last query block has the most
# keys) so that the grid's tail is short. The mask (columns past S, and
# above the diagonal when causal) is one select per score, applied only
# from mask_start on: the tiles before it are wholly inside the keys and
# left of the block's first query. exp2 flushes subnormal results to zero
# (flush_to_zero=True, as NVIDIA's AttentionFMHA sample does): one
# ex2.approx.ftz instruction per score on the GPU instead of four. The
# loop has two mmas, the form the sm_90a path runs as a warp-specialized
# kernel (TMA copies of Q, K and V from 4-D tensor maps, S = Q K^T and
# O += P V on wgmma; docs/hopper.md).
import cuda.tile as ct
import torch
import math

ConstInt = ct.Constant[int]
INV_LN2 = 1.4426950408889634


@ct.kernel
def attention_kernel(Q, K, V, O, sm_scale: ct.Constant[float], D: ConstInt, tq: ConstInt, tkv: ConstInt,
                     CAUSAL: ct.Constant[bool]):
    H = Q.shape[1]
    S = K.shape[2]
    i = ct.bid(0)
    if CAUSAL:
        i = ct.num_blocks(0) - 1 - ct.bid(0)
    b = ct.bid(1) // H
    h = ct.bid(1) % H
    qk_scale = sm_scale * INV_LN2
    q = ct.load(Q, index=(b, h, i, 0), shape=(1, 1, tq, D)).reshape((tq, D))
    rows = i * tq + ct.arange(tq, dtype=ct.int32)
    m_i = ct.full((tq, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((tq, 1), dtype=ct.float32)
    acc = ct.zeros((tq, D), dtype=ct.float32)
    end = ct.cdiv(S, tkv)
    # Tiles before mask_start lie wholly inside the keys (and left of the
    # block's first query when causal): they need no mask.
    mask_start = S // tkv
    if CAUSAL:
        # Tiles from `end` on start right of the block's last query.
        end = min(end, ct.cdiv((i + 1) * tq, tkv))
        mask_start = min(mask_start, (i * tq) // tkv)
    for j in range(end):
        k = ct.load(K, index=(b, h, j, 0), shape=(1, 1, tkv, D)).reshape((tkv, D))
        v = ct.load(V, index=(b, h, j, 0), shape=(1, 1, tkv, D)).reshape((tkv, D))
        s = ct.mma(q, k.transpose(), ct.zeros((tq, tkv), dtype=ct.float32))
        if j >= mask_start:
            cols = j * tkv + ct.arange(tkv, dtype=ct.int32)
            keep = cols[None, :] < S
            if CAUSAL:
                keep = keep & (cols[None, :] <= rows[:, None])
            s = ct.where(keep, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True) * qk_scale)
        p = ct.exp2(s * qk_scale - m_new, flush_to_zero=True)
        alpha = ct.exp2(m_i - m_new, flush_to_zero=True)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(q.dtype), v, acc * alpha)
        m_i = m_new
    out = acc * (1.0 / l_i)
    ct.store(O, index=(b, h, i, 0), tile=out.astype(O.dtype).reshape((1, 1, tq, D)))


# Tiles: tq=128 queries a block; tkv keys a step (0: chosen here, by the
# GPU). On Hopper (capability 9.0, the TMA + wgmma kernel: two consumer
# warpgroups of 64 rows) tkv=128 at D=64, where a step's two mmas are
# short and fewer, longer steps ran 1.32x faster on the H100 (1.12x
# causal; docs/perf.md), and 64 at D=128, whose larger key tiles would not
# leave shared memory for the ring. Elsewhere (mma.sync) the block is 4
# warps of 32 query rows each, as FlashAttention-2 arranges it, which
# halves the K and V fragment loads from shared memory that 8 warps of
# 16 rows make; the S and O accumulators of 32 rows fit a thread's
# registers at tkv=64 (D=64) and 32 (D=128): 1.24x and 1.17x faster than
# 8 warps at tkv 128 and 64 on the H100's mma.sync path (docs/perf.md).
def attention(Q, K, V, causal=False, tq=128, tkv=0):
    batch, heads, s, d = Q.shape
    assert K.shape == Q.shape and V.shape == Q.shape, "Q, K and V must have one shape (B, H, S, D)"
    if tkv == 0:
        if torch.cuda.get_device_capability() == (9, 0):
            tkv = 128 if d <= 64 else 64
        else:
            tkv = 64 if d <= 64 else 32
    O = torch.empty_like(Q)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(s, tq), batch * heads, 1), attention_kernel,
              (Q, K, V, O, 1.0 / math.sqrt(d), d, tq, tkv, causal))
    return O


# attention launched reps times (tilec run --entry bench_attention prints
# each launch's kernel time; the first is cold).
def bench_attention(Q, K, V, causal=False, reps=10):
    O = attention(Q, K, V, causal)
    for _ in range(reps - 1):
        O = attention(Q, K, V, causal)
    return O
