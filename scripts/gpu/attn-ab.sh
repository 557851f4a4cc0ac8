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
# best), ATTN_ROUNDS (default 2), ATTN_TILES (tile choices to sweep, each
# "D:tq:tkv", e.g. "64:128:64 128:128:32"; default: the host function's own
# at D=64 and 128), ATTN_MASKS (default "False True"), OUT (logs; default
# ./attn-ab-out), ATTN_FILE (default examples/cutile/attention.py) and
# ATTN_BASE_FILE (the source the older binary runs; default ATTN_FILE).
set -u
TILEC="${TILEC:-.dev/tilec}"
TILEC_BASE="${TILEC_BASE:-.dev/tilec-base}"
OUT="${OUT:-./attn-ab-out}"
ROUNDS="${ATTN_ROUNDS:-2}"
TILES="${ATTN_TILES:-64:: 128::}"
MASKS="${ATTN_MASKS:-False True}"
FILE="${ATTN_FILE:-examples/cutile/attention.py}"
BASE_FILE="${ATTN_BASE_FILE:-$FILE}"
mkdir -p "$OUT"
target=()
[ -n "${ATTN_TARGET:-}" ] && target=(--target "$ATTN_TARGET")
python3 scripts/gpu/refs.py torch --parts sdpa --quick --json "$OUT/sdpa.json" >"$OUT/sdpa.log" 2>&1
grep -i "sdpa" "$OUT/sdpa.log" | head -20
bins=("new:$TILEC:$FILE")
[ -x "$TILEC_BASE" ] && bins+=("base:$TILEC_BASE:$BASE_FILE")
for r in $(seq 1 "$ROUNDS"); do
	for tile in $TILES; do
		IFS=: read -r D tq tkv <<<"$tile"
		scalars=()
		[ -n "$tq" ] && scalars+=(--scalar "tq=$tq")
		[ -n "$tkv" ] && scalars+=(--scalar "tkv=$tkv")
		for causal in $MASKS; do
			for b in "${bins[@]}"; do
				IFS=: read -r name bin file <<<"$b"
				log="$OUT/$name-D$D-tq$tq-tkv$tkv-$causal-r$r.log"
				"$bin" bench "$file" --entry attention "${target[@]}" \
					--arg Q=f16[B,H,S,D] --arg K=f16[B,H,S,D] --arg V=f16[B,H,S,D] --scalar causal=$causal \
					"${scalars[@]}" --shape B=4,H=16,S=4096,D=$D --warmup 3 --iters 20 >"$log" 2>&1
				ms=$(awk '/^ *[0-9]/ && NF > 3 {print $0; exit}' "$log")
				[ -z "$ms" ] && ms="FAILED: $(tail -2 "$log" | tr '\n' ' ')"
				echo "round $r D=$D tq=${tq:-host} tkv=${tkv:-host} causal=$causal $name: $ms"
			done
		done
	done
done
