#!/usr/bin/env bash
# ptxas-check.sh: assemble the sm_80 PTX of every example kernel with the
# offline ptxas (11.8 from scripts/cuda-dev.sh on dev machines and CI; the
# GPU machine's own ptxas when PTXAS is set). Prints registers and spills per
# kernel; fails if any kernel tilec can compile does not assemble, or spills.
# Kernels tilec does not lower yet are listed as skipped, with the reason.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
PTXAS="${PTXAS:-$root/.dev/cuda/bin/ptxas}"
ARCHS="${ARCHS:-sm_80}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -o "$work/tilec" ./cmd/tilec || exit 1

fail=0
for src in examples/*.tile; do
	for kernel in $(sed -n 's/^def \([A-Za-z_0-9]*\)(.*/\1/p' "$src"); do
		grep -B1 "^def $kernel(" "$src" | grep -q '@ct.kernel' || continue
		name="$(basename "$src" .tile)_$kernel"
		if ! "$work/tilec" compile "$src" --kernel "$kernel" --emit ptx --target sm_80 >"$work/$name.ptx" 2>"$work/$name.err"; then
			printf '%-32s skipped: %s\n' "$name" "$(head -1 "$work/$name.err")"
			continue
		fi
		for arch in $ARCHS; do
			if "$PTXAS" -arch="$arch" -v "$work/$name.ptx" -o /dev/null >"$work/$name.log" 2>&1; then
				info=$(grep -o 'Used [0-9]* registers' "$work/$name.log" | head -1)
				spill=$(grep -o '[0-9]* bytes spill stores' "$work/$name.log" | head -1)
				printf '%-32s %s ok: %s, %s\n' "$name" "$arch" "$info" "${spill:-0 bytes spill stores}"
				case "$spill" in 0\ *|"") ;; *) echo "  spills"; fail=1 ;; esac
			else
				printf '%-32s %s FAILED\n' "$name" "$arch"
				cat "$work/$name.log"
				fail=1
			fi
		done
	done
done
exit $fail
