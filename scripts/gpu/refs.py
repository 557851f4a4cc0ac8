#!/usr/bin/env python3
"""refs.py: reference timings of tilec's example kernels' PyTorch and Triton
equivalents, on the GPU that runs tilec, for the ratios of issues 8 and 12.

  python3 refs.py torch [--json refs.json] [--parts gemm,triton,bmm,addmm,rows,sdpa,decode,fp8,decgemm] [--quick]
      times the references with triton.testing.do_bench (median; CUDA events
      when triton is missing) and prints a table; --json writes every result.
  python3 refs.py tilec-bench REPORT.json --op matmul/f16 --impl NAME
      reads a `tilec bench --json` report, prints one TSV line per row:
      key, impl, milliseconds. Reports of `tilec bench FILE --entry FUNC`
      (examples/cutile's softmax, layernorm, rmsnorm, split_k_matmul) read
      the same: a row's milliseconds are the median repetition's sum of the
      kernel times of the launches (each timed alone, L2 cleared first).
  python3 refs.py tilec-entry RUN.log --key softmax/f16/4096 --impl NAME
      reads the output of `tilec run --entry bench_... --scalar reps=R`: the
      median over repetitions 2..R (the first is cold) of the kernel times of
      one repetition (the sum of its launches); prints one TSV line. (Each
      launch there is timed right after its upload, on an idle stream: the
      host's launch latency is in it. gpu-check no longer uses it: attention
      is timed with tilec bench --entry as the other host functions are.)
  python3 refs.py ratios refs.json tilec.tsv
      joins the two by key: reference ms / tilec ms (above 1: tilec is faster).
  python3 refs.py selftest
      the tests of the parts that need no GPU (parsing, keys, ratios).

Keys name an operation, a dtype and a shape: matmul/f16/4096 (square),
bmm/f16/16x1024 (batch 16 of 1024^3), addmm_relu/f16/8192, softmax/f32/8192
(8192^2), sdpa/f16/B4H16S4096D64/causal, decode/f16/B8H32KV8S4096D128 (one
query token per sequence: 32 query heads over 8 KV heads), fp8_gemm/e4m3/128x4096x7168
(C = A @ B^T with A (M, K) and B (N, K) in float8 e4m3, per-tensor scales, bf16
out: torch._scaled_mm with use_fast_accum, which is what one wgmma chain
computes; the promoted form's time is in the note). A bench row's shape label is its
distinct dims in ascending order joined by x (M=N=K=4096: 4096; Bt=16,
M=N=K=1024: 16x1024), which gives the same keys.

Runs offline: python3 with torch (2.11), triton (3.6) and numpy; torch and
triton are imported only by the torch subcommand.
"""

import argparse
import json
import math
import re
import statistics
import sys

# ---------------------------------------------------------------- cases (no GPU)

GEMM_SIZES = [1024, 2048, 4096, 8192, 16384]
ROW_SIZES = [4096, 8192]
SDPA_SEQS = [4096, 16384]
SDPA_DIMS = [64, 128]
# Decode attention (issue 26): B sequences of one query token, H query heads
# over H_kv KV heads (grouped-query), KV caches of S keys, D = 128.
DECODE_SHAPE = dict(B=8, H=32, Hkv=8, D=128)
DECODE_SEQS = [4096, 16384]
# (M, N, K) of the float8 GEMMs: square, and two decode-shaped linear layers
# (a batch of 128 or 256 tokens through a 4096 -> 7168 projection).
FP8_SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (128, 7168, 4096), (256, 7168, 4096)]
# (M, N, K) of the decode-shaped f16 GEMMs: 16-256 tokens through a 4096 x 4096 layer
# (matmul/f16/16x4096), and 128 through a 4096 -> 14336 MLP projection.
DECODE_GEMMS = [(16, 4096, 4096), (64, 4096, 4096), (128, 4096, 4096), (256, 4096, 4096), (128, 14336, 4096)]


def shape_label(values):
    """The shape part of a key: distinct sizes, ascending, joined by x."""
    return "x".join(str(v) for v in sorted(set(int(v) for v in values)))


def key(op, dtype, label):
    return "%s/%s/%s" % (op, dtype, label)


def sdpa_label(b, h, s, d, causal):
    return "B%dH%dS%dD%d/%s" % (b, h, s, d, "causal" if causal else "full")


def decode_label(b, h, hkv, s, d):
    return "B%dH%dKV%dS%dD%d" % (b, h, hkv, s, d)


def cases(parts, quick=False):
    """Every reference case as a dict: key, op, dtype, shape (a dict), part."""
    gemm = GEMM_SIZES[:3] if quick else GEMM_SIZES
    rows = ROW_SIZES[:1] if quick else ROW_SIZES
    seqs = SDPA_SEQS[:1] if quick else SDPA_SEQS
    out = []
    if "gemm" in parts:
        for dt in ("f16", "bf16"):
            for n in gemm:
                out.append(dict(key=key("matmul", dt, n), op="matmul", dtype=dt, shape=dict(M=n, N=n, K=n), part="gemm"))
    if "triton" in parts:
        for n in gemm:
            out.append(dict(key=key("triton_matmul", "f16", n), op="triton_matmul", dtype="f16",
                            shape=dict(M=n, N=n, K=n), part="triton"))
    if "bmm" in parts:
        out.append(dict(key=key("bmm", "f16", shape_label([16, 1024])), op="bmm", dtype="f16",
                        shape=dict(Bt=16, M=1024, N=1024, K=1024), part="bmm"))
    if "addmm" in parts:
        for n in (4096, 8192):
            out.append(dict(key=key("addmm_relu", "f16", n), op="addmm_relu", dtype="f16",
                            shape=dict(M=n, N=n, K=n), part="addmm"))
    if "rows" in parts:
        for op in ("softmax", "layernorm", "rmsnorm"):
            for dt in ("f16", "f32"):
                for n in rows:
                    out.append(dict(key=key(op, dt, n), op=op, dtype=dt, shape=dict(M=n, N=n), part="rows"))
    if "sdpa" in parts:
        for s in seqs:
            for d in SDPA_DIMS:
                for causal in (False, True):
                    out.append(dict(key=key("sdpa", "f16", sdpa_label(4, 16, s, d, causal)), op="sdpa", dtype="f16",
                                    shape=dict(B=4, H=16, S=s, D=d, causal=causal), part="sdpa"))
    if "decode" in parts:
        for s in (DECODE_SEQS[:1] if quick else DECODE_SEQS):
            shape = dict(DECODE_SHAPE, S=s)
            out.append(dict(key=key("decode", "f16", decode_label(shape["B"], shape["H"], shape["Hkv"], s, shape["D"])),
                            op="decode", dtype="f16", shape=shape, part="decode"))
    if "decgemm" in parts:
        for m, n, k in (DECODE_GEMMS[:1] if quick else DECODE_GEMMS):
            out.append(dict(key=key("matmul", "f16", shape_label([m, n, k])), op="matmul", dtype="f16",
                            shape=dict(M=m, N=n, K=k), part="decgemm"))
    if "fp8" in parts:
        for m, n, k in (FP8_SHAPES[:1] if quick else FP8_SHAPES):
            out.append(dict(key=key("fp8_gemm", "e4m3", shape_label([m, n, k])), op="fp8_gemm", dtype="e4m3",
                            shape=dict(M=m, N=n, K=k), part="fp8"))
    return out


def work(case):
    """(flops, bytes) of a case: the useful work, as tilec bench counts it for one-pass kernels."""
    op, s = case["op"], case["shape"]
    if op == "fp8_gemm":
        # One-byte A and B in, bf16 C out.
        m, n, k = s["M"], s["N"], s["K"]
        return 2.0 * m * n * k, float(m * k + n * k + 2 * m * n)
    size = {"f16": 2, "bf16": 2, "f32": 4}[case["dtype"]]
    if op in ("matmul", "triton_matmul", "addmm_relu"):
        m, n, k = s["M"], s["N"], s["K"]
        return 2.0 * m * n * k, float(size * (m * k + k * n + m * n))
    if op == "bmm":
        b, m, n, k = s["Bt"], s["M"], s["N"], s["K"]
        return 2.0 * b * m * n * k, float(size * b * (m * k + k * n + m * n))
    if op in ("softmax", "layernorm", "rmsnorm"):
        m, n = s["M"], s["N"]
        extra = {"softmax": 0, "layernorm": 2 * n, "rmsnorm": n}[op]  # W, Bias
        return 0.0, float(size * (2 * m * n + extra))
    if op == "sdpa":
        b, h, sq, d = s["B"], s["H"], s["S"], s["D"]
        flops = 4.0 * b * h * sq * sq * d
        if s["causal"]:
            flops /= 2
        return flops, float(2 * 4 * b * h * sq * d)
    if op == "decode":
        # Bound by reading the caches: K and V once, q read and out written.
        b, h, hkv, sk, d = s["B"], s["H"], s["Hkv"], s["S"], s["D"]
        return 4.0 * b * h * sk * d, float(size * (2 * b * hkv * sk * d + 2 * b * h * d))
    raise ValueError("unknown op " + op)


def rates(case, ms):
    flops, nbytes = work(case)
    sec = ms * 1e-3
    return (flops / sec / 1e12 if flops else 0.0), nbytes / sec / 1e9


# ---------------------------------------------------------------- tilec output (no GPU)

_UNITS = {"ns": 1e-6, "µs": 1e-3, "us": 1e-3, "ms": 1.0, "s": 1e3}
_LAUNCH = re.compile(r"^launch\s+(\S+) at .*, (\d+(?:\.\d+)?)(ns|µs|us|ms|s)\s*$")
_REPS = re.compile(r"^input\s+reps = (\d+)\s*$")


def parse_duration_ms(value, unit):
    return float(value) * _UNITS[unit]


def entry_launches(text):
    """[(kernel, ms)] of the launch lines of `tilec run --entry` output."""
    out = []
    for line in text.splitlines():
        m = _LAUNCH.match(line.strip())
        if m:
            out.append((m.group(1), parse_duration_ms(m.group(2), m.group(3))))
    return out


def entry_reps(text, default=None):
    for line in text.splitlines():
        m = _REPS.match(line.strip())
        if m:
            return int(m.group(1))
    return default


def entry_time_ms(text, reps=None):
    """The median kernel time of one repetition, skipping the first (cold) one
    when there are several; a repetition is len(launches)/reps launches."""
    launches = entry_launches(text)
    reps = reps or entry_reps(text, 1)
    if not launches:
        raise ValueError("no launch lines")
    if len(launches) % reps:
        raise ValueError("%d launches are not %d repetitions" % (len(launches), reps))
    per = len(launches) // reps
    totals = [sum(ms for _, ms in launches[i * per:(i + 1) * per]) for i in range(reps)]
    if len(totals) > 1:
        totals = totals[1:]
    return statistics.median(totals)


def bench_rows(report, op):
    """[(key, ms)] of a `tilec bench --json` report; op is e.g. matmul/f16
    (the key gets each row's shape label), or a whole key such as
    sdpa/f16/B4H16S4096D64/full for a report of one shape (kept as it is:
    the kernel's dims, (BH, S) say, need not spell the reference's)."""
    out = []
    whole = len(op.split("/")) >= 3
    for row in report.get("rows", []):
        if row.get("tilec_ms", 0) > 0:
            k = op if whole else "%s/%s" % (op, shape_label(row["dims"].values()))
            out.append((k, row["tilec_ms"]))
    return out


def read_tsv(text):
    """[(key, impl, ms)] of tilec-bench / tilec-entry lines."""
    out = []
    for line in text.splitlines():
        f = line.rstrip("\n").split("\t")
        if len(f) == 3 and f[2]:
            try:
                out.append((f[0], f[1], float(f[2])))
            except ValueError:
                pass
    return out


def ratio_rows(refs, tilec):
    """Rows (key, impl, tilec ms, ref name, ref ms, ratio) for every tilec
    result with a reference of the same key; the reference of matmul keys is
    torch (cuBLAS), and Triton's GEMM gets its own row."""
    by_key = {}
    for r in refs.get("results", []):
        if r.get("ms"):
            by_key.setdefault(r["key"], []).append(r)
            if r["op"] == "triton_matmul":
                by_key.setdefault(r["key"].replace("triton_matmul/", "matmul/", 1), []).append(r)
    out = []
    for k, impl, ms in tilec:
        for r in by_key.get(k, []):
            out.append((k, impl, ms, r["impl"], r["ms"], r["ms"] / ms if ms > 0 else float("nan")))
    return out


def format_table(header, rows):
    cols = [list(map(str, header))] + [[c if isinstance(c, str) else ("%.4g" % c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cols) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cols]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def result_line(cols):
    """One row of the reference table, fixed widths (printed as it is measured)."""
    k, impl, ms, tflops, gbs, note = cols
    num = (lambda v, f: f % v if isinstance(v, float) else str(v))
    return "%-36s %-16s %10s %9s %9s  %s" % (k, impl, num(ms, "%.4f"), num(tflops, "%.1f"), num(gbs, "%.1f"), note)


# ---------------------------------------------------------------- GPU side

def _gpu_modules():
    import torch  # noqa: F401 (imported here: the other subcommands run without it)
    try:
        import triton
        import triton.language as tl
    except ImportError:
        triton, tl = None, None
    return torch, triton, tl


def _timer(torch, triton):
    if triton is not None:
        from triton.testing import do_bench

        def run(fn):
            return float(do_bench(fn, warmup=25, rep=100, return_mode="median"))
        return run

    def run(fn):
        for _ in range(5):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(30):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            torch.cuda.synchronize()
            times.append(a.elapsed_time(b))
        return statistics.median(times)
    return run


def _make_triton_gemm(triton, tl):
    """A GEMM in Triton: one program per (BM, BN) tile of C, tiles taken in
    groups of GROUP tile rows so that programs running together share A's
    rows and B's columns in L2; K in steps of BK, accumulated in float32."""

    configs = [
        triton.Config({"BM": 128, "BN": 256, "BK": 64, "GROUP": 8}, num_stages=3, num_warps=8),
        triton.Config({"BM": 128, "BN": 256, "BK": 64, "GROUP": 8}, num_stages=4, num_warps=8),
        triton.Config({"BM": 128, "BN": 128, "BK": 64, "GROUP": 8}, num_stages=4, num_warps=4),
        triton.Config({"BM": 64, "BN": 128, "BK": 64, "GROUP": 8}, num_stages=4, num_warps=4),
    ]

    @triton.autotune(configs=configs, key=["M", "N", "K"])
    @triton.jit
    def gemm_kernel(a, b, c, M, N, K, a_m, a_k, b_k, b_n, c_m, c_n,
                    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
        t = tl.program_id(0)
        tiles_m = tl.cdiv(M, BM)
        tiles_n = tl.cdiv(N, BN)
        per_group = GROUP * tiles_n
        first = (t // per_group) * GROUP
        height = tl.minimum(tiles_m - first, GROUP)
        within = t % per_group
        tile_m = first + within % height
        tile_n = within // height
        rm = tile_m * BM + tl.arange(0, BM)
        rn = tile_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        # Rows and columns past the edge read valid memory (wrapped) and are not stored.
        pa = a + (rm % M)[:, None] * a_m + rk[None, :] * a_k
        pb = b + rk[:, None] * b_k + (rn % N)[None, :] * b_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for step in range(0, tl.cdiv(K, BK)):
            left = K - step * BK
            x = tl.load(pa, mask=rk[None, :] < left, other=0.0)
            y = tl.load(pb, mask=rk[:, None] < left, other=0.0)
            acc = tl.dot(x, y, acc)
            pa += BK * a_k
            pb += BK * b_k
        pc = c + rm[:, None] * c_m + rn[None, :] * c_n
        tl.store(pc, acc.to(c.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))

    def gemm(A, B):
        M, K = A.shape
        _, N = B.shape
        C = A.new_empty((M, N))

        def grid(meta):
            return (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)
        gemm_kernel[grid](A, B, C, M, N, K, A.stride(0), A.stride(1), B.stride(0), B.stride(1),
                          C.stride(0), C.stride(1))
        return C

    return gemm, gemm_kernel


def run_torch(args):
    torch, triton, tl = _gpu_modules()
    import torch.nn.functional as F

    if not torch.cuda.is_available():
        print("refs.py: no CUDA device", file=sys.stderr)
        return 2
    dev = torch.device("cuda")
    dtypes = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
    timer = _timer(torch, triton)
    parts = set(args.parts.split(","))
    if triton is None and "triton" in parts:
        parts.discard("triton")
        print("refs.py: triton is missing: no Triton GEMM", file=sys.stderr)
    gemm = kernel = None
    if "triton" in parts:
        gemm, kernel = _make_triton_gemm(triton, tl)
    torch.manual_seed(0)
    results = []
    print(result_line(("key", "impl", "ms", "TFLOP/s", "GB/s", "note")))
    for case in cases(parts, args.quick):
        s, dt = case["shape"], dtypes.get(case["dtype"])
        note = ""
        try:
            if case["op"] in ("matmul", "triton_matmul"):
                A = torch.randn(s["M"], s["K"], device=dev, dtype=dt)
                B = torch.randn(s["K"], s["N"], device=dev, dtype=dt)
                if case["op"] == "matmul":
                    impl, fn = "torch.matmul", (lambda: torch.matmul(A, B))
                else:
                    impl, fn = "triton", (lambda: gemm(A, B))
                    if s["M"] <= 4096:
                        err = (gemm(A, B).float() - torch.matmul(A, B).float()).abs().max().item()
                        note = "max abs err vs torch %.3g" % err
                    ms = timer(fn)
                    cfg = getattr(kernel, "best_config", None)
                    if cfg is not None:
                        note = (note + "; " if note else "") + "config %s w%d s%d" % (
                            "x".join(str(cfg.kwargs[k]) for k in ("BM", "BN", "BK")), cfg.num_warps, cfg.num_stages)
                    fn = None
            elif case["op"] == "bmm":
                A = torch.randn(s["Bt"], s["M"], s["K"], device=dev, dtype=dt)
                B = torch.randn(s["Bt"], s["K"], s["N"], device=dev, dtype=dt)
                impl, fn = "torch.bmm", (lambda: torch.bmm(A, B))
            elif case["op"] == "addmm_relu":
                A = torch.randn(s["M"], s["K"], device=dev, dtype=dt)
                B = torch.randn(s["K"], s["N"], device=dev, dtype=dt)
                bias = torch.randn(s["N"], device=dev, dtype=dt)
                impl, fn = "torch.addmm+relu", (lambda: torch.relu(torch.addmm(bias, A, B)))
            elif case["op"] in ("softmax", "layernorm", "rmsnorm"):
                X = torch.randn(s["M"], s["N"], device=dev, dtype=dt)
                W = torch.randn(s["N"], device=dev, dtype=dt)
                Bias = torch.randn(s["N"], device=dev, dtype=dt)
                if case["op"] == "softmax":
                    impl, fn = "torch.softmax", (lambda: torch.softmax(X, dim=-1))
                elif case["op"] == "layernorm":
                    impl, fn = "F.layer_norm", (lambda: F.layer_norm(X, (s["N"],), W, Bias, 1e-5))
                else:
                    impl, fn = "F.rms_norm", (lambda: F.rms_norm(X, (s["N"],), W, 1e-6))
            elif case["op"] == "sdpa":
                from torch.nn.attention import SDPBackend, sdpa_kernel
                q, k, v = (torch.randn(s["B"], s["H"], s["S"], s["D"], device=dev, dtype=dt) for _ in range(3))
                causal = s["causal"]

                def fn():
                    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                impl = "sdpa flash"
            elif case["op"] == "decode":
                from torch.nn.attention import SDPBackend, sdpa_kernel
                q = torch.randn(s["B"], s["H"], 1, s["D"], device=dev, dtype=dt)
                k, v = (torch.randn(s["B"], s["Hkv"], s["S"], s["D"], device=dev, dtype=dt) for _ in range(2))

                def fn():
                    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                        return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
                impl = "sdpa flash gqa"
            elif case["op"] == "fp8_gemm":
                A = torch.randn(s["M"], s["K"], device=dev).to(torch.float8_e4m3fn)
                B = torch.randn(s["N"], s["K"], device=dev).to(torch.float8_e4m3fn)
                one = torch.tensor(1.0, device=dev)

                def scaled(fast):
                    return lambda: torch._scaled_mm(A, B.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16,
                                                    use_fast_accum=fast)
                note = "without fast_accum %.4f ms" % timer(scaled(False))
                impl, fn = "torch._scaled_mm fast_accum", scaled(True)
            else:
                raise ValueError(case["op"])
            if fn is not None:
                ms = timer(fn)
            tflops, gbs = rates(case, ms)
            results.append(dict(case, impl=impl, ms=ms, tflops=tflops, gbs=gbs, note=note))
        except Exception as e:  # one failing reference must not lose the others
            impl, ms, tflops, gbs = case["op"], 0.0, 0.0, 0.0
            note = "error: %s" % str(e).splitlines()[0][:120] if str(e) else "error: %s" % type(e).__name__
            results.append(dict(case, impl=impl, ms=0.0, note=note))
        print(result_line((case["key"], impl, ms, tflops, gbs, note)), flush=True)
    doc = dict(device=torch.cuda.get_device_name(0), torch=torch.__version__,
               triton=getattr(triton, "__version__", None), results=results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
    print("device %s, torch %s, triton %s" % (doc["device"], doc["torch"], doc["triton"]))
    return 1 if any(r.get("note", "").startswith("error") for r in results) else 0


# ---------------------------------------------------------------- subcommands

def cmd_tilec_bench(args):
    with open(args.report) as f:
        rep = json.load(f)
    for k, ms in bench_rows(rep, args.op):
        print("%s\t%s\t%.6g" % (k, args.impl, ms))
    return 0


def cmd_tilec_entry(args):
    with open(args.log) as f:
        text = f.read()
    print("%s\t%s\t%.6g" % (args.key, args.impl, entry_time_ms(text, args.reps)))
    return 0


def cmd_ratios(args):
    with open(args.refs) as f:
        refs = json.load(f)
    with open(args.tilec) as f:
        tilec = read_tsv(f.read())
    rows = ratio_rows(refs, tilec)
    print(format_table(("key", "tilec", "tilec ms", "reference", "ref ms", "ref/tilec"), rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump([dict(key=r[0], tilec=r[1], tilec_ms=r[2], reference=r[3], ref_ms=r[4], ratio=r[5])
                       for r in rows], f, indent=1)
    keys = {k for k, _, _ in tilec}
    missing = sorted(k for k in keys if not any(r[0] == k for r in rows))
    if missing:
        print("no reference for: " + ", ".join(missing))
    return 0


def selftest():
    import unittest

    class T(unittest.TestCase):
        def test_labels(self):
            self.assertEqual(shape_label([4096, 4096, 4096]), "4096")
            self.assertEqual(shape_label([1024, 1024, 1024, 16]), "16x1024")
            self.assertEqual(key("softmax", "f32", shape_label([8192, 8192])), "softmax/f32/8192")

        def test_cases(self):
            cs = cases({"gemm", "triton", "bmm", "addmm", "rows", "sdpa", "decode", "fp8", "decgemm"})
            keys = [c["key"] for c in cs]
            self.assertEqual(len(keys), len(set(keys)))
            self.assertIn("matmul/bf16/16384", keys)
            self.assertIn("bmm/f16/16x1024", keys)
            self.assertIn("rmsnorm/f32/8192", keys)
            self.assertIn("sdpa/f16/B4H16S16384D128/causal", keys)
            self.assertEqual(len([k for k in keys if k.startswith("sdpa/")]), 8)
            self.assertIn("decode/f16/B8H32KV8S16384D128", keys)
            self.assertEqual(len(cases({"decode"}, quick=True)), 1)
            self.assertIn("fp8_gemm/e4m3/128x4096x7168", keys)
            self.assertIn("fp8_gemm/e4m3/8192", keys)
            self.assertIn("matmul/f16/16x4096", keys)
            self.assertIn("matmul/f16/128x4096x14336", keys)
            self.assertEqual(len(cases({"rows"}, quick=True)), 6)

        def test_work(self):
            c = dict(op="matmul", dtype="f16", shape=dict(M=1024, N=1024, K=1024))
            self.assertEqual(work(c)[0], 2.0 * 1024 ** 3)
            tf, _ = rates(c, 1.0)
            self.assertAlmostEqual(tf, 2.0 * 1024 ** 3 / 1e-3 / 1e12)
            s = dict(op="sdpa", dtype="f16", shape=dict(B=1, H=1, S=8, D=4, causal=True))
            self.assertEqual(work(s)[0], 4.0 * 8 * 8 * 4 / 2)
            dec = dict(op="decode", dtype="f16", shape=dict(B=2, H=4, Hkv=2, S=8, D=4))
            self.assertEqual(work(dec), (4.0 * 2 * 4 * 8 * 4, 2.0 * (2 * 2 * 2 * 8 * 4 + 2 * 2 * 4 * 4)))
            r = dict(op="layernorm", dtype="f32", shape=dict(M=2, N=3))
            self.assertEqual(work(r)[1], 4.0 * (2 * 6 + 6))

        def test_entry(self):
            log = "\n".join([
                "entry    bench_softmax (examples/cutile/softmax.py)",
                "input    X: f16 [4096 4096] (f16[M,N])",
                "input    reps = 3",
                "backend  cuda",
                "launch   softmax_row_kernel at 61:9: tm=2 TILE_N=4096, grid (2048, 1, 1) = 2048 blocks, 1.5ms",
                "compiled sm_90 ...",
                "launch   softmax_row_kernel at 61:9: tm=2 TILE_N=4096, grid (2048, 1, 1) = 2048 blocks, 40µs",
                "launch   softmax_row_kernel at 61:9: tm=2 TILE_N=4096, grid (2048, 1, 1) = 2048 blocks, 0.05ms",
                "time     1.2s",
            ])
            self.assertEqual(entry_reps(log), 3)
            self.assertEqual([k for k, _ in entry_launches(log)], ["softmax_row_kernel"] * 3)
            self.assertAlmostEqual(entry_time_ms(log), 0.045)
            two = "\n".join([
                "launch   partial_kernel at 1:1: SPLIT=2, grid (64, 2, 1) = 128 blocks, 10us",
                "launch   reduce_kernel at 1:1: SPLIT=2, grid (32, 8, 1) = 256 blocks, 5us",
                "launch   partial_kernel at 1:1: SPLIT=2, grid (64, 2, 1) = 128 blocks, 20us",
                "launch   reduce_kernel at 1:1: SPLIT=2, grid (32, 8, 1) = 256 blocks, 6us",
            ])
            self.assertAlmostEqual(entry_time_ms(two, reps=2), 0.026)
            with self.assertRaises(ValueError):
                entry_time_ms(two, reps=3)
            with self.assertRaises(ValueError):
                entry_time_ms("backend cuda")

        def test_bench_and_ratios(self):
            rep = {"rows": [{"dims": {"M": 1024, "N": 1024, "K": 1024}, "tilec_ms": 0.02},
                            {"dims": {"M": 2048, "N": 2048, "K": 2048}, "tilec_ms": 0}]}
            self.assertEqual(bench_rows(rep, "matmul/f16"), [("matmul/f16/1024", 0.02)])
            # A whole key (one shape, the kernel's own dims) is kept as given.
            self.assertEqual(bench_rows(rep, "sdpa/f16/B4H16S4096D64/full"), [("sdpa/f16/B4H16S4096D64/full", 0.02)])
            # tilec bench --entry: rows carry their launches; the key is the row's shape.
            entry = {"kernel": "split_k_matmul", "entry": True, "rows": [
                {"dims": {"M": 1024, "K": 1024, "N": 1024}, "tilec_ms": 0.013,
                 "launches": [{"kernel": "partial_kernel", "ms": 0.01}, {"kernel": "reduce_kernel", "ms": 0.003}]},
                {"dims": {"M": 8192, "N": 8192}, "tilec_ms": 0.5, "launches": [{"kernel": "softmax_row_kernel", "ms": 0.5}]}]}
            self.assertEqual(bench_rows(entry, "matmul/f16"), [("matmul/f16/1024", 0.013), ("matmul/f16/8192", 0.5)])
            tsv = "matmul/f16/1024\ttilec matmul.tile\t0.02\nbad line\nsoftmax/f16/4096\tsoftmax.py\t0.05\n"
            tilec = read_tsv(tsv)
            self.assertEqual(len(tilec), 2)
            refs = {"results": [
                {"key": "matmul/f16/1024", "op": "matmul", "impl": "torch.matmul", "ms": 0.01},
                {"key": "triton_matmul/f16/1024", "op": "triton_matmul", "impl": "triton", "ms": 0.015},
                {"key": "softmax/f16/4096", "op": "softmax", "impl": "torch.softmax", "ms": 0.0},
            ]}
            rows = ratio_rows(refs, tilec)
            self.assertEqual([(r[0], r[3]) for r in rows], [("matmul/f16/1024", "torch.matmul"), ("matmul/f16/1024", "triton")])
            self.assertAlmostEqual(rows[0][5], 0.5)
            self.assertIn("ref/tilec", format_table(("a", "ref/tilec"), [("x", 1.0)]))
            self.assertEqual(result_line(("k", "i", 0.5, 0.0, 12.0, "n")).split(), ["k", "i", "0.5000", "0.0", "12.0", "n"])

    suite = unittest.defaultTestLoader.loadTestsFromTestCase(T)
    ok = unittest.TextTestRunner(verbosity=1).run(suite).wasSuccessful()
    return 0 if ok else 1


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd")
    t = sub.add_parser("torch", help="time the PyTorch/Triton references")
    t.add_argument("--json", help="write the results here")
    t.add_argument("--parts", default="gemm,triton,bmm,addmm,rows,sdpa,decode")
    t.add_argument("--quick", action="store_true", help="fewer sizes")
    b = sub.add_parser("tilec-bench", help="TSV lines of a tilec bench --json report")
    b.add_argument("report")
    b.add_argument("--op", required=True, help="op/dtype, e.g. matmul/f16")
    b.add_argument("--impl", required=True)
    e = sub.add_parser("tilec-entry", help="a TSV line of a tilec run --entry log")
    e.add_argument("log")
    e.add_argument("--key", required=True)
    e.add_argument("--impl", required=True)
    e.add_argument("--reps", type=int, default=None, help="repetitions (default: the log's reps input)")
    r = sub.add_parser("ratios", help="reference / tilec by key")
    r.add_argument("refs")
    r.add_argument("tilec")
    r.add_argument("--json", help="write the ratios here")
    sub.add_parser("selftest", help="tests that need no GPU")
    args = p.parse_args(argv)
    if args.cmd == "torch":
        return run_torch(args)
    if args.cmd == "tilec-bench":
        return cmd_tilec_bench(args)
    if args.cmd == "tilec-entry":
        return cmd_tilec_entry(args)
    if args.cmd == "ratios":
        return cmd_ratios(args)
    if args.cmd == "selftest":
        return selftest()
    p.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
