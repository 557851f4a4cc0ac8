# Attention forward, O = softmax(Q K^T * scale) V per head, with online
# softmax (flash attention). Q, K, V, O are (heads, S, D); block (i, h)
# owns tq queries of head h and walks the keys tkv at a time. With
# causal=True keys after the query are masked.
import cuda.tile as ct
import torch
import math

ConstInt = ct.Constant[int]
INV_LN2 = 1.4426950408889634


@ct.kernel
def attention_kernel(Q, K, V, O, scale: ct.Constant[float], D: ConstInt, tq: ConstInt, tkv: ConstInt,
                     CAUSAL: ct.Constant[bool]):
    i = ct.bid(0)
    h = ct.bid(1)
    S = K.shape[1]
    q = ct.load(Q, index=(h, i, 0), shape=(1, tq, D)).reshape((tq, D))
    rows = i * tq + ct.arange(tq)
    m_i = ct.full((tq, 1), float("-inf"), dtype=ct.float32)
    l_i = ct.zeros((tq, 1), dtype=ct.float32)
    acc = ct.zeros((tq, D), dtype=ct.float32)
    qk_scale = scale * INV_LN2
    for j in range(ct.num_tiles(K, axis=1, shape=(1, tkv, D))):
        k = ct.load(K, index=(h, j, 0), shape=(1, tkv, D)).reshape((tkv, D))
        v = ct.load(V, index=(h, j, 0), shape=(1, tkv, D)).reshape((tkv, D))
        s = ct.mma(q, k.transpose(), ct.zeros((tq, tkv), dtype=ct.float32)) * qk_scale
        cols = j * tkv + ct.arange(tkv)
        keep = cols[None, :] < S
        if CAUSAL:
            keep = keep & (cols[None, :] <= rows[:, None])
        s = ct.where(keep, s, float("-inf"))
        m_new = ct.maximum(m_i, s.max(axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m_i - m_new)
        l_i = l_i * alpha + p.sum(axis=1, keepdims=True)
        acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(h, i, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, tq, D)))


def attention(Q, K, V, causal=False):
    heads, s, d = Q.shape
    O = torch.empty_like(Q)
    tq, tkv = 64, 64
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(s, tq), heads, 1), attention_kernel,
              (Q, K, V, O, 1.0 / math.sqrt(d), d, tq, tkv, causal))
    return O
