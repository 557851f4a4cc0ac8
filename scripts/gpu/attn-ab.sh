#!/usr/bin/env bash
# attn-ab.sh: attention (examples/cutile/attention.py through its host
# function) timed with `tilec bench --entry` for this binary and an older one
# (A/B, alternating, same call), beside PyTorch's SDPA flash timed by refs.py,
# at B=4, H=16, S=4096, D=64 and 128, causal and not. On the GPU machine:
#
#   ATTN_TARGET=sm_90 bash scripts/gpu/attn-ab.sh      # the mma.sync path
#
# Environment: TILEC (default .dev/tilec), TILEC_BASE (default
# .dev/tilec-base; skipped when missing), ATTN_TARGET (default: the device's
# best), ATTN_ROUNDS (default 2), OUT (logs; default ./attn-ab-out).
set -u
TILEC="${TILEC:-.dev/tilec}"
TILEC_BASE="${TILEC_BASE:-.dev/tilec-base}"
OUT="${OUT:-./attn-ab-out}"
ROUNDS="${ATTN_ROUNDS:-2}"
mkdir -p "$OUT"
target=()
[ -n "${ATTN_TARGET:-}" ] && target=(--target "$ATTN_TARGET")
python3 scripts/gpu/refs.py torch --parts sdpa --quick --json "$OUT/sdpa.json" >"$OUT/sdpa.log" 2>&1
grep -i "sdpa" "$OUT/sdpa.log" | head -20
bins=("new:$TILEC")
[ -x "$TILEC_BASE" ] && bins+=("base:$TILEC_BASE")
for r in $(seq 1 "$ROUNDS"); do
	for D in 64 128; do
		for causal in False True; do
			for b in "${bins[@]}"; do
				name="${b%%:*}" bin="${b#*:}"
				log="$OUT/$name-D$D-$causal-r$r.log"
				"$bin" bench examples/cutile/attention.py --entry attention "${target[@]}" \
					--arg Q=f16[B,H,S,D] --arg K=f16[B,H,S,D] --arg V=f16[B,H,S,D] --scalar causal=$causal \
					--shape B=4,H=16,S=4096,D=$D --warmup 3 --iters 20 >"$log" 2>&1
				ms=$(awk '/^ *[0-9]/ && NF > 3 {print $0; exit}' "$log")
				echo "round $r D=$D causal=$causal $name: $ms"
			done
		done
	done
done
