# A paged decode attention kernel as FlashInfer-style cuTile code writes
# it, for the GPU check (testdata/gpu/cases.txt): the sequence length
# loaded as a rank-0 tile, an early exit for an empty sequence, ct.cdiv of
# the length as the loop's stop, a page id loaded as a rank-0 tile indexing
# the K and V loads, a running max that starts as a number (-inf) and a
# sum that starts as 0.0, both carried as rank-0 tiles. Each launch is
# checked against the interpreter; the driver also checks every batch
# against a float64 masked softmax over its pages (the empty one
# untouched).
import cuda.tile as ct
import math

import torch

ConstInt = ct.Constant[int]


@ct.kernel
def paged_decode(Q, K, V, PageTable, SeqLens, Out, BLOCK: ConstInt, D: ConstInt):
    b = ct.bid(0)
    seq_len = ct.load(SeqLens, index=(b,), shape=())
    if seq_len == 0:
        return
    q = ct.load(Q, index=(b, 0), shape=(1, D))
    m_i = -math.inf
    l_i = 0.0
    acc = ct.zeros((1, D), dtype=ct.float32)
    for i in range(ct.cdiv(seq_len, BLOCK)):
        page = ct.load(PageTable, index=(b, i), shape=())
        k = ct.reshape(ct.load(K, index=(page, 0, 0), shape=(1, BLOCK, D)), (BLOCK, D))
        v = ct.reshape(ct.load(V, index=(page, 0, 0), shape=(1, BLOCK, D)), (BLOCK, D))
        s = ct.sum(q * k, axis=1)
        offs = i * BLOCK + ct.arange(BLOCK, dtype=ct.int32)
        s = ct.where(offs < seq_len, s, -math.inf)
        m_new = ct.maximum(m_i, ct.max(s))
        p = ct.exp(s - m_new)
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p)
        acc = acc * alpha + ct.sum(p[:, None] * v, axis=0, keepdims=True)
        m_i = m_new
    ct.store(Out, index=(b, 0), tile=acc / l_i)


if __name__ == "__main__":
    B, NP, BLOCK, D = 6, 8, 16, 64
    NPAGES = B * NP
    Q = torch.randn(B, D)
    K = torch.randn(NPAGES, BLOCK, D)
    V = torch.randn(NPAGES, BLOCK, D)
    # Batch b owns pages PageTable[b, :], a permutation of all pages.
    PageTable = ((torch.arange(NPAGES, dtype=torch.int32) * 7) % NPAGES).reshape(B, NP)
    SeqLens = torch.zeros(B, dtype=torch.int32)
    SeqLens[1:] = torch.arange(B - 1, dtype=torch.int32) * 31 + 1   # 0, 1, 32, 63, 94, 125
    Out = torch.full((B, D), 7.0)
    ct.launch(torch.cuda.current_stream(), (B,), paged_decode, (Q, K, V, PageTable, SeqLens, Out, BLOCK, D))
    # The reference: each batch's pages in its order, then a masked softmax
    # over its first SeqLens[b] keys.
    Kp = K.double()[PageTable.long()].reshape(B, NP * BLOCK, D)
    Vp = V.double()[PageTable.long()].reshape(B, NP * BLOCK, D)
    for b in range(B):
        n = SeqLens[b].item()
        if n == 0:
            torch.testing.assert_close(Out[b], torch.full((D,), 7.0))
            continue
        s = torch.matmul(Kp[b], Q[b].double())
        s[n:] = -math.inf
        w = torch.exp(s - torch.max(s, dim=0).values)
        want = torch.matmul(w, Vp[b]) / torch.sum(w)
        torch.testing.assert_close(Out[b].double(), want, rtol=1e-5, atol=1e-5)
    print("ok")
