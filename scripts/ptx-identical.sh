#!/usr/bin/env bash
# ptx-identical.sh: check that two tilec binaries compile every kernel file to
# the same bytes, for a refactor that must not change what tilec emits.
#
#   go build -o /tmp/tilec-before ./cmd/tilec     # on the commit before
#   go build -o /tmp/tilec-after ./cmd/tilec      # on the change
#   bash scripts/ptx-identical.sh /tmp/tilec-before /tmp/tilec-after
#
# For every .tile and .py file under examples/, testdata/ and
# runtime/testdata/kernels/, and every target in TARGETS (default sm_80
# sm_90a sm_120a), it runs `tilec compile FILE --emit ptx --target T` with
# both binaries, for the fast and the general variant, and compares stdout,
# stderr and the exit status: a file that does not compile (a kernel that
# needs -D or --arg, one that a target rejects) must fail with the same
# message. The kernel cache is off (TILEC_CACHE=off), so that each binary
# compiles. Then the same for CASES, the kernels that need -D to compile
# (their flags after the file name), so that the plain list's identical
# failures do not hide them. Prints one line per file and target, then a
# summary; exits 1 on any difference (the first lines of the diff follow
# its line).
set -uo pipefail
if [ $# -ne 2 ]; then
	echo "usage: $0 TILEC_BEFORE TILEC_AFTER" >&2
	exit 2
fi
before=$1
after=$2
for b in "$before" "$after"; do
	[ -x "$b" ] || { echo "$b: not an executable" >&2; exit 2; }
done
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
TARGETS="${TARGETS:-sm_80 sm_90a sm_120a}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export TILEC_CACHE=off

# CASES are "FILE FLAGS..." lines compiled with their flags.
CASES="
testdata/kernels/matmul.tile -D T=f16
testdata/kernels/matmul.tile -D T=f32
testdata/kernels/matmul.tile -D T=bf16
testdata/kernels/attention.tile -D T=f16
testdata/kernels/attention.tile -D T=f16 -D CAUSAL=True
testdata/kernels/batched_matmul.tile -D T=f16
testdata/kernels/softmax.tile -D T=f16
testdata/kernels/layernorm.tile -D T=f16
"

# compile BIN OUT FILE TARGET VARIANT [FLAGS...]: stdout, stderr and status of one compile in OUT.*.
compile() {
	"$1" compile "$3" --emit ptx --target "$4" --variant "$5" "${@:6}" >"$2.out" 2>"$2.err"
	echo $? >"$2.rc"
}

files=$(find examples testdata runtime/testdata/kernels \( -name '*.tile' -o -name '*.py' \) -type f | sort -u)
pairs=0 ptx=0 failed=0 diffs=0
ncases=0
# Each entry is a file and its flags, spaces in the flags as %20 (no file
# or flag here has a space of its own).
entries=$(for f in $files; do echo "$f"; done; echo "$CASES" | grep -v '^$' | sed 's/ /%20/g')
for e in $entries; do
	# shellcheck disable=SC2086
	set -- ${e//%20/ }
	f=$1
	shift
	flags=("$@")
	[ ${#flags[@]} -gt 0 ] && ncases=$((ncases + 1))
	for t in $TARGETS; do
		pairs=$((pairs + 1))
		same=1 kind=ptx
		for v in fast general; do
			compile "$before" "$work/b" "$f" "$t" "$v" "${flags[@]}"
			compile "$after" "$work/a" "$f" "$t" "$v" "${flags[@]}"
			[ "$(cat "$work/b.rc")" = 0 ] || kind=error
			for part in rc out err; do
				if ! cmp -s "$work/b.$part" "$work/a.$part"; then
					[ $same = 1 ] && printf 'DIFF      %-8s %s %s\n' "$t" "$f" "${flags[*]}"
					same=0
					echo "  --variant $v, $part:"
					diff "$work/b.$part" "$work/a.$part" | head -10 | sed 's/^/    /'
				fi
			done
		done
		if [ $same = 1 ]; then
			printf 'same %-5s %-8s %s %s\n' "$kind" "$t" "$f" "${flags[*]}"
			if [ $kind = ptx ]; then ptx=$((ptx + 1)); else failed=$((failed + 1)); fi
		else
			diffs=$((diffs + 1))
		fi
	done
done
nfiles=$(echo "$files" | wc -w)
echo "($nfiles files + $ncases cases with -D) x $(echo $TARGETS | wc -w) targets = $pairs compared (fast and general variants):" \
	"$ptx identical PTX, $failed identical failures, $diffs different"
[ $diffs = 0 ]
