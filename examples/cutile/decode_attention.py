# Decode attention (flash-decode): one new query token per sequence
# attends to its whole KV cache. q is (B, H, D), the caches K and V are
# (B, H_kv, S, D) with grouped-query attention (H a multiple of H_kv: query
# head h reads KV head h // (H // H_kv)); out is (B, H, D).
#
# With one query row per head there is little work per key: the kernel is
# bound by reading K and V (2 * B * H_kv * S * D * 2 bytes), and a grid of
# one block per (batch, head) would leave most SMs idle at small batches.
# As FlashDecoding and TileGym's decode kernels do it:
# - The query heads that share a KV head run in one block, so that each K
#   and V tile is read once for the whole group.
# - The scores are computed transposed, keys x heads: K (tkv, D) @ q^T
#   (D, G) and then acc^T (D, G) += V^T (D, tkv) @ p^T (tkv, G). Both mma
#   results have 64 or more rows (keys, then D), so they split over 4
#   warps; the (G, D) @ (D, tkv) orientation has as many rows as query
#   heads (16 after padding), which is one warp per block. The group is
#   padded to G = 16 rows (zeros; the stores drop them), the smallest mma
#   tile, so no mma needs the pad pass's per-step shared-memory exchanges.
# - The keys are split: block (split, batch * H_kv + kv head) runs the
#   online softmax over its slice of the key tiles and writes its partial
#   state (the max m in log2 units, the sum l of exp2(score - m), and the
#   un-normalized output acc) to float32 workspaces; combine_kernel then
#   loads every split's state of one (batch, kv head) at once, rescales
#   each by exp2(m_i - m) for the overall max m, sums, and divides by l.

import math

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
INV_LN2 = 1.4426950408889634
# A split keeps at least this many key tiles: fewer would make the
# workspace traffic and the combine a noticeable share of the work.
MIN_TILES_PER_SPLIT = 4
# Blocks of split_kernel resident on one SM: its occupancy hint, which
# sizes the K and V ring so that two blocks' shared memory fits an SM (at
# D = 128, tkv = 64: 3 stages of 32 KB each). The host fills the
# resident slots once, so there is no tail wave.
BLOCKS_PER_SM = 2


@ct.kernel(occupancy=BLOCKS_PER_SM)
def split_kernel(Q, K, V, Acc, M, L, tiles_per_split, qk_scale: ct.Constant[float], G: ConstInt, D: ConstInt,
                 tkv: ConstInt):
    # Q is (B * H_kv, group, D), K and V (B * H_kv, S, D); the workspaces
    # Acc (B * H_kv, splits, group, D), M and L (B * H_kv, splits, group).
    # G is the group rounded up to a power of two, at least 16: the rows
    # past the group are zeros (finite scores) whose results the stores
    # drop.
    s = ct.bid(0)
    bh = ct.bid(1)
    S = K.shape[1]
    qt = ct.load(Q, index=(bh, 0, 0), shape=(1, G, D), padding_mode=ct.PaddingMode.ZERO).reshape((G, D)).transpose()
    m_i = ct.full((1, G), -math.inf, dtype=ct.float32)
    # The running sum stays a (tkv, G) tile, reduced over the keys once
    # after the loop: in the loop only the max crosses warps.
    l_i = ct.zeros((tkv, G), dtype=ct.float32)
    acc = ct.zeros((D, G), dtype=ct.float32)
    start = s * tiles_per_split
    end = min(ct.cdiv(S, tkv), start + tiles_per_split)
    for j in range(start, end):
        # Zero padding past S: the padded keys' scores are masked below,
        # and the padded values must be zeros (not NaN) for p = 0 to
        # cancel them in v^T @ p.
        k = ct.load(K, index=(bh, j, 0), shape=(1, tkv, D), padding_mode=ct.PaddingMode.ZERO).reshape((tkv, D))
        v = ct.load(V, index=(bh, j, 0), shape=(1, tkv, D), padding_mode=ct.PaddingMode.ZERO).reshape((tkv, D))
        scores = ct.mma(k, qt, ct.zeros((tkv, G), dtype=ct.float32))
        # Only the last tile of the keys reaches past S.
        if (j + 1) * tkv > S:
            keys = j * tkv + ct.arange(tkv, dtype=ct.int32)
            scores = ct.where((keys < S)[:, None], scores, -math.inf)
        m_new = ct.maximum(m_i, ct.max(scores, axis=0, keepdims=True) * qk_scale)
        p = ct.exp2(scores * qk_scale - m_new, flush_to_zero=True)
        alpha = ct.exp2(m_i - m_new, flush_to_zero=True)
        l_i = l_i * alpha + p
        acc = ct.mma(v.transpose(), p.astype(Q.dtype), acc * alpha)
        m_i = m_new
    l = ct.sum(l_i, axis=0, keepdims=True)
    ct.store(Acc, index=(bh, s, 0, 0), tile=acc.transpose().reshape((1, 1, G, D)))
    ct.store(M, index=(bh, s, 0), tile=m_i.reshape((1, 1, G)))
    ct.store(L, index=(bh, s, 0), tile=l.reshape((1, 1, G)))


@ct.kernel
def combine_kernel(Acc, M, L, O, NS: ConstInt, GC: ConstInt, D: ConstInt):
    # O is (B * H_kv, group, D); block bh combines the splits of one
    # (batch, kv head) from one load of each workspace: NS is the split
    # count and GC the group, each rounded up to a power of two. The
    # padded splits have m = -inf (weight 0) and zero acc and l. Every
    # real split holds at least one key, so the overall max is finite.
    bh = ct.bid(0)
    m_s = ct.load(M, index=(bh, 0, 0), shape=(1, NS, GC), padding_mode=ct.PaddingMode.NEG_INF).reshape((NS, GC))
    l_s = ct.load(L, index=(bh, 0, 0), shape=(1, NS, GC), padding_mode=ct.PaddingMode.ZERO).reshape((NS, GC))
    acc_s = ct.load(Acc, index=(bh, 0, 0, 0), shape=(1, NS, GC, D), padding_mode=ct.PaddingMode.ZERO).reshape((NS, GC, D))
    w = ct.exp2(m_s - ct.max(m_s, axis=0, keepdims=True))
    l = ct.sum(w * l_s, axis=0)
    acc = ct.sum(w.reshape((NS, GC, 1)) * acc_s, axis=0)
    ct.store(O, index=(bh, 0, 0), tile=(acc / l.reshape((GC, 1))).astype(O.dtype).reshape((1, GC, D)))


def next_pow2(n):
    p = 1
    while p < n:
        p *= 2
    return p


def choose_splits(pairs, key_tiles, num_sms):
    # As many splits as fill the resident slots of split_kernel once
    # (BLOCKS_PER_SM on each SM; rounded down, so that no second, mostly
    # idle wave runs), but no split shorter than MIN_TILES_PER_SPLIT key
    # tiles (none at all for short caches or large batches).
    want = max(1, BLOCKS_PER_SM * num_sms // pairs)
    return max(1, min(want, key_tiles // MIN_TILES_PER_SPLIT))


# num_splits=None chooses the split from the SM count and S; tkv keys a
# step of the key loop.
def decode_attention(q, k, v, num_splits=None, tkv=64):
    b, h, d = q.shape
    _, h_kv, s, _ = k.shape
    assert k.shape == v.shape and k.shape[0] == b and k.shape[3] == d, "k and v must be (B, H_kv, S, D)"
    assert h % h_kv == 0, "the query heads must be a multiple of the KV heads"
    group = h // h_kv
    key_tiles = ct.cdiv(s, tkv)
    if num_splits is None:
        num_splits = choose_splits(b * h_kv, key_tiles, torch.cuda.get_device_properties(0).multi_processor_count)
    # Every split gets at least one key tile (the combine relies on it).
    tiles_per_split = ct.cdiv(key_tiles, min(num_splits, key_tiles))
    num_splits = ct.cdiv(key_tiles, tiles_per_split)
    pairs = b * h_kv
    acc = torch.empty((pairs, num_splits, group, d), dtype=torch.float32, device=q.device)
    m = torch.empty((pairs, num_splits, group), dtype=torch.float32, device=q.device)
    l = torch.empty((pairs, num_splits, group), dtype=torch.float32, device=q.device)
    out = torch.empty((pairs, group, d), dtype=q.dtype, device=q.device)
    stream = torch.cuda.current_stream()
    ct.launch(stream, (num_splits, pairs, 1), split_kernel,
              (q.reshape(pairs, group, d), k.reshape(pairs, s, d), v.reshape(pairs, s, d), acc, m, l,
               tiles_per_split, INV_LN2 / math.sqrt(d), max(16, next_pow2(group)), d, tkv))
    ct.launch(stream, (pairs, 1, 1), combine_kernel, (acc, m, l, out, next_pow2(num_splits), next_pow2(group), d))
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
