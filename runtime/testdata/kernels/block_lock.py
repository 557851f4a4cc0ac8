# Blocks that meet under a spin lock, as cuTile's split-K matmul test does:
# each block sums its rows of X, takes the lock with a rank-0 atomic_cas
# (ACQUIRE), adds its sums into Acc, releases the lock with atomic_xchg
# (RELEASE), then draws a ticket from a rank-0 atomic_add whose old value
# it uses. A rank-0 tile is held by every thread of the block: the GPU must
# perform each of these atomics once per block (thread 0), give every
# thread the old value, and order the block's other accesses after the
# acquire and before the release. Integers, so that the result does not
# depend on the blocks' order: Acc is the column sums of X, Count the
# number of blocks, and every ticket 0..B-1 is drawn once (Seen all ones).
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def block_lock_kernel(X, Acc, Lock, Count, Seen, TM: ConstInt, TN: ConstInt):
    b = ct.bid(0)
    part = ct.reshape(ct.sum(ct.load(X, index=(b, 0), shape=(TM, TN)), axis=0), (1, TN))
    while ct.atomic_cas(Lock, 0, 0, 1, memory_order=ct.MemoryOrder.ACQUIRE) == 1:
        pass
    acc = ct.load(Acc, index=(0, 0), shape=(1, TN))
    ct.store(Acc, index=(0, 0), tile=acc + part)
    ct.atomic_xchg(Lock, 0, 0, memory_order=ct.MemoryOrder.RELEASE)
    ticket = ct.atomic_add(Count, 0, 1)
    ct.scatter(Seen, ticket, 1)


def block_lock(X):
    TM, TN = 16, 64
    blocks = ct.cdiv(X.shape[0], TM)
    acc = torch.zeros((1, TN), dtype=torch.int32, device=X.device)
    lock = torch.zeros((1,), dtype=torch.int32, device=X.device)
    count = torch.zeros((1,), dtype=torch.int32, device=X.device)
    seen = torch.zeros((blocks,), dtype=torch.int32, device=X.device)
    ct.launch(torch.cuda.current_stream(), (blocks, 1, 1), block_lock_kernel, (X, acc, lock, count, seen, TM, TN))
    return acc, count, seen


if __name__ == "__main__":
    X = (torch.arange(64000, dtype=torch.int32, device="cuda") * 7919 % 201 - 100).reshape(1000, 64)
    acc, count, seen = block_lock(X)
    assert (acc[0] - X.sum(dim=0)).abs().max().item() == 0, "column sums"
    assert count.item() == 63, count.item()
    assert seen.min().item() == 1 and seen.max().item() == 1, "tickets"
    print("block_lock: 63 blocks, sums and tickets match")
