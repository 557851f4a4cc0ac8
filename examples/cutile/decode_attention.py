# Decode attention (flash-decode): one new query token per sequence
# attends to its whole KV cache. q is (B, H, D), the caches K and V are
# (B, H_kv, S, D) with grouped-query attention (H a multiple of H_kv: query
# head h reads KV head h // (H // H_kv)); out is (B, H, D).
#
# With one query row per head there is little work per key, so the kernel
# is bound by reading K and V, and a grid of one block per (batch, head)
# would leave most SMs idle at small batches. Two things fix that, as
# FlashDecoding and TileGym's decode kernels do it:
# - The query heads that share a KV head run in one block: the scores are
#   (group, D) x (D, tkv), e.g. 8x128 @ 128x64 for 32 heads over 8, so each
#   K and V tile is read once for the whole group (tilec pads mma tiles
#   smaller than the tensor-core instruction).
# - The keys are split: block (split, batch * H_kv + kv head) runs the
#   online softmax over its slice of the key tiles and writes its partial
#   state (the row max m in log2 units, the sum l of exp2(score - m), and
#   the un-normalized output acc) to float32 workspaces; combine_kernel
#   then rescales each split by exp2(m_i - m) for the overall max m, sums,
#   and divides acc by l.
import math

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
INV_LN2 = 1.4426950408889634
# A split keeps at least this many key tiles: fewer would make the
# workspace traffic and the combine a noticeable share of the work.
MIN_TILES_PER_SPLIT = 4
# Blocks of split_kernel aimed for per SM: several resident blocks keep
# loads of K and V in flight while others compute.
BLOCKS_PER_SM = 4


@ct.kernel
def split_kernel(Q, K, V, Acc, M, L, tiles_per_split, qk_scale: ct.Constant[float], G: ConstInt, D: ConstInt,
                 tkv: ConstInt):
    # Q is (B * H_kv, group, D), K and V (B * H_kv, S, D); the workspaces
    # Acc (B * H_kv, splits, G, D), M and L (B * H_kv, splits, G) have G
    # rows, the group rounded up to a power of two.
    s = ct.bid(0)
    bh = ct.bid(1)
    S = K.shape[1]
    # Rows past the group (G > group) are zeros: finite scores whose
    # results the store of the output drops.
    q = ct.load(Q, index=(bh, 0, 0), shape=(1, G, D), padding_mode=ct.PaddingMode.ZERO).reshape((G, D))
    m_i = ct.full((G, 1), -math.inf, dtype=ct.float32)
    l_i = ct.zeros((G, 1), dtype=ct.float32)
    acc = ct.zeros((G, D), dtype=ct.float32)
    start = s * tiles_per_split
    end = min(ct.cdiv(S, tkv), start + tiles_per_split)
    for j in range(start, end):
        # Zero padding past S: the padded keys' scores are masked below,
        # and the padded values must be zeros (not NaN) for p = 0 to
        # cancel them in p @ v.
        k = ct.load(K, index=(bh, j, 0), shape=(1, tkv, D), padding_mode=ct.PaddingMode.ZERO).reshape((tkv, D))
        v = ct.load(V, index=(bh, j, 0), shape=(1, tkv, D), padding_mode=ct.PaddingMode.ZERO).reshape((tkv, D))
        scores = ct.mma(q, k.transpose(), ct.zeros((G, tkv), dtype=ct.float32))
        # Only the last tile of the keys reaches past S.
        if (j + 1) * tkv > S:
            cols = j * tkv + ct.arange(tkv, dtype=ct.int32)
            scores = ct.where((cols < S)[None, :], scores, -math.inf)
        m_new = ct.maximum(m_i, ct.max(scores, axis=1, keepdims=True) * qk_scale)
        p = ct.exp2(scores * qk_scale - m_new, flush_to_zero=True)
        alpha = ct.exp2(m_i - m_new, flush_to_zero=True)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(Acc, index=(bh, s, 0, 0), tile=acc.reshape((1, 1, G, D)))
    ct.store(M, index=(bh, s, 0), tile=m_i.reshape((1, 1, G)))
    ct.store(L, index=(bh, s, 0), tile=l_i.reshape((1, 1, G)))


@ct.kernel
def combine_kernel(Acc, M, L, O, G: ConstInt, D: ConstInt):
    # O is (B * H_kv, group, D); block bh combines the splits of one
    # (batch, kv head): every split holds at least one key, so each m_i is
    # finite and exp2(m_i - m) is never exp2(-inf - -inf).
    bh = ct.bid(0)
    splits = M.shape[1]
    m = ct.full((G, 1), -math.inf, dtype=ct.float32)
    for s in range(splits):
        m = ct.maximum(m, ct.load(M, index=(bh, s, 0), shape=(1, 1, G)).reshape((G, 1)))
    l = ct.zeros((G, 1), dtype=ct.float32)
    acc = ct.zeros((G, D), dtype=ct.float32)
    for s in range(splits):
        w = ct.exp2(ct.load(M, index=(bh, s, 0), shape=(1, 1, G)).reshape((G, 1)) - m)
        l += w * ct.load(L, index=(bh, s, 0), shape=(1, 1, G)).reshape((G, 1))
        acc += w * ct.load(Acc, index=(bh, s, 0, 0), shape=(1, 1, G, D)).reshape((G, D))
    ct.store(O, index=(bh, 0, 0), tile=(acc / l).astype(O.dtype).reshape((1, G, D)))


def choose_splits(pairs, key_tiles, num_sms):
    # Enough splits for BLOCKS_PER_SM blocks on each SM, but no split
    # shorter than MIN_TILES_PER_SPLIT key tiles (none at all for short
    # caches or large batches).
    want = max(1, ct.cdiv(BLOCKS_PER_SM * num_sms, pairs))
    return max(1, min(want, key_tiles // MIN_TILES_PER_SPLIT))


# num_splits=None chooses the split from the SM count and S; tkv keys a
# step of the key loop.
def decode_attention(q, k, v, num_splits=None, tkv=64):
    b, h, d = q.shape
    _, h_kv, s, _ = k.shape
    assert k.shape == v.shape and k.shape[0] == b and k.shape[3] == d, "k and v must be (B, H_kv, S, D)"
    assert h % h_kv == 0, "the query heads must be a multiple of the KV heads"
    group = h // h_kv
    g = 1
    while g < group:
        g *= 2
    key_tiles = ct.cdiv(s, tkv)
    if num_splits is None:
        num_splits = choose_splits(b * h_kv, key_tiles, torch.cuda.get_device_properties(0).multi_processor_count)
    # Every split gets at least one key tile (the combine relies on it).
    tiles_per_split = ct.cdiv(key_tiles, min(num_splits, key_tiles))
    num_splits = ct.cdiv(key_tiles, tiles_per_split)
    pairs = b * h_kv
    acc = torch.empty((pairs, num_splits, g, d), dtype=torch.float32, device=q.device)
    m = torch.empty((pairs, num_splits, g), dtype=torch.float32, device=q.device)
    l = torch.empty((pairs, num_splits, g), dtype=torch.float32, device=q.device)
    out = torch.empty((pairs, group, d), dtype=q.dtype, device=q.device)
    stream = torch.cuda.current_stream()
    ct.launch(stream, (num_splits, pairs, 1), split_kernel,
              (q.reshape(pairs, group, d), k.reshape(pairs, s, d), v.reshape(pairs, s, d), acc, m, l,
               tiles_per_split, INV_LN2 / math.sqrt(d), g, d, tkv))
    ct.launch(stream, (pairs, 1, 1), combine_kernel, (acc, m, l, out, g, d))
    return out.reshape(b, h, d)


# decode_attention launched reps times (tilec run --entry
# bench_decode_attention prints each launch's kernel time; the first is
# cold).
def bench_decode_attention(q, k, v, reps=10):
    out = decode_attention(q, k, v)
    for _ in range(reps - 1):
        out = decode_attention(q, k, v)
    return out


if __name__ == "__main__":
    torch.manual_seed(0)
    B, H, H_KV, S, D = 2, 8, 2, 333, 64
    q = torch.randn(B, H, D, dtype=torch.float16, device="cuda")
    k = torch.randn(B, H_KV, S, D, dtype=torch.float16, device="cuda")
    v = torch.randn(B, H_KV, S, D, dtype=torch.float16, device="cuda")
    # The reference in float32: each KV head's query group as a batch of
    # rows, softmax(q k^T * scale) v.
    qg = q.float().reshape(B, H_KV, H // H_KV, D)
    scores = qg @ k.float().transpose(2, 3) / math.sqrt(D)
    ref = (torch.softmax(scores, dim=-1) @ v.float()).reshape(B, H, D)
    for splits in (None, 1, 3):
        out = decode_attention(q, k, v, num_splits=splits)
        torch.testing.assert_close(out.float(), ref, rtol=1e-2, atol=1e-2)
    print("decode_attention", tuple(out.shape), "matches torch at 1, 3 and the chosen splits")
