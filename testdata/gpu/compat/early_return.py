# A kernel's early exit (if n == 0: return) and a return after a store
# under an if, for the GPU check (testdata/gpu/cases.txt): the rows the
# kernel leaves keep their values. Each launch is checked against the
# interpreter; the driver also checks every row against float64.
import cuda.tile as ct
import torch


@ct.kernel
def scale_rows(X, Lens, Y, TILE: ct.Constant[int]):
    # Rows of length 0 are left as they are (early exit); rows longer than
    # 2 are doubled, the others negated.
    bid = ct.bid(0)
    n = ct.load(Lens, index=(bid,), shape=(1,)).item()
    if n == 0:
        return
    x = ct.load(X, index=(bid, 0), shape=(1, TILE))
    if n > 2:
        ct.store(Y, index=(bid, 0), tile=x * 2.0)
        return
    ct.store(Y, index=(bid, 0), tile=-x)


if __name__ == "__main__":
    R, C = 300, 128
    X = torch.randn(R, C)
    Lens = torch.arange(R, dtype=torch.int32) * 7 % 5
    Y = torch.full((R, C), 7.0)
    ct.launch(torch.cuda.current_stream(), (R,), scale_rows, (X, Lens, Y, C))
    x = X.double()
    n = Lens.double().reshape(R, 1)
    zero = (n == 0).double()
    big = (n > 2).double()
    want = zero * 7.0 + (1 - zero) * (big * 2 * x - (1 - big) * x)
    torch.testing.assert_close(Y.double(), want)
    print("ok")
