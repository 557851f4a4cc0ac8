# MoE block alignment (vLLM's moe_align_block_size) in one block: tokens
# are grouped by expert (ids taken modulo the number of experts), each
# group padded to a multiple of BLOCK. ct.cumsum over the padded counts
# gives the groups' offsets, ct.cumsum along the tokens each token's rank
# in its group. Results: sorted_ids (token ids by expert, padding slots
# hold n), block_expert (the expert of each BLOCK of sorted_ids; 0 past the
# total) and total (the padded length).
import math

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def moe_align_kernel(TopkIds, SortedIds, BlockExpert, Total, n: int,
                     EXPERTS: ConstInt, TOKENS: ConstInt, BLOCK: ConstInt, MAX_BLOCKS: ConstInt):
    t = ct.arange(TOKENS, dtype=ct.int32)
    ids = ct.gather(TopkIds, t, padding_value=-1)
    valid = t < n
    ids = ct.where(valid, ids % EXPERTS, EXPERTS)
    e = ct.arange(EXPERTS, dtype=ct.int32)
    hot = ct.astype(ids[None, :] == e[:, None], ct.int32)
    counts = ct.sum(hot, axis=1)
    padded = (counts + (BLOCK - 1)) // BLOCK * BLOCK
    ends = ct.cumsum(padded, axis=0)
    starts = ends - padded
    total = ct.sum(padded)
    ct.store(Total, index=(0,), tile=ct.reshape(total, (1,)))
    rank = ct.cumsum(hot, axis=1) - 1
    pos = ct.sum(hot * (starts[:, None] + rank), axis=0)
    slots = ct.arange(MAX_BLOCKS * BLOCK, dtype=ct.int32)
    ct.scatter(SortedIds, slots, ct.full((MAX_BLOCKS * BLOCK,), 0, dtype=ct.int32) + n)
    ct.scatter(SortedIds, pos, t, mask=valid)
    j = ct.arange(MAX_BLOCKS, dtype=ct.int32) * BLOCK
    owner = ct.sum(ct.astype(ends[:, None] <= j[None, :], ct.int32), axis=0)
    ct.scatter(BlockExpert, ct.arange(MAX_BLOCKS, dtype=ct.int32), owner, mask=j < total)


def moe_align(topk_ids, num_experts=8, block_size=16):
    n = topk_ids.shape[0]
    tokens = 2 ** math.ceil(math.log2(max(n, 2)))
    max_blocks = 2 ** math.ceil(math.log2(ct.cdiv(n + num_experts * (block_size - 1), block_size)))
    sorted_ids = torch.empty((max_blocks * block_size,), dtype=torch.int32, device=topk_ids.device)
    block_expert = torch.zeros((max_blocks,), dtype=torch.int32, device=topk_ids.device)
    total = torch.empty((1,), dtype=torch.int32, device=topk_ids.device)
    ct.launch(torch.cuda.current_stream(), (1, 1, 1), moe_align_kernel,
              (topk_ids, sorted_ids, block_expert, total, n, num_experts, tokens, block_size, max_blocks))
    return sorted_ids, block_expert, total
