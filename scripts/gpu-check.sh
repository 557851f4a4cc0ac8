#!/usr/bin/env bash
# gpu-check.sh: the GPU check of tilec, run on the GPU machine (through the
# device tool) with a cuda-built binary carried there:
#
#   here:   source scripts/cuda-dev.sh && go build -tags cuda -o .dev/tilec ./cmd/tilec
#           go test -c -tags cuda -o .dev/runtime.test ./runtime/cuda   (optional: the gotest section)
#   there:  bash scripts/gpu-check.sh [all | gotest | ptxas | run | bench | refs ...]
#           (device tool: carry [".dev/tilec", ".dev/runtime.test"])
#
# Sections (default all, in this order):
#   gotest the CUDA backend's Go tests (runtime/cuda, package cuda) from .dev/runtime.test, if it is there
#   ptxas  emit each example's PTX (tilec compile --emit ptx --target sm_80 | sm_90 | sm_120a) and
#          assemble each with the machine's ptxas for its own architecture:
#          registers, spills, errors
#   run    tilec run --backend cuda on the run rows of testdata/gpu/cases.txt (kernels, host functions
#          and scripts at the listed sizes and dtypes, in the file's order, seeds 1, 2, ...): launch on
#          the GPU, verify against the interpreter (every block when small, sampled blocks when large)
#   bench  tilec bench testdata/kernels/matmul.tile --sizes $BENCH_SIZES: TFLOP/s against cuBLAS
#   hopper the sm_90a path: the hopper rows of testdata/gpu/cases.txt, matmul-family and attention
#          cases (examples/cutile/attention.py through its host function included) that must take
#          the TMA + wgmma fast variant (checked against
#          the interpreter, and for the persistent fast variant named in the run's output), then
#          compute-sanitizer memcheck and racecheck on the TMA path, the general path and attention
#   ab     tilec bench testdata/kernels/matmul.tile --sizes $BENCH_SIZES $BENCH_ARGS with this binary and
#          TILEC_BASE alternately, AB_ROUNDS rounds: the same-call A/B of a GEMM back-end change;
#          the tables in $OUT/ab.log (named only)
#   attn   attention D=64 kernel times (f16, S = 4096 and 16384), alternating this binary with
#          TILEC_BASE (an older build, when given) in the same call: the A/B that says whether a
#          back-end change made attention slower; medians of ATTN_REPS launches each
#
#   planted a test build whose launches come back with one element wrong (.dev/tilec-planted: go build
#          -tags cuda,plantfault) on scatter and atomic kernels: each check must fail, naming the output
#
# The cases of run, hopper and planted are rows of testdata/gpu/cases.txt (SECTION|NAME|FILE|FLAGS|
# SIZES[|OUTPUT]; its header says what each column means): a new GPU case is a new row, not bash.
# The same rows are compiled for sm_80 and sm_90a without a GPU by `go test ./cmd/tilec -run
# TestGPUCases` (a kernel the GPU backend refuses must be listed in docs/language.md) and assembled
# by scripts/ptxas-check.sh in CI. The other sections' cases (ptxas, sanitize, bench, refs...) are
# written below. This machine needs bash and coreutils only: the file is read here, not by Go.
#
# Sections run only when named (not part of all):
#   tune     tilec tune testdata/kernels/matmul.tile over TUNE_SPACE at TUNE_SHAPE (every candidate checked
#            against the interpreter, then timed; the winner cached), then tilec run at the same
#            shape, which must print "tuned constants from cache: ..."; both in a fresh cache
#            directory; logs in $OUT/tune.log
#   benchall tilec bench testdata/kernels/softmax.tile and testdata/kernels/layernorm.tile over BENCHALL_SHAPE
#            (GB/s and the fraction of the device's peak), plots in $OUT/softmax.png and
#            $OUT/layernorm.png, tables in $OUT/benchall.log
#   refs     PyTorch and Triton references (scripts/gpu/refs.py: torch.matmul f16/bf16 and a Triton
#            GEMM at 1024..16384, torch.bmm 16x1024^3, addmm+relu, softmax/layer_norm/rms_norm at
#            4096^2 and 8192^2 in f16 and f32, SDPA flash at B=4 H=16 S=4096,16384 D=64,128 causal
#            and not, SDPA flash with enable_gqa for decode attention at B=8 H=32 H_kv=8 S=4096,16384
#            D=128), then the tilec kernels of the same operations and shapes in the same call
#            (tilec bench --json on the .tile GEMMs and the old row kernels; tilec bench --entry
#            --json on examples/cutile's softmax, layernorm, rmsnorm and split_k_matmul: the kernels
#            their host functions launch, each timed alone: examples/cutile's softmax, layernorm,
#            rmsnorm, split_k_matmul, attention and decode_attention); the table of reference ms /
#            tilec ms (above 1: tilec is faster) and every table in $OUT/refs.log
#
# Every case runs under a timeout and the script keeps going after a failure. Logs go to a work
# folder; at the end they are packed into $OUT/gpu-check-logs.tar.gz (the device tool brings back at
# most 8 files from $OUT) beside $OUT/summary.txt and $OUT/bench.log, the tails of failed cases are
# printed, and the summary table is printed last.
#
# Exit status: 0 if every case passed; 1 if any failed or timed out; 2 if the binary is missing;
# 3 if none failed but some were skipped (out of time, or no ptxas).
#
# Environment (all optional):
#   TILEC          the binary (default .dev/tilec); GOTEST the test binary (default .dev/runtime.test)
#   TILEC_PLANTED  the planted-fault build for the planted section (default .dev/tilec-planted)
#   TILEC_BASE     an older binary for the attn A/B (default .dev/tilec-base, skipped if missing)
#   ATTN_REPS      launches per binary and size in attn (default 5); AB_ROUNDS rounds of ab (default 2)
#   OUT            where results go (the device tool sets it; default ./gpu-check-out)
#   DEADLINE       seconds the whole script may take (default 570: the device tool stops a command at 600);
#                  cases that would start later are skipped, and `run` leaves BENCH_RESERVE for bench
#   BENCH_RESERVE  seconds kept for bench when it is selected (default 150)
#   RUN_TIMEOUT    seconds per tilec run (default 150); PTX_TIMEOUT per compile/ptxas (default 60)
#   BENCH_SIZES    default 1024,2048,4096,8192,16384; BENCH_ARGS extra bench flags (e.g. "-D T=bf16")
#   TUNE_SPACE     default "tm=64,128 tn=128,256 tk=32,64"; TUNE_SHAPE default M=4096,N=4096,K=4096
#   BENCHALL_SHAPE default M=1024:16384:x2,N=M; BENCHALL_ARGS extra bench flags (e.g. "-D T=f16")
#   REFS_PARTS     refs.py parts (default gemm,triton,bmm,addmm,rows,sdpa,decode,fp8,decgemm); REFS_TILEC which
#                  tilec groups refs runs (default gemm,bmm,addmm,rows,mha,attn,splitk,decode,fp8,decgemm; decgemm:
#                  examples/cutile/matmul.py at M=16..256, N=K=4096 and (128, 14336, 4096); mha: testdata/kernels/mha.tile,
#                  attn: examples/cutile/attention.py, both against SDPA flash; decode:
#                  examples/cutile/decode_attention.py against SDPA flash with enable_gqa; fp8:
#                  examples/cutile/fp8_matmul.py against torch._scaled_mm); REFS_GEMM_SIZES
#                  default 1024,2048,4096,8192,16384; REFS_ROW_SIZES the rows group's M = N (default
#                  4096,8192); REFS_ENTRY_ARGS the flags of the tilec bench --entry runs (rows, splitk,
#                  attn, decode, fp8; default "--warmup 3 --iters 20")
#   CASES          a grep -E pattern: only run cases whose name matches (e.g. 'matmul_f16|vector')
#   RUN_ARGS       extra flags for every `run` case (e.g. "--target sm_80": the mma.sync code that
#                  runs on every supported GPU, instead of the device's best target)
#   PTXAS          the ptxas to use (default: PATH, then /usr/local/cuda*/bin)
#   TILEC_CUBLAS   passed through to tilec (cuBLAS library file), found under python's nvidia.cublas if unset

set -u -o pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

TILEC="${TILEC:-$root/.dev/tilec}"
TILEC_PLANTED="${TILEC_PLANTED:-$root/.dev/tilec-planted}"
GOTEST="${GOTEST:-$root/.dev/runtime.test}"
OUT="${OUT:-$root/gpu-check-out}"
DEADLINE="${DEADLINE:-570}"
BENCH_RESERVE="${BENCH_RESERVE:-150}"
RUN_TIMEOUT="${RUN_TIMEOUT:-150}"
PTX_TIMEOUT="${PTX_TIMEOUT:-60}"
BENCH_SIZES="${BENCH_SIZES:-1024,2048,4096,8192,16384}"
BENCH_ARGS="${BENCH_ARGS:-}"
CASES="${CASES:-}"
RUN_ARGS="${RUN_ARGS:-}"
TILEC_BASE="${TILEC_BASE:-$root/.dev/tilec-base}"
ATTN_REPS="${ATTN_REPS:-5}"
AB_ROUNDS="${AB_ROUNDS:-2}"
TUNE_SPACE="${TUNE_SPACE:-tm=64,128 tn=128,256 tk=32,64}"
TUNE_SHAPE="${TUNE_SHAPE:-M=4096,N=4096,K=4096}"
BENCHALL_SHAPE="${BENCHALL_SHAPE:-M=1024:16384:x2,N=M}"
BENCHALL_ARGS="${BENCHALL_ARGS:-}"
REFS_PARTS="${REFS_PARTS:-gemm,triton,bmm,addmm,rows,sdpa,decode,fp8,decgemm}"
REFS_TILEC="${REFS_TILEC:-gemm,bmm,addmm,rows,mha,attn,splitk,decode,fp8,decgemm}"
REFS_ROW_SIZES="${REFS_ROW_SIZES:-4096,8192}"
REFS_ENTRY_ARGS="${REFS_ENTRY_ARGS:---warmup 3 --iters 20}"
REFS_GEMM_SIZES="${REFS_GEMM_SIZES:-1024,2048,4096,8192,16384}"

sections=("$@")
[ ${#sections[@]} -eq 0 ] && sections=(all)
want() {
	local s
	for s in "${sections[@]}"; do
		[ "$s" = all ] || [ "$s" = "$1" ] && return 0
	done
	return 1
}
# named SECTION: asked for by name (sections that all leaves out).
named() {
	local s
	for s in "${sections[@]}"; do
		[ "$s" = "$1" ] && return 0
	done
	return 1
}
for s in "${sections[@]}"; do
	case "$s" in
	all | gotest | ptxas | planted | run | bench | hopper | ab | attn | tune | benchall | refs) ;;
	*)
		echo "usage: bash scripts/gpu-check.sh [all | gotest | ptxas | planted | run | bench | hopper | ab | attn | tune | benchall | refs ...]" >&2
		exit 2
		;;
	esac
done

mkdir -p "$OUT"
work="$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")"
mkdir -p "$work/run" "$work/ptx" "$work/bench" "$work/gotest" "$work/tune" "$work/benchall" "$work/refs"
summary="$work/summary.tsv" # section, case, status, seconds, note
: >"$summary"

say() { echo "gpu-check: $*" >&2; }

if [ ! -x "$TILEC" ]; then
	say "no tilec binary at $TILEC (build it here with: go build -tags cuda -o .dev/tilec ./cmd/tilec, and carry .dev/tilec)"
	exit 2
fi

# cuBLAS: tilec looks in the loader path and /usr/local/cuda; also offer the pip wheel's copy.
if [ -z "${TILEC_CUBLAS:-}" ] && ! ls /usr/local/cuda/lib64/libcublas.so* >/dev/null 2>&1; then
	d="$(python3 -c 'import nvidia.cublas, os; print(os.path.dirname(list(nvidia.cublas.__path__)[0] + "/"))' 2>/dev/null || true)"
	for f in "$d"/lib/libcublas.so.*; do
		[ -e "$f" ] && export TILEC_CUBLAS="$f" && break
	done
fi

{
	echo "date: $(date -u +%FT%TZ)"
	echo "host: $(uname -a)"
	echo "tilec: $TILEC ($(stat -c %s "$TILEC") bytes)"
	echo "TILEC_CUBLAS: ${TILEC_CUBLAS:-unset}"
	nvidia-smi 2>&1 || echo "nvidia-smi failed"
} >"$work/env.txt" 2>&1
gpu="$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
say "GPU: ${gpu:-unknown}; logs in $work"

# record SECTION CASE STATUS SECONDS NOTE
record() {
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$summary"
	printf 'gpu-check: %-6s %-34s %-7s %5ss  %s\n' "$1" "$2" "$3" "$4" "$5" >&2
}

# note LOG: the most telling line of a log, short.
note() {
	local line
	line="$(grep -E -i 'FAIL|error|panic|mismatch|max abs|max rel|TFLOP|PASS' "$1" 2>/dev/null | grep -v '^\s*$' | tail -1)"
	[ -z "$line" ] && line="$(grep -v '^\s*$' "$1" 2>/dev/null | tail -1)"
	line="$(echo "$line" | tr -s ' \t' ' ')"
	echo "${line:0:110}"
}

# status RC: PASS, TIMEOUT or FAIL(rc).
status() {
	case "$1" in
	0) echo PASS ;;
	124 | 137) echo TIMEOUT ;;
	*) echo "FAIL($1)" ;;
	esac
}

left() { echo $((DEADLINE - SECONDS)); }

# ---------------------------------------------------------------- gotest
section_gotest() {
	local log="$work/gotest/runtime.test.log" t0 rc
	if [ ! -x "$GOTEST" ]; then
		# Only worth a row when asked for by name.
		printf '%s\n' "${sections[@]}" | grep -qx gotest && record gotest runtime.test SKIP 0 "no $GOTEST"
		return
	fi
	t0=$SECONDS
	(cd "$root/runtime/cuda" && timeout -k 5 "$RUN_TIMEOUT" "$GOTEST" -test.run CUDA -test.v -test.count 1) >"$log" 2>&1
	rc=$?
	record gotest runtime.test "$(status $rc)" $((SECONDS - t0)) "$(grep -c -- '--- PASS' "$log") passed, $(grep -c -- '--- FAIL' "$log") failed"
}

# ---------------------------------------------------------------- ptxas
find_ptxas() {
	if [ -n "${PTXAS:-}" ]; then
		echo "$PTXAS"
		return
	fi
	if command -v ptxas >/dev/null 2>&1; then
		command -v ptxas
		return
	fi
	local p
	for p in /usr/local/cuda/bin/ptxas $(ls -d /usr/local/cuda-*/bin/ptxas 2>/dev/null | sort -V -r); do
		[ -x "$p" ] && echo "$p" && return
	done
}

# kernels whose PTX is checked: name|file|compile flags
ptx_kernels=(
	"matmul_f16|testdata/kernels/matmul.tile|-D T=f16"
	"matmul_bf16|testdata/kernels/matmul.tile|-D T=bf16"
	"matmul_tf32|testdata/kernels/matmul.tile|-D T=tf32"
	"matmul_bias_relu|testdata/kernels/matmul_bias_relu.tile|"
	"matmul_bt|testdata/kernels/matmul_bt.tile|"
	"vector_add|testdata/kernels/vector_add.tile|"
	"broadcast|testdata/kernels/broadcast.tile|"
	"batched_matmul|testdata/kernels/batched_matmul.tile|"
	"softmax|testdata/kernels/softmax.tile|"
	"layernorm|testdata/kernels/layernorm.tile|"
	"attention|testdata/kernels/attention.tile|"
	"attention_D128|testdata/kernels/attention.tile|-D D=128"
	"attention_D256|testdata/kernels/attention.tile|-D D=256 -D tkv=32"
	"reduction_row|testdata/kernels/reduction.tile|--kernel row_reduce"
	"reduction_col|testdata/kernels/reduction.tile|--kernel col_max"
)

section_ptxas() {
	local ptxas
	ptxas="$(find_ptxas)"
	if [ -z "$ptxas" ]; then
		record ptxas "(ptxas)" SKIP 0 "no ptxas found (set PTXAS)"
	else
		"$ptxas" --version >"$work/ptx/ptxas-version.txt" 2>&1
		say "ptxas: $ptxas ($(grep -o 'release [0-9.]*' "$work/ptx/ptxas-version.txt" | head -1))"
	fi
	local entry name file flags target arch ptx log t0 rc st regs spill
	for entry in "${ptx_kernels[@]}"; do
		IFS='|' read -r name file flags <<<"$entry"
		for target in sm_80 sm_90 sm_90a sm_120a; do
			ptx="$work/ptx/$name.$target.ptx"
			if [ "$(left)" -lt 10 ]; then
				record ptxas "$name $target" SKIP 0 "out of time"
				continue
			fi
			t0=$SECONDS
			# shellcheck disable=SC2086
			timeout -k 5 "$PTX_TIMEOUT" "$TILEC" compile "$file" --emit ptx --target "$target" $flags \
				>"$ptx" 2>"$ptx.err"
			rc=$?
			if [ $rc -ne 0 ] && grep -q 'not supported yet' "$ptx.err"; then
				record ptxas "$name $target emit" SKIP $((SECONDS - t0)) "$(note "$ptx.err")"
				continue
			fi
			if [ $rc -ne 0 ]; then
				record ptxas "$name $target emit" "$(status $rc)" $((SECONDS - t0)) "$(note "$ptx.err")"
				continue
			fi
			[ -z "$ptxas" ] && continue
			for arch in $target; do
				log="$work/ptx/$name.$target.$arch.ptxas.txt"
				t0=$SECONDS
				timeout -k 5 "$PTX_TIMEOUT" "$ptxas" -v -arch="$arch" "$ptx" -o "$work/ptx/$name.$arch.cubin" >"$log" 2>&1
				rc=$?
				st="$(status $rc)"
				regs="$(grep -o 'Used [0-9]* registers' "$log" | head -1 | grep -o '[0-9]*')"
				spill="$(grep -o '[0-9]* bytes spill stores, [0-9]* bytes spill loads' "$log" | head -1 |
					sed 's/ bytes spill stores, /\//; s/ bytes spill loads//')"
				if [ $rc -eq 0 ]; then
					record ptxas "$name $target->$arch" "$st" $((SECONDS - t0)) \
						"regs ${regs:-?}, spill st/ld ${spill:-?} B$(grep -o '[0-9]* bytes smem' "$log" | head -1 | sed 's/^/, /')"
				else
					record ptxas "$name $target->$arch" "$st" $((SECONDS - t0)) "$(note "$log")"
				fi
			done
		done
	done
}

# ---------------------------------------------------------------- run
# The cases of run, hopper and planted come from testdata/gpu/cases.txt (one per line,
# SECTION|NAME|FILE|FLAGS|SIZES[|OUTPUT]; its header says more), so that adding a GPU case adds a
# row, and the Go tests (TestGPUCases) and ptxas-check.sh compile the same kernels in CI.
# Each array keeps the form its section reads: name|file|flags (flags = FLAGS SIZES), and planted's
# name|file|flags|output.
cases_file="$root/testdata/gpu/cases.txt"
run_cases=()
hopper_cases=()
planted_cases=()
load_cases() {
	local section name file flags sizes output
	[ -r "$cases_file" ] || { say "no case list at $cases_file (carry the whole tree)"; exit 2; }
	while IFS='|' read -r section name file flags sizes output; do
		case "$section" in
		'' | '#'*) continue ;;
		esac
		[ -n "$sizes" ] && flags="${flags:+$flags }$sizes"
		case "$section" in
		run) run_cases+=("$name|$file|$flags") ;;
		hopper) hopper_cases+=("$name|$file|$flags") ;;
		planted) planted_cases+=("$name|$file|$flags|$output") ;;
		*)
			say "$cases_file: unknown section $section (case $name)"
			exit 2
			;;
		esac
	done <"$cases_file"
}
load_cases

section_run() {
	local reserve=0 entry name file flags t0 rc log seed=1
	want bench && reserve=$BENCH_RESERVE
	for entry in "${run_cases[@]}"; do
		IFS='|' read -r name file flags <<<"$entry"
		if [ -n "$CASES" ] && ! echo "$name" | grep -E -q "$CASES"; then
			continue
		fi
		log="$work/run/$name.log"
		if [ $(($(left) - reserve)) -lt 20 ]; then
			record run "$name" SKIP 0 "out of time"
			continue
		fi
		t0=$SECONDS
		local tmo=$RUN_TIMEOUT
		[ $(($(left) - reserve)) -lt "$tmo" ] && tmo=$(($(left) - reserve))
		echo "\$ tilec run $file $flags $RUN_ARGS --seed $seed --backend cuda" >"$log"
		# shellcheck disable=SC2086
		timeout -k 5 "$tmo" "$TILEC" run "$file" $flags $RUN_ARGS --seed $seed --backend cuda >>"$log" 2>&1
		rc=$?
		record run "$name" "$(status $rc)" $((SECONDS - t0)) "$(note "$log")"
		seed=$((seed + 1))
	done
}

# ---------------------------------------------------------------- planted
# planted_cases (name|file|flags|output, from testdata/gpu/cases.txt): the planted-fault build
# changes one element of the first array the kernel scatters into (else the first it writes) after
# each launch; the check must fail on that output.

section_planted() {
	local entry name file flags output t0 rc log
	if [ ! -x "$TILEC_PLANTED" ]; then
		record planted "all" SKIP 0 "no $TILEC_PLANTED"
		return
	fi
	for entry in "${planted_cases[@]}"; do
		IFS='|' read -r name file flags output <<<"$entry"
		log="$work/run/$name.log"
		t0=$SECONDS
		echo "\$ tilec-planted run $file $flags $RUN_ARGS --backend cuda (must fail on $output)" >"$log"
		# shellcheck disable=SC2086
		timeout -k 5 "$RUN_TIMEOUT" "$TILEC_PLANTED" run "$file" $flags $RUN_ARGS --backend cuda >>"$log" 2>&1
		rc=$?
		if [ $rc -ne 0 ] && grep -q "FAIL $output " "$log" && grep -q "device result differs" "$log"; then
			rc=0
		else
			echo "the planted fault was not caught on $output (exit $rc)" >>"$log"
			rc=1
		fi
		record planted "$name" "$(status $rc)" $((SECONDS - t0)) "$(grep -m1 "FAIL $output " "$log" | cut -c1-110)"
	done
}

# ---------------------------------------------------------------- hopper
# hopper_cases (name|file|flags, from testdata/gpu/cases.txt): each must run the fast variant
# (TMA, wgmma) on sm_90a and match the interpreter.
# name|flags for compute-sanitizer (memcheck, racecheck)
sanitize_cases=(
	"matmul_tma_1000x1032x1000|testdata/kernels/matmul.tile --shape M=1000,N=1032,K=1000"
	"matmul_general_1000x1030x999|testdata/kernels/matmul.tile --shape M=1000,N=1030,K=999"
	"attention_S333|testdata/kernels/attention.tile -D T=f16 -D CAUSAL=True --shape S=333"
	"bmm_tma_store_3x1000x1032x1000|testdata/kernels/batched_matmul.tile -D T=f16 --shape Bt=3,M=1000,N=1032,K=1000"
	"attention_4d_tma_store_S333|examples/cutile/attention.py --entry attention --arg Q=f16[B,H,S,D] --arg K=f16[B,H,S,D] --arg V=f16[B,H,S,D] --scalar causal=True --shape B=2,H=2,S=333,D=64"
	"persistent_tile_loop_1000x1032x1000|examples/cutile/persistent_matmul.py --entry persistent_matmul --arg A=f16[M,K] --arg B=f16[K,N] --scalar num_sms=5 --shape M=1000,K=1000,N=1032"
)

section_hopper() {
	local entry name file flags t0 rc log tool san
	for entry in "${hopper_cases[@]}"; do
		IFS='|' read -r name file flags <<<"$entry"
		if [ -n "$CASES" ] && ! echo "$name" | grep -E -q "$CASES"; then
			continue
		fi
		log="$work/run/$name.log"
		if [ "$(left)" -lt 30 ]; then
			record hopper "$name" SKIP 0 "out of time"
			continue
		fi
		t0=$SECONDS
		# shellcheck disable=SC2086
		timeout -k 5 "$RUN_TIMEOUT" "$TILEC" run "$file" $flags --target sm_90a --backend cuda >"$log" 2>&1
		rc=$?
		# Every kernel run (a host function's launches each print theirs) must be the warp-specialized
		# fast variant: persistent over the grid, or over the kernel's own tile loop.
		if [ $rc -eq 0 ] && { ! grep -q '^compiled ' "$log" || grep '^compiled ' "$log" | grep -E -v -q "sm_90a \(fast variant\), warp-specialized (persistent TMA \+ wgmma[^:]*: .*, persistent on up to|TMA \+ wgmma over the kernel's tile loop)"; }; then
			echo "expected the persistent fast (TMA, wgmma) variant in every 'compiled' line" >>"$log"
			rc=1
		fi
		record hopper "$name" "$(status $rc)" $((SECONDS - t0)) "$(note "$log")"
	done
	san="$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)"
	for entry in "${sanitize_cases[@]}"; do
		IFS='|' read -r name flags <<<"$entry"
		for tool in memcheck racecheck; do
			log="$work/run/sanitize_${tool}_$name.log"
			if [ -z "$san" ] || [ "$(left)" -lt 40 ]; then
				record hopper "$tool $name" SKIP 0 "no compute-sanitizer or out of time"
				continue
			fi
			t0=$SECONDS
			# shellcheck disable=SC2086
			timeout -k 5 "$RUN_TIMEOUT" "$san" --tool $tool --error-exitcode 9 "$TILEC" run $flags --backend cuda >"$log" 2>&1
			rc=$?
			record hopper "$tool $name" "$(status $rc)" $((SECONDS - t0)) "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|variant' "$log" | tr '\n' ' ' | cut -c1-110)"
		done
	done
}

# ---------------------------------------------------------------- bench
section_bench() {
	local log="$work/bench/bench.log" t0 rc tmo
	tmo=$(($(left) - 5))
	if [ "$tmo" -lt 30 ]; then
		record bench "matmul $BENCH_SIZES" SKIP 0 "out of time"
		return
	fi
	t0=$SECONDS
	echo "\$ tilec bench testdata/kernels/matmul.tile --sizes $BENCH_SIZES $BENCH_ARGS" >"$log"
	# shellcheck disable=SC2086
	timeout -k 5 "$tmo" "$TILEC" bench testdata/kernels/matmul.tile --sizes "$BENCH_SIZES" $BENCH_ARGS >>"$log" 2>&1
	rc=$?
	record bench "matmul $BENCH_SIZES" "$(status $rc)" $((SECONDS - t0)) "$(note "$log")"
	cp "$log" "$OUT/bench.log"
}

# ---------------------------------------------------------------- ab
# The GEMM bench with this binary and TILEC_BASE alternately (same process
# order each round), so that a change is judged against the clocks and
# cuBLAS of the same call.
section_ab() {
	local log="$OUT/ab.log" i name bin t0 rc tmo
	: >"$log"
	[ -x "$TILEC_BASE" ] || { record ab "matmul $BENCH_SIZES" SKIP 0 "no TILEC_BASE"; return; }
	for i in $(seq "$AB_ROUNDS"); do
		for name in new base; do
			bin="$TILEC"
			[ $name = base ] && bin="$TILEC_BASE"
			tmo=$(($(left) - 5))
			if [ "$tmo" -lt 40 ]; then
				record ab "$name round $i" SKIP 0 "out of time"
				continue
			fi
			t0=$SECONDS
			echo "==== $name round $i: tilec bench testdata/kernels/matmul.tile --sizes $BENCH_SIZES $BENCH_ARGS" >>"$log"
			# shellcheck disable=SC2086
			timeout -k 5 "$tmo" "$bin" bench testdata/kernels/matmul.tile --sizes "$BENCH_SIZES" $BENCH_ARGS >>"$log" 2>&1
			rc=$?
			record ab "$name round $i" "$(status $rc)" $((SECONDS - t0)) ""
		done
	done
}

# ---------------------------------------------------------------- attn
# Kernel times (CUDA events, one launch per tilec run) of attention D=64,
# this binary and TILEC_BASE alternately, ATTN_REPS runs each; prints the
# medians and the ratio base/new (above 1: the new binary is faster).
section_attn() {
	local log="$work/attn.log" S bin name i t rc
	: >"$log"
	for S in 4096 16384; do
		for name in new base; do
			: >"$work/attn.$name.$S"
		done
		for i in $(seq "$ATTN_REPS"); do
			for name in new base; do
				bin="$TILEC"
				[ $name = base ] && bin="$TILEC_BASE"
				[ -x "$bin" ] || continue
				if [ "$(left)" -lt 20 ]; then
					record attn "attention_D64_S$S" SKIP 0 "out of time"
					return
				fi
				t=$(timeout -k 5 60 "$bin" run testdata/kernels/attention.tile -D T=f16 --shape S=$S --backend cuda 2>>"$log" |
					tee -a "$log" | sed -n 's/.*(kernel \([0-9.]*\)\(µs\|us\|ms\|s\)).*/\1 \2/p')
				rc=$?
				case "$t" in
				*µs | *us) echo "$t" | awk '{print $1/1000}' >>"$work/attn.$name.$S" ;;
				*ms) echo "$t" | awk '{print $1}' >>"$work/attn.$name.$S" ;;
				*s) echo "$t" | awk '{print $1*1000}' >>"$work/attn.$name.$S" ;;
				esac
			done
		done
		med() { sort -g "$1" | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "nan"}'; }
		local mn mb
		mn=$(med "$work/attn.new.$S")
		mb=$(med "$work/attn.base.$S")
		echo "attention D=64 f16 S=$S: new ${mn} ms, base ${mb} ms, base/new $(awk -v a="$mb" -v b="$mn" 'BEGIN {if (b > 0 && a > 0) printf "%.3f", a/b; else print "n/a"}')" | tee -a "$log" >&2
		record attn "attention_D64_S$S" PASS 0 "new ${mn} ms, base ${mb} ms"
	done
	cp "$log" "$OUT/attn.log"
}

# ---------------------------------------------------------------- tune
# tilec tune on the seed matmul over a small space at one shape, then tilec run at that shape,
# which must take the cached winner. A fresh cache directory, so that the run can only have the
# winner from this tune.
section_tune() {
	local log="$work/tune/tune.log" runlog="$work/tune/run.log" t0 rc tmo n
	export TILEC_CACHE_DIR="$work/tune/cache"
	tmo=$(($(left) - 5))
	if [ "$tmo" -lt 60 ]; then
		record tune "matmul $TUNE_SHAPE" SKIP 0 "out of time"
		return
	fi
	t0=$SECONDS
	echo "\$ tilec tune testdata/kernels/matmul.tile --space \"$TUNE_SPACE\" --shape $TUNE_SHAPE" >"$log"
	timeout -k 5 "$tmo" "$TILEC" tune testdata/kernels/matmul.tile --space "$TUNE_SPACE" --shape "$TUNE_SHAPE" >>"$log" 2>&1
	rc=$?
	n="$(grep '^winner' "$log" | cut -c1-110)"
	[ -z "$n" ] && n="$(note "$log")"
	record tune "tune matmul $TUNE_SHAPE" "$(status $rc)" $((SECONDS - t0)) "$n"
	t0=$SECONDS
	tmo=$(($(left) - 5))
	echo "\$ tilec run testdata/kernels/matmul.tile --shape $TUNE_SHAPE --backend cuda" >"$runlog"
	timeout -k 5 "$tmo" "$TILEC" run testdata/kernels/matmul.tile --shape "$TUNE_SHAPE" --backend cuda >>"$runlog" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && ! grep -q '^tuned constants from cache: ' "$runlog"; then
		rc=1
		echo "gpu-check: tilec run did not use the tuned constants" >>"$runlog"
	fi
	n="$(grep -E '^tuned|^consts' "$runlog" | tr '\n' ' ' | cut -c1-110)"
	[ -z "$n" ] && n="$(note "$runlog")"
	record tune "run matmul (cached winner)" "$(status $rc)" $((SECONDS - t0)) "$n"
	unset TILEC_CACHE_DIR
	cat "$log" "$runlog" >"$OUT/tune.log"
}

# ---------------------------------------------------------------- benchall
# tilec bench on kernels without mma: GB/s against the shape, plotted.
section_benchall() {
	local log="$work/benchall/benchall.log" kern t0 rc tmo n
	: >"$log"
	for kern in softmax layernorm; do
		tmo=$(($(left) - 5))
		if [ "$tmo" -lt 30 ]; then
			record benchall "$kern $BENCHALL_SHAPE" SKIP 0 "out of time"
			continue
		fi
		t0=$SECONDS
		echo "\$ tilec bench testdata/kernels/$kern.tile --shape $BENCHALL_SHAPE $BENCHALL_ARGS --plot \$OUT/$kern.png" >>"$log"
		# shellcheck disable=SC2086
		timeout -k 5 "$tmo" "$TILEC" bench "testdata/kernels/$kern.tile" --shape "$BENCHALL_SHAPE" $BENCHALL_ARGS \
			--plot "$OUT/$kern.png" >>"$log" 2>&1
		rc=$?
		if [ $rc -eq 0 ]; then
			n="$(grep -E '^ +[0-9]' "$log" | tail -1 | tr -s ' ' | cut -c1-110)"
		else
			n="$(note "$log")"
		fi
		record benchall "$kern $BENCHALL_SHAPE" "$(status $rc)" $((SECONDS - t0)) "$n"
	done
	cp "$log" "$OUT/benchall.log"
}

# ---------------------------------------------------------------- refs
# The references of scripts/gpu/refs.py and tilec's kernels of the same operations, in one call:
# $work/refs/refs.json (references), $work/refs/tilec.tsv (key, tilec kernel, ms), the ratios.
refs_py="$root/scripts/gpu/refs.py"

# refs_bench OP IMPL FILE FLAGS...: tilec bench --json, one TSV line per shape.
refs_bench() {
	local op=$1 impl=$2 file=$3 name log t0 rc tmo
	shift 3
	name="bench ${impl} ${op}"
	log="$work/refs/$(echo "$impl-$op" | tr '/ ' '__').json"
	tmo=$(($(left) - 10))
	if [ "$tmo" -lt 30 ]; then
		record refs "$name" SKIP 0 "out of time"
		return
	fi
	[ "$tmo" -gt 300 ] && tmo=300
	t0=$SECONDS
	echo "\$ tilec bench $file $* --json" >>"$work/refs/tilec.log"
	timeout -k 5 "$tmo" "$TILEC" bench "$file" "$@" --json >"$log" 2>>"$work/refs/tilec.log"
	rc=$?
	[ $rc -eq 0 ] && ! python3 "$refs_py" tilec-bench "$log" --op "$op" --impl "$impl" >>"$work/refs/tilec.tsv" 2>>"$work/refs/tilec.log" && rc=1
	# The rows of op: keys under it (matmul/f16/4096), or op itself when it is a whole key (sdpa/...).
	record refs "$name" "$(status $rc)" $((SECONDS - t0)) "$(awk -F'\t' -v op="$op" -v impl="$impl" \
		'($1 == op || index($1, op "/") == 1) && $2 == impl {printf "%s=%s ", $1, $3}' "$work/refs/tilec.tsv" | cut -c1-110)"
}

refs_want() { case ",$REFS_TILEC," in *",$1,"*) return 0 ;; esac; return 1; }

section_refs() {
	local d="$work/refs" t0 rc T n S D causal m k c=examples/cutile tmo
	: >"$d/tilec.tsv"
	: >"$d/tilec.log"
	t0=$SECONDS
	tmo=$(($(left) - 60))
	[ "$tmo" -gt 300 ] && tmo=300
	# A short DEADLINE still gives the references a try (timeout refuses a
	# duration below 1).
	[ "$tmo" -lt 20 ] && tmo=20
	echo "\$ python3 scripts/gpu/refs.py torch --parts $REFS_PARTS --json refs.json" >"$d/torch.log"
	timeout -k 5 "$tmo" python3 "$refs_py" torch --parts "$REFS_PARTS" --json "$d/refs.json" >>"$d/torch.log" 2>&1
	rc=$?
	record refs "torch/triton references" "$(status $rc)" $((SECONDS - t0)) "$(tail -1 "$d/torch.log" | cut -c1-110)"
	if refs_want gemm; then
		for T in f16 bf16; do
			refs_bench "matmul/$T" matmul.tile testdata/kernels/matmul.tile -D T=$T --sizes "$REFS_GEMM_SIZES"
		done
	fi
	if refs_want splitk; then
		# The kernels split_k_matmul launches (partial + reduce at 1024, one matmul at 2048), timed
		# by tilec bench --entry: the sum of the launches' kernel times, host code not timed.
		# shellcheck disable=SC2086
		refs_bench matmul/f16 split_k_matmul.py $c/split_k_matmul.py --entry split_k_matmul \
			--arg A=f16[M,K] --arg B=f16[K,N] --shape M=1024,2048,N=M,K=M $REFS_ENTRY_ARGS
	fi
	if refs_want bmm; then
		refs_bench bmm/f16 batched_matmul.tile testdata/kernels/batched_matmul.tile -D T=f16 --shape Bt=16,M=1024,N=1024,K=1024
		refs_bench bmm/f16 "batched_matmul.tile 128x256x64" testdata/kernels/batched_matmul.tile -D T=f16 -D tm=128 -D tn=256 -D tk=64 \
			--shape Bt=16,M=1024,N=1024,K=1024
	fi
	if refs_want addmm; then
		refs_bench addmm_relu/f16 matmul_bias_relu.tile testdata/kernels/matmul_bias_relu.tile -D T=f16 --sizes 4096,8192
		refs_bench addmm_relu/f16 "matmul_bias_relu.tile 128x256x64" testdata/kernels/matmul_bias_relu.tile -D T=f16 \
			-D tm=128 -D tn=256 -D tk=64 --sizes 4096,8192
	fi
	if refs_want rows; then
		for T in f16 f32; do
			# examples/cutile's one-pass row kernels through their host functions (tilec bench
			# --entry: each launch checked against the interpreter, then timed alone, L2 cleared).
			# shellcheck disable=SC2086
			refs_bench "softmax/$T" softmax.py $c/softmax.py --entry softmax --arg X=$T[M,N] \
				--shape "M=$REFS_ROW_SIZES,N=M" $REFS_ENTRY_ARGS
			# shellcheck disable=SC2086
			refs_bench "layernorm/$T" layernorm.py $c/layernorm.py --entry layernorm \
				--arg X=$T[M,N] --arg W=$T[N] --arg Bias=$T[N] --shape "M=$REFS_ROW_SIZES,N=M" $REFS_ENTRY_ARGS
			# shellcheck disable=SC2086
			refs_bench "rmsnorm/$T" rmsnorm.py $c/rmsnorm.py --entry rmsnorm --arg X=$T[M,N] --arg W=$T[N] \
				--shape "M=$REFS_ROW_SIZES,N=M" $REFS_ENTRY_ARGS
			# The looped .tile kernels (testdata/kernels/softmax.tile, layernorm.tile) for comparison.
			refs_bench "softmax/$T" softmax.tile testdata/kernels/softmax.tile -D T=$T --sizes 4096,8192
			refs_bench "layernorm/$T" layernorm.tile testdata/kernels/layernorm.tile -D T=$T --sizes 4096,8192
		done
	fi
	if refs_want attn || refs_want mha; then
		for S in 4096 16384; do
			for D in 64 128; do
				for causal in False True; do
					m=full
					[ $causal = True ] && m=causal
					# testdata/kernels/mha.tile: (B*H, S, D) arrays, on sm_90a the TMA + wgmma kernel.
					refs_want mha && refs_bench "sdpa/f16/B4H16S${S}D${D}/$m" mha.tile testdata/kernels/mha.tile -D D=$D -D CAUSAL=$causal \
						--shape BH=64,S=$S --iters 20
					# examples/cutile/attention.py through its host function (tilec bench --entry: the
					# launch checked against the interpreter, then timed alone, L2 cleared); on sm_90a
					# the TMA + wgmma kernel over 4-D tensor maps.
					# shellcheck disable=SC2086
					refs_want attn && refs_bench "sdpa/f16/B4H16S${S}D${D}/$m" attention.py $c/attention.py --entry attention \
						--arg Q=f16[B,H,S,D] --arg K=f16[B,H,S,D] --arg V=f16[B,H,S,D] --scalar causal=$causal \
						--shape B=4,H=16,S=$S,D=$D $REFS_ENTRY_ARGS
				done
			done
		done
	fi
	if refs_want decode; then
		for S in 4096 16384; do
			# examples/cutile/decode_attention.py through its host function (the split kernel and
			# the combine, each launch checked against the interpreter, then timed alone, L2
			# cleared; the split chosen from the SM count).
			# shellcheck disable=SC2086
			refs_bench "decode/f16/B8H32KV8S${S}D128" decode_attention.py $c/decode_attention.py --entry decode_attention \
				--arg q=f16[B,H,D] --arg k=f16[B,Hkv,S,D] --arg v=f16[B,Hkv,S,D] \
				--shape B=8,H=32,Hkv=8,S=$S,D=128 $REFS_ENTRY_ARGS
		done
	fi
	if refs_want decgemm; then
		# Decode-shaped GEMMs (16-256 tokens through a 4096 x 4096 layer, 128 through 4096 -> 14336)
		# through matmul.py's host, which picks tiles by shape: small ones (64x32 at 16 tokens) so
		# that C has a block for most SMs, each streaming its columns of B through a deep ring.
		# shellcheck disable=SC2086
		refs_bench matmul/f16 matmul.py $c/matmul.py --entry matmul \
			--arg A=f16[M,K] --arg B=f16[K,N] --shape M=16,64,128,256,N=4096,K=4096 $REFS_ENTRY_ARGS
		# shellcheck disable=SC2086
		refs_bench matmul/f16 matmul.py $c/matmul.py --entry matmul \
			--arg A=f16[M,K] --arg B=f16[K,N] --shape M=128,N=14336,K=4096 $REFS_ENTRY_ARGS
	fi
	if refs_want fp8; then
		# examples/cutile/fp8_matmul.py through its host function (W8A8, per-tensor scales, bf16
		# out, use_fast_acc as the reference's use_fast_accum; on sm_90a float8 wgmma): square, and
		# decode-shaped linear layers.
		# shellcheck disable=SC2086
		refs_bench fp8_gemm/e4m3 fp8_matmul.py $c/fp8_matmul.py --entry fp8_matmul --arg A=f8e4m3[M,K] --arg B=f8e4m3[N,K] \
			--scalar scale_a=1.0 --scalar scale_b=1.0 --scalar use_fast_acc=True --shape M=4096,8192,N=M,K=M $REFS_ENTRY_ARGS
		# shellcheck disable=SC2086
		refs_bench fp8_gemm/e4m3 fp8_matmul.py $c/fp8_matmul.py --entry fp8_matmul --arg A=f8e4m3[M,K] --arg B=f8e4m3[N,K] \
			--scalar scale_a=1.0 --scalar scale_b=1.0 --scalar use_fast_acc=True --shape M=128,256,N=7168,K=4096 $REFS_ENTRY_ARGS
	fi
	{
		echo "==== references (scripts/gpu/refs.py torch)"
		cat "$d/torch.log"
		echo
		echo "==== tilec (key, kernel, ms)"
		cat "$d/tilec.tsv"
		echo
		echo "==== tilec bench commands and errors"
		cat "$d/tilec.log"
		echo
		echo "==== ratios: reference ms / tilec ms (above 1: tilec is faster)"
		if [ -s "$d/refs.json" ]; then
			python3 "$refs_py" ratios "$d/refs.json" "$d/tilec.tsv" --json "$d/ratios.json" 2>&1
		else
			echo "no references (see the torch log above)"
		fi
	} >"$d/refs.log"
	cp "$d/refs.log" "$OUT/refs.log"
}

want gotest && section_gotest
want ptxas && section_ptxas
want planted && section_planted
want run && section_run
want hopper && section_hopper
# ---------------------------------------------------------------- f32 exactness
# A float32 GEMM whose exact result is 1 + 2^-12 everywhere (A = 1 + 2^-12, B = 2^-5, K = 32): tf32
# tensor cores would give 1. Part of the run section.
section_f32exact() {
	local d="$work/f32exact" log="$work/run/matmul_f32_exact_value.log" t0=$SECONDS rc
	mkdir -p "$d"
	python3 - "$d" >"$log" 2>&1 <<'PY'
import sys, numpy as np
d = sys.argv[1]
np.save(d + "/a.npy", np.full((64, 32), 1 + 2**-12, dtype=np.float32))
np.save(d + "/b.npy", np.full((32, 64), 2**-5, dtype=np.float32))
PY
	timeout -k 5 60 "$TILEC" run testdata/kernels/matmul.tile -D T=f32 -D tm=64 -D tn=64 -D tk=32 --shape M=64,N=64,K=32 \
		--in A="$d/a.npy" --in B="$d/b.npy" --out C="$d/c.npy" --backend cuda >>"$log" 2>&1 &&
		python3 - "$d" >>"$log" 2>&1 <<'PY'
import sys, numpy as np
c = np.load(sys.argv[1] + "/c.npy")
want = np.float32(1 + 2**-12)
bad = int((c != want).sum())
print("C == 1 + 2^-12 in %d of %d elements" % (c.size - bad, c.size))
sys.exit(1 if bad else 0)
PY
	rc=$?
	record run "matmul_f32_exact_value" "$(status $rc)" $((SECONDS - t0)) "$(note "$log")"
}

want run && section_f32exact
want attn && section_attn
want bench && section_bench
named ab && section_ab
named tune && section_tune
named benchall && section_benchall
named refs && section_refs

# ---------------------------------------------------------------- report
{
	printf '%-6s %-36s %-9s %6s  %s\n' section case status secs note
	while IFS=$'\t' read -r sec name st secs nt; do
		printf '%-6s %-36s %-9s %6s  %s\n' "$sec" "$name" "$st" "$secs" "$nt"
	done <"$summary"
} >"$work/summary.txt"
npass=$(awk -F'\t' '$3=="PASS"' "$summary" | wc -l)
nskip=$(awk -F'\t' '$3=="SKIP"' "$summary" | wc -l)
nfail=$(awk -F'\t' '$3!="PASS" && $3!="SKIP"' "$summary" | wc -l)
echo "total: $npass passed, $nfail failed, $nskip skipped, ${SECONDS}s; GPU: ${gpu:-unknown}" >>"$work/summary.txt"
cp "$work/summary.txt" "$OUT/summary.txt"
tar -czf "$OUT/gpu-check-logs.tar.gz" -C "$work" . 2>/dev/null

# Tails of the failures (at most 8), then the bench output, then the summary last.
shown=0
while IFS=$'\t' read -r sec name st _ _; do
	[ "$st" = PASS ] || [ "$st" = SKIP ] && continue
	[ $shown -ge 8 ] && break
	case "$sec" in
	run) f="$work/run/$name.log" ;;
	gotest) f="$work/gotest/runtime.test.log" ;;
	*) f="" ;;
	esac
	if [ -n "$f" ] && [ -f "$f" ]; then
		echo "---- $sec $name ($st): last lines of $(basename "$f")"
		tail -n 12 "$f" | cut -c1-200
		shown=$((shown + 1))
	fi
done <"$summary"
if [ -f "$work/bench/bench.log" ]; then
	echo "---- bench"
	tail -n 40 "$work/bench/bench.log" | cut -c1-200
fi
for f in "$work/tune/tune.log" "$work/tune/run.log" "$work/benchall/benchall.log"; do
	if [ -s "$f" ]; then
		echo "---- $(basename "$(dirname "$f")") $(basename "$f")"
		tail -n 40 "$f" | cut -c1-200
	fi
done
if [ -s "$work/refs/refs.log" ]; then
	echo "---- refs: the ratios (every table in \$OUT/refs.log)"
	sed -n '/^==== ratios/,$p' "$work/refs/refs.log" | cut -c1-200
fi
echo "---- summary (logs: \$OUT/gpu-check-logs.tar.gz)"
cat "$work/summary.txt"

if [ "$nfail" -gt 0 ]; then
	exit 1
elif [ "$nskip" -gt 0 ]; then
	exit 3
fi
exit 0
