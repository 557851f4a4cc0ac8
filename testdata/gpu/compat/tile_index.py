# A rank-0 tile in a load's or store's index, as MoE kernels route rows by
# an expert id they load (order= and a padding mode included, and a
# scalar load of shape ()), for the GPU check (testdata/gpu/cases.txt).
# Each launch is checked against the interpreter; the driver also checks
# the routed rows against float64.
import cuda.tile as ct
import torch


@ct.kernel
def route_rows(W, Ids, X, Y, TILE: ct.Constant[int]):
    # Block b reads the expert id of its row (a rank-0 tile) and scales its
    # row of X by that expert's row of W, read transposed through order=;
    # the result goes to the row the id names in Y, and X[b, e] to row
    # e + E of Y.
    bid = ct.bid(0)
    e = ct.load(Ids, index=(bid,), shape=(1,)).item()
    w = ct.load(W, index=(0, e), shape=(TILE, 1), order=(1, 0))
    x = ct.load(X, index=(bid, 0), shape=(1, TILE))
    ct.store(Y, index=(e, 0), tile=x * ct.permute(w, (1, 0)))
    last = ct.load(X, index=(bid, e), shape=(), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(Y, index=(e + 64, 0), tile=ct.full((1, TILE), last, dtype=ct.float32))


if __name__ == "__main__":
    E, T = 64, 128
    W = torch.randn(E, T)
    # A permutation of the experts: block b routes to (b * 5 + 3) % E.
    Ids = ((torch.arange(E, dtype=torch.int32) * 5 + 3) % E).to(torch.int32)
    X = torch.randn(E, T)
    Y = torch.zeros(2 * E, T)
    ct.launch(torch.cuda.current_stream(), (E,), route_rows, (W, Ids, X, Y, T))
    x, w = X.double(), W.double()
    want = torch.zeros(2 * E, T, dtype=torch.float64)
    want[Ids.long()] = x * w[Ids.long()]
    want[Ids.long() + E] = x[torch.arange(E), Ids.long()].reshape(E, 1) * torch.ones(1, T, dtype=torch.float64)
    torch.testing.assert_close(Y.double(), want)
    print("ok")
