#!/usr/bin/env bash
# ptxas-check.sh: assemble the PTX of every example kernel, for each target in
# TARGETS (default: the mma.sync targets ptxas 11.8 knows, sm_80 sm_86 sm_89
# sm_90; and sm_90a with ptxas 12.4 when PTXAS_SM90A is set), with the offline ptxas (11.8 from scripts/cuda-dev.sh on dev
# machines and CI; the GPU machine's own ptxas when PTXAS is set). Prints
# registers and spills per kernel and target; fails if any kernel tilec can
# compile does not assemble, or spills. Kernels tilec does not lower for a
# target are listed as skipped, with the reason. Then the kernels of gpu-check.sh's run and hopper
# cases (testdata/gpu/cases.txt, compiled by TestGPUCases) for sm_80 and sm_90a.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
PTXAS="${PTXAS:-$root/.dev/cuda/bin/ptxas}"
TARGETS="${TARGETS:-sm_80 sm_86 sm_89 sm_90}"
# sm_90a needs a newer ptxas (12.x: scripts/ptxas-sm90a.sh); its targets are
# assembled with PTXAS_SM90A when that is set.
PTXAS_SM90A="${PTXAS_SM90A:-}"
[ -n "$PTXAS_SM90A" ] && TARGETS="$TARGETS sm_90a"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -o "$work/tilec" ./cmd/tilec || exit 1

fail=0
for src in testdata/kernels/*.tile; do
	for kernel in $(sed -n 's/^def \([A-Za-z_0-9]*\)(.*/\1/p' "$src"); do
		grep -B1 "^def $kernel(" "$src" | grep -q '@ct.kernel' || continue
		# Both variants of a kernel that has two (the general one only when
		# its PTX differs: a kernel with one form prints it for both).
		for arch_variant in $(for a in $TARGETS; do echo "$a:fast $a:general"; done); do
			arch="${arch_variant%%:*}"
			variant="${arch_variant##*:}"
			name="$(basename "$src" .tile)_${kernel}_$arch"
			[ "$variant" = general ] && name="${name}_general"
			if ! "$work/tilec" compile "$src" --kernel "$kernel" --emit ptx --target "$arch" --variant "$variant" >"$work/$name.ptx" 2>"$work/$name.err"; then
				printf '%-40s skipped: %s\n' "$name" "$(head -1 "$work/$name.err")"
				continue
			fi
			if [ "$variant" = general ] && cmp -s "$work/$name.ptx" "$work/$(basename "$src" .tile)_${kernel}_$arch.ptx"; then
				continue
			fi
			assembler="$PTXAS"
			[ "$arch" = sm_90a ] && assembler="$PTXAS_SM90A"
			if "$assembler" -arch="$arch" -v "$work/$name.ptx" -o /dev/null >"$work/$name.log" 2>&1; then
				info=$(grep -o 'Used [0-9]* registers' "$work/$name.log" | head -1)
				spill=$(grep -o '[0-9]* bytes spill stores' "$work/$name.log" | head -1)
				printf '%-40s ok: %s, %s\n' "$name" "$info" "${spill:-0 bytes spill stores}"
				case "$spill" in 0\ *|"") ;; *) echo "  spills"; fail=1 ;; esac
			else
				printf '%-40s FAILED\n' "$name"
				cat "$work/$name.log"
				fail=1
			fi
		done
	done
done

# The GPU tests of issue 10's ops (runtime/testdata/kernels) and the
# plain-cuTile kernels that use them, with the signatures gpu-check.sh
# runs them with: NAME|FILE|tilec compile flags.
cases=(
	"bits_math|runtime/testdata/kernels/bits_math.tile|"
	"math_approx|runtime/testdata/kernels/math_approx.tile|"
	"flush_to_zero|runtime/testdata/kernels/flush_to_zero.tile|"
	"indexed_atomics|runtime/testdata/kernels/indexed_atomics.tile|"
	"array_views|runtime/testdata/kernels/array_views.tile|"
	"reduce_widths|runtime/testdata/kernels/reduce_widths.tile|"
	"cast_specials|runtime/testdata/kernels/cast_specials.tile|"
	"nan_rules|runtime/testdata/kernels/nan_rules.tile|"
	"pow_atan2|runtime/testdata/kernels/pow_atan2.tile|"
	"scan_cat|runtime/testdata/kernels/scan_cat.tile|"
	"fold_fn|runtime/testdata/kernels/fold_fn.tile|"
	"int_dtypes|runtime/testdata/kernels/int_dtypes.tile|"
	"while_loops|runtime/testdata/kernels/while_loops.tile|"
	"while_mma|runtime/testdata/kernels/while_mma.tile|"
	"surface_ops|runtime/testdata/kernels/surface_ops.tile|"
	"while_tile_cond|runtime/testdata/kernels/while_tile_cond.tile|--arg X=f32[N] --arg Y=f32[N] --arg Halvings=i32[B] --arg Steps=i32[B] -D limit=10.0 -D tn=32"
	"static_iter|runtime/testdata/kernels/static_iter.tile|--arg X=f32[R0,N] --arg S=f32[N] --arg Y=f32[R0,N] -D R=3 -D tn=32"
	"if_tile_cond|runtime/testdata/kernels/if_tile_cond.tile|--arg X=f32[N] --arg Y=f32[N] --arg Flags=i32[B] -D tn=32"
	"cutile_gather_add2d|examples/cutile/gather_add2d.py|--arg A=f32[M,N] --arg B=f32[M,N] --arg C=f32[M,N] -D tm=32 -D tn=64"
	"cutile_permute_scatter|examples/cutile/permute_scatter.py|--arg X=f32[N] --arg Y=f32[N] -D TILE=256"
	"cutile_atomic_split_k|examples/cutile/atomic_split_k.py|--arg A=f16[M,K] --arg B=f16[K,N] --arg C=f32[M,N] -D tm=64 -D tn=64 -D tk=32 -D SPLIT=4"
	"cutile_moe_align|examples/cutile/moe_align.py|--arg TopkIds=i32[N] --arg SortedIds=i32[S] --arg BlockExpert=i32[B] --arg Total=i32[1] -D EXPERTS=8 -D TOKENS=128 -D BLOCK=16 -D MAX_BLOCKS=16"
	"cutile_dropout|examples/cutile/dropout.py|--arg X=f32[N] --arg Y=f32[N] -D TILE=1024"
	"cutile_hadamard|examples/cutile/hadamard.py|--arg X=f32[R,C] --arg Y=f32[R,C] -D ROWS=16"
	# The 16 older plain-cuTile programs (docs/status.md's examples/cutile table), each kernel with the
	# constants its host function passes at the sizes gpu-check runs.
	"cutile_vector_add|examples/cutile/vector_add.py|--arg a=f32[N] --arg b=f32[N] --arg c=f32[N] -D TILE=1024"
	"cutile_matmul_f16|examples/cutile/matmul.py|--arg A=f16[M,K] --arg B=f16[K,N] --arg C=f16[M,N] -D tm=128 -D tn=128 -D tk=32"
	"cutile_matmul_f32|examples/cutile/matmul.py|--arg A=f32[M,K] --arg B=f32[K,N] --arg C=f32[M,N] -D tm=64 -D tn=64 -D tk=32"
	"cutile_persistent_matmul|examples/cutile/persistent_matmul.py|--arg A=f16[M,K] --arg B=f16[K,N] --arg C=f16[M,N] -D tm=64 -D tn=64 -D tk=32"
	"cutile_bmm|examples/cutile/batched_matmul.py|--arg A=f16[Bt,M,K] --arg B=f16[Bt,K,N] --arg C=f16[Bt,M,N] -D tm=64 -D tn=64 -D tk=32"
	"cutile_transpose|examples/cutile/transpose.py|--arg X=f32[M,N] --arg Y=f32[N,M] -D tm=32 -D tn=64"
	"cutile_layernorm_bwd_dx|examples/cutile/layernorm_bwd.py|--kernel layernorm_bwd_dx_kernel --arg X=f32[M,N] --arg W=f32[N] --arg DY=f32[M,N] --arg Mean=f32[M] --arg Rstd=f32[M] --arg DX=f32[M,N] --arg DWp=f32[B,N] --arg DBp=f32[B,N] -D tm=16 -D TILE_N=512"
	"cutile_layernorm_bwd_colsum|examples/cutile/layernorm_bwd.py|--kernel column_sum_kernel --arg P=f32[B,N] --arg Out=f32[N] -D tr=8 -D tn=64"
	"cutile_rope|examples/cutile/rope.py|--arg X=f32[S,D] --arg Cos=f32[S,H] --arg Sin=f32[S,H] --arg Y=f32[S,D] -D tm=16 -D HALF=64"
	"cutile_silu_and_mul|examples/cutile/silu_and_mul.py|--arg X=f32[M,N2] --arg Y=f32[M,N] -D tm=16 -D tn=32"
	"cutile_swiglu|examples/cutile/swiglu.py|--arg G=f32[M,N] --arg U=f32[M,N] --arg Y=f32[M,N] -D tm=32 -D tn=64"
	"cutile_row_sum|examples/cutile/row_sum.py|--arg X=f32[M,N] --arg Y=f32[M] -D tm=32 -D tn=64"
	"cutile_bias_gelu|examples/cutile/bias_gelu.py|--arg X=f32[M,N] --arg Bias=f32[N] --arg Y=f32[M,N] -D tm=32 -D tn=64"
	# Issue 12's kernels at the largest tiles their host functions pick.
	"cutile_softmax_row|examples/cutile/softmax.py|--kernel softmax_row_kernel --arg X=f16[M,N] --arg Y=f16[M,N] -D tm=1 -D TILE_N=16384"
	"cutile_softmax_loop|examples/cutile/softmax.py|--kernel softmax_loop_kernel --arg X=f32[M,N] --arg Y=f32[M,N] -D tm=1 -D tn=2048"
	"cutile_layernorm_row|examples/cutile/layernorm.py|--kernel layernorm_row_kernel --arg X=f32[M,N] --arg W=f32[N] --arg Bias=f32[N] --arg Y=f32[M,N] --arg Mean=f32[M] --arg Rstd=f32[M] -D eps=1e-5 -D tm=1 -D TILE_N=8192"
	"cutile_layernorm_loop|examples/cutile/layernorm.py|--kernel layernorm_loop_kernel --arg X=f16[M,N] --arg W=f16[N] --arg Bias=f16[N] --arg Y=f16[M,N] --arg Mean=f32[M] --arg Rstd=f32[M] -D eps=1e-5 -D tm=1 -D tn=1024"
	"cutile_rmsnorm_row|examples/cutile/rmsnorm.py|--kernel rmsnorm_row_kernel --arg X=f16[M,N] --arg W=f16[N] --arg Y=f16[M,N] -D eps=1e-6 -D tm=1 -D TILE_N=8192"
	"cutile_rmsnorm_loop|examples/cutile/rmsnorm.py|--kernel rmsnorm_loop_kernel --arg X=f32[M,N] --arg W=f32[N] --arg Y=f32[M,N] -D eps=1e-6 -D tm=1 -D tn=2048"
	"cutile_attention_D64_causal|examples/cutile/attention.py|--arg Q=f16[B,H,S,64] --arg K=f16[B,H,S,64] --arg V=f16[B,H,S,64] --arg O=f16[B,H,S,64] -D sm_scale=0.125 -D D=64 -D tq=128 -D tkv=128 -D CAUSAL=True"
	"cutile_attention_D128|examples/cutile/attention.py|--arg Q=bf16[B,H,S,128] --arg K=bf16[B,H,S,128] --arg V=bf16[B,H,S,128] --arg O=bf16[B,H,S,128] -D sm_scale=0.088 -D D=128 -D tq=128 -D tkv=64 -D CAUSAL=False"
	"cutile_split_k_partial|examples/cutile/split_k_matmul.py|--kernel partial_kernel --arg A=f16[M,K] --arg B=f16[K,N] --arg W=f32[S,M,N] -D tm=128 -D tn=128 -D tk=64 -D SPLIT=2"
	"cutile_split_k_reduce|examples/cutile/split_k_matmul.py|--kernel reduce_kernel --arg W=f32[S,M,N] --arg C=f16[M,N] -D tm=32 -D tn=128 -D SPLIT=2"
)
assemble() { # name arch file flags...
	local name=$1 arch=$2 file=$3
	shift 3
	if ! "$work/tilec" compile "$file" "$@" --emit ptx --target "$arch" >"$work/$name.ptx" 2>"$work/$name.err"; then
		# A target whose mma path is not written yet (sm_90a's wgmma) skips mma kernels.
		if grep -q 'mma through .* is not implemented yet' "$work/$name.err"; then
			printf '%-40s skipped: %s\n' "$name" "$(head -1 "$work/$name.err")"
			return
		fi
		printf '%-40s FAILED to compile\n' "$name"
		cat "$work/$name.err"
		fail=1
		return
	fi
	assembler="$PTXAS"
	[ "$arch" = sm_90a ] && assembler="$PTXAS_SM90A"
	if "$assembler" -arch="$arch" -v "$work/$name.ptx" -o /dev/null >"$work/$name.log" 2>&1; then
		spill=$(grep -o '[0-9]* bytes spill stores' "$work/$name.log" | sort -n | tail -1)
		printf '%-40s ok: %s, %s\n' "$name" "$(grep -o 'Used [0-9]* registers' "$work/$name.log" | head -1)" "${spill:-0 bytes spill stores}"
		# Two older programs' host functions pick tiles that spill a little on sm_80 (docs/status.md), and
		# ptxas 12.4 gives the persistent matmul's nested loop 96 registers and 12 bytes of spills on
		# sm_90a; any other spill fails.
		case "$name" in
		cutile_matmul_f16_* | cutile_layernorm_bwd_dx_* | cutile_persistent_matmul_sm_90a) ;;
		*) case "$spill" in 0\ * | "") ;; *) echo "  spills"; fail=1 ;; esac ;;
		esac
	else
		printf '%-40s FAILED\n' "$name"
		cat "$work/$name.log"
		fail=1
	fi
}
for c in "${cases[@]}"; do
	IFS='|' read -r name file flags <<<"$c"
	for arch in $TARGETS; do
		# shellcheck disable=SC2086
		assemble "${name}_$arch" "$arch" "$file" $flags
	done
done

# The kernels of gpu-check.sh's run and hopper cases (testdata/gpu/cases.txt) as TestGPUCases
# compiles them for sm_80 and sm_90a: a host function's or a script's are the kernels it
# launches, with the constants it passes, which tilec compile cannot give; so the Go test writes
# them (TILEC_GPU_CASES_PTX), each distinct module once, and they are assembled here: sm_80 with
# PTXAS, sm_90a with PTXAS_SM90A when set. An sm_90a module that differs from its sm_80 module
# only in its .target line (kernels outside the matmul family and attention) is not assembled
# twice. Both cores: there are about 350 modules. Spills are printed, not failed: these kernels
# are run for correctness at the tiles their cases pick (the hand list above holds the spill
# budget). GPU_CASES=0 skips this part.
if [ "${GPU_CASES:-1}" != 0 ]; then
	cases_ptx="$work/gpu-cases"
	echo "== gpu-check cases (testdata/gpu/cases.txt): TestGPUCases writes their PTX"
	if ! CGO_ENABLED=0 TILEC_GPU_CASES_PTX="$cases_ptx" go test ./cmd/tilec -run '^TestGPUCases$' -count=1 >"$work/gpu-cases.log" 2>&1; then
		echo "TestGPUCases FAILED"
		cat "$work/gpu-cases.log"
		exit 1
	fi
	# assemble_case FILE: one line "NAME.TARGET ok: ..." into FILE.result; exit 1 on failure.
	assemble_case() {
		local ptx=$1 arch assembler base
		base="$(basename "$ptx" .ptx)"
		arch="${base##*.}"
		assembler="$PTXAS"
		if [ "$arch" = sm_90a ]; then
			assembler="$PTXAS_SM90A"
			if [ -z "$assembler" ]; then
				printf '%-60s skipped: no PTXAS_SM90A\n' "$base" >"$ptx.result"
				return 0
			fi
			if [ -f "${ptx%.sm_90a.ptx}.sm_80.ptx" ] &&
				cmp -s <(grep -v '^\.target ' "$ptx") <(grep -v '^\.target ' "${ptx%.sm_90a.ptx}.sm_80.ptx"); then
				printf '%-60s ok: as sm_80 but for .target\n' "$base" >"$ptx.result"
				return 0
			fi
		fi
		if "$assembler" -arch="$arch" -v "$ptx" -o /dev/null >"$ptx.log" 2>&1; then
			spill=$(grep -o '[0-9]* bytes spill stores' "$ptx.log" | sort -n | tail -1)
			printf '%-60s ok: %s, %s\n' "$base" "$(grep -o 'Used [0-9]* registers' "$ptx.log" | head -1)" "${spill:-0 bytes spill stores}" >"$ptx.result"
			return 0
		fi
		{
			printf '%-60s FAILED\n' "$base"
			cat "$ptx.log"
		} >"$ptx.result"
		return 1
	}
	export -f assemble_case
	export PTXAS PTXAS_SM90A
	n=$(find "$cases_ptx" -name '*.ptx' | wc -l)
	if ! find "$cases_ptx" -name '*.ptx' -print0 | xargs -0 -n 1 -P "$(nproc)" bash -c 'assemble_case "$0"'; then
		fail=1
	fi
	cat $(find "$cases_ptx" -name '*.result' | sort)
	echo "gpu-check cases: $n modules, $(cat "$cases_ptx"/*.result | grep -c FAILED) failed"
fi
exit $fail
