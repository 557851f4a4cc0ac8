#!/usr/bin/env python3
"""Checks tilec-generated PTX on a GPU without the Go runtime.

Reads DIR/kernels.json (written by `go run ./ptxgen/internal/writeptx -out DIR`),
assembles every PTX with ptxas for several architectures (registers, spills), loads
each sm_80 kernel with CuPy, runs it on random inputs with a NaN-poisoned output,
compares with a float32 torch reference, and times matmuls against torch.matmul (cuBLAS).

usage: ptx_check.py DIR [--perf N,N,...] [--perf-kernels NAME[:N/N],...] [--only NAME,...] [--batch B]
"""
import json, os, subprocess, sys, time, argparse
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("dir")
ap.add_argument("--perf", default="1024,2048,4096,8192,16384")
ap.add_argument("--perf-kernels", default="matmul_f16")
ap.add_argument("--only", default="")
ap.add_argument("--no-ptxas", action="store_true")
ap.add_argument("--archs", default="sm_80,sm_90,sm_120a")
ap.add_argument("--rounds", type=int, default=1, help="repeat the whole perf sweep")
ap.add_argument("--batch", type=int, default=10, help="launches per timed sample (1: per-launch timing as in v1-v3)")
args = ap.parse_args()

out = os.environ.get("OUT", "/tmp")
D = args.dir
ks = json.load(open(os.path.join(D, "kernels.json")))
if args.only:
    keep = set(args.only.split(","))
    ks = [k for k in ks if k["name"] in keep]

def log(*a):
    print(*a, flush=True)

# 1. ptxas
if not args.no_ptxas:
    for k in ks:
        for arch in args.archs.split(","):
            if k["target"] == "sm_120a" and arch != "sm_120a":
                continue
            p = subprocess.run(["ptxas", "-arch=" + arch, "-v", os.path.join(D, k["ptx"]), "-o", "/tmp/k.cubin"],
                               capture_output=True, text=True)
            info = " ".join(l.strip() for l in (p.stdout + p.stderr).splitlines()
                            if "Used" in l or "spill" in l or "error" in l.lower())
            log(f"ptxas {arch:8s} {k['name']:24s} rc={p.returncode} {info}")

import torch, cupy as cp

TD = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
mods = {}

def func(k):
    if k["name"] not in mods:
        m = cp.RawModule(path=os.path.join(D, k["ptx"]))
        f = m.get_function(k["entry"])
        if k["smem"] > 0:
            f.max_dynamic_shared_size_bytes = k["smem"]
        mods[k["name"]] = (m, f)
    return mods[k["name"]][1]

def launch_args(k, tensors, scalars):
    a = []
    for s in k["slots"]:
        p = k["params"][s["param"]]
        if s["kind"] == "pointer":
            a.append(np.uint64(tensors[p["name"]].data_ptr()))
        elif s["kind"] == "dim":
            a.append(np.int32(tensors[p["name"]].shape[s["axis"]]))
        elif s["kind"] == "stride":
            a.append(np.int64(tensors[p["name"]].stride(s["axis"])))
        else:
            a.append(np.float32(scalars[p["name"]]))
    return tuple(a)

def grid(k, syms):
    return tuple(int(eval(g, {}, dict(syms))) for g in k["grid"])

def run(k, tensors, scalars, syms):
    f = func(k)
    g = grid(k, syms)
    f(g, tuple(k["block"]), launch_args(k, tensors, scalars), shared_mem=k["smem"])

def make_matmul(k, M, N, K):
    dt = TD[k["dtype"]]
    g = torch.Generator(device="cuda").manual_seed(M * 7 + N * 3 + K)
    A = torch.randn(M, K, device="cuda", generator=g).to(dt)
    if k["ref"] == "matmul_bt":
        B = torch.randn(N, K, device="cuda", generator=g).to(dt)
    else:
        B = torch.randn(K, N, device="cuda", generator=g).to(dt)
    C = torch.full((M, N), float("nan"), device="cuda").to(dt)
    t = {"A": A, "B": B, "C": C}
    if k["ref"] == "matmul_bias_relu":
        t["bias"] = torch.randn(N, device="cuda", generator=g).to(dt)
    return t

def ref_matmul(k, t):
    A, B = t["A"].float(), t["B"].float()
    if k["dtype"] == "f32":  # tf32 inputs: round to 10-bit mantissa like cvt.rna
        def rna(x):
            i = x.view(torch.int32)
            i = (i + 0x1000) & ~0x1FFF
            return i.view(torch.float32)
        A, B = rna(A.clone()), rna(B.clone())
    if k["ref"] == "matmul_bt":
        B = B.t()
    r = A @ B
    if k["ref"] == "matmul_bias_relu":
        r = torch.relu(r + t["bias"].float()[None, :])
    return r

TOL = {"f16": 2e-2, "bf16": 3e-2, "f32": 2e-2}
results = {"correct": [], "perf": []}
fails = 0
torch.backends.cuda.matmul.allow_tf32 = False

for k in ks:
    if k["target"] != "sm_80" or not k["ref"]:
        continue
    try:
        if k["ref"].startswith("matmul"):
            sizes = [(256, 512, 128), (128, 256, 64), (1000, 1030, 999), (127, 129, 65), (1, 4096, 4096), (4096, 1, 4096), (2048, 2048, 2048)]
            for (M, N, K) in sizes:
                t = make_matmul(k, M, N, K)
                run(k, t, {}, {"M": M, "N": N, "K": K})
                torch.cuda.synchronize()
                ref = ref_matmul(k, t)
                got = t["C"].float()
                nan = int(torch.isnan(got).sum())
                err = float((got - ref).abs().max() / ref.abs().max().clamp_min(1e-6))
                ok = nan == 0 and err < TOL[k["dtype"]]
                fails += not ok
                log(f"check {k['name']:24s} M={M:5d} N={N:5d} K={K:5d} relerr={err:.2e} nan={nan} {'OK' if ok else 'FAIL'}")
                results["correct"].append(dict(name=k["name"], M=M, N=N, K=K, err=err, nan=nan, ok=ok))
        elif k["ref"] == "vector_add":
            pn = [p["name"] for p in k["params"]]
            for n in [1024, 1000, 1 << 20, 12345]:
                dt = TD[k["dtype"]]
                a = torch.randn(n, device="cuda").to(dt); b = torch.randn(n, device="cuda").to(dt)
                c = torch.full((n,), float("nan"), device="cuda").to(dt)
                run(k, {pn[0]: a, pn[1]: b, pn[2]: c}, {}, {"N": n})
                torch.cuda.synchronize()
                err = float((c.float() - (a.float() + b.float())).abs().max())
                nan = int(torch.isnan(c.float()).sum())
                ok = nan == 0 and err < 1e-2
                fails += not ok
                log(f"check {k['name']:24s} n={n} maxerr={err:.2e} nan={nan} {'OK' if ok else 'FAIL'}")
                results["correct"].append(dict(name=k["name"], n=n, err=err, ok=ok))
        elif k["ref"] == "broadcast":
            for (M, N) in [(32, 64), (100, 77), (1000, 1000), (1, 3)]:
                X = torch.randn(M, N, device="cuda"); sc = torch.randn(N, device="cuda"); sh = torch.randn(M, device="cuda")
                O = torch.full((M, N), float("nan"), device="cuda")
                run(k, {"X": X, "scale": sc, "shift": sh, "Out": O}, {}, {"M": M, "N": N})
                torch.cuda.synchronize()
                y = X * sc[None, :] + sh[:, None]
                y = torch.where(y > 0, y, 0.1 * y)
                ref = torch.where(X.abs() < 1.0, torch.tanh(y), y)
                err = float(((O - ref).abs() / ref.abs().clamp_min(1)).max())
                nan = int(torch.isnan(O).sum())
                ok = nan == 0 and err < 2e-3
                fails += not ok
                log(f"check {k['name']:24s} M={M} N={N} err={err:.2e} nan={nan} {'OK' if ok else 'FAIL'}")
                results["correct"].append(dict(name=k["name"], M=M, N=N, err=err, ok=ok))
        elif k["ref"] == "row_bias":
            for (M, N) in [(64, 128), (100, 77), (1000, 1000)]:
                X = torch.randn(M, N, device="cuda"); bias = torch.randn(N, device="cuda")
                O = torch.full((M, N), float("nan"), device="cuda")
                run(k, {"X": X, "bias": bias, "O": O}, {"scale": 0.5}, {"M": M, "N": N})
                torch.cuda.synchronize()
                ref = torch.exp(X) * 0.5 + bias[None, :]
                err = float(((O - ref).abs() / ref.abs().clamp_min(1)).max())
                nan = int(torch.isnan(O).sum())
                ok = nan == 0 and err < 1e-4
                fails += not ok
                log(f"check {k['name']:24s} M={M} N={N} err={err:.2e} nan={nan} {'OK' if ok else 'FAIL'}")
                results["correct"].append(dict(name=k["name"], M=M, N=N, err=err, ok=ok))
    except Exception as ex:
        fails += 1
        log(f"check {k['name']}: EXCEPTION {ex!r}")

def timeit(fn, reps=20, batch=None):
    """Median over reps samples of the GPU time per launch. Each sample
    times `batch` back-to-back launches between two events, so that the
    host's launch overhead (Python argument packing, tens of microseconds)
    overlaps the previous launch instead of being counted; --batch 1 is the
    old per-launch timing (v1-v3 figures), which adds that overhead."""
    batch = batch or args.batch
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(batch):
            fn()
        e.record(); torch.cuda.synchronize()
        ts.append(s.elapsed_time(e) / batch)
    return float(np.median(ts))

def prepared(k, tensors, scalars, syms):
    """A launch closure with the grid and arguments computed once."""
    f = func(k)
    g = grid(k, syms)
    a = launch_args(k, tensors, scalars)
    blk, sm = tuple(k["block"]), k["smem"]
    return lambda: f(g, blk, a, shared_mem=sm)

# --perf-kernels name[:n/n/n],...
perf_sizes = {}
for spec in args.perf_kernels.split(","):
    if not spec:
        continue
    name, _, sz = spec.partition(":")
    perf_sizes[name] = [int(x) for x in (sz.split("/") if sz else args.perf.split(",")) if x]
# Size-major order (every kernel at the smallest N first), repeated --rounds
# times: a kernel timed right after a long 16384 run meets a hotter,
# power-capped GPU, which biased kernel-major A/B comparisons.
jobs = []
for r in range(args.rounds):
    for n in sorted({n for v in perf_sizes.values() for n in v}):
        for k in ks:
            if n in perf_sizes.get(k["name"], []):
                jobs.append((k, n))
for (k, n) in jobs:
    if True:
        try:
            t = make_matmul(k, n, n, n)
            syms = {"M": n, "N": n, "K": n}
            ms = timeit(prepared(k, t, {}, syms))
            A, B = t["A"], t["B"]
            if k["dtype"] == "f32":
                torch.backends.cuda.matmul.allow_tf32 = True
            Bm = B.t() if k["ref"] == "matmul_bt" else B
            ms_ref = timeit(lambda: torch.matmul(A, Bm))
            torch.backends.cuda.matmul.allow_tf32 = False
            fl = 2.0 * n * n * n
            tf, tfr = fl / ms / 1e9, fl / ms_ref / 1e9
            log(f"perf {k['name']:24s} N={n:6d} tilec {ms:8.3f} ms {tf:7.1f} TFLOP/s   cuBLAS {ms_ref:8.3f} ms {tfr:7.1f} TFLOP/s   ratio {tf / tfr:.3f}")
            results["perf"].append(dict(name=k["name"], N=n, ms=ms, tflops=tf, cublas_ms=ms_ref, cublas_tflops=tfr))
            del t
            torch.cuda.empty_cache()
        except Exception as ex:
            log(f"perf {k['name']} N={n}: EXCEPTION {ex!r}")

json.dump(results, open(os.path.join(out, "results.json"), "w"), indent=1)
log(f"failures: {fails}")
