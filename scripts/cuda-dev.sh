#!/usr/bin/env bash
# cuda-dev.sh: make `go build -tags cuda ./...` work on a machine without CUDA.
#
# The development machines and CI have no GPU and no CUDA toolkit. The cuda
# build only needs three files from Debian's non-free archive (CUDA 11.8):
#
#   .dev/cuda/include/cuda.h   driver API header      (package nvidia-cuda-dev)
#   .dev/cuda/lib/libcuda.so   link-time stub         (package nvidia-cuda-dev)
#   .dev/cuda/bin/ptxas        offline PTX assembler  (package nvidia-cuda-toolkit)
#
# The stub only satisfies the linker: at run time the binary loads libcuda.so.1
# from the GPU machine's driver. ptxas 11.8 accepts PTX ISA up to 7.8; use it to
# check sm_80 code offline (`ptxas -arch=sm_80 -v k.ptx -o /dev/null`).
#
# Usage (from anywhere; paths are relative to the repository root):
#
#   bash scripts/cuda-dev.sh           # fetch and extract once, then print the env
#   source scripts/cuda-dev.sh         # set CGO_CFLAGS, CGO_LDFLAGS, PATH in this shell
#   eval "$(bash scripts/cuda-dev.sh env)"   # the same, for scripts and CI
#
# Then: go build -tags cuda ./...
#
# How it fetches: it does not touch the system's apt sources. It runs apt-get
# with a private sources list (bookworm non-free) and private list/cache
# directories under a temporary directory, downloads the two .deb files with
# `apt-get download` (no install, no dependencies), and extracts only the three
# files above. nvidia-cuda-dev is a ~770 MB download; the .debs are deleted
# afterwards. Running it again is a no-op once the files are in place.

cuda_dev_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cuda_dev_dir="$cuda_dev_root/.dev/cuda"

cuda_dev_env_lines() {
	printf 'export CGO_CFLAGS="-O2 -g -I%s/include"\n' "$cuda_dev_dir"
	printf 'export CGO_LDFLAGS="-L%s/lib"\n' "$cuda_dev_dir"
	printf 'export PATH="%s/bin:$PATH"\n' "$cuda_dev_dir"
}

cuda_dev_ready() {
	[ -s "$cuda_dev_dir/include/cuda.h" ] &&
		[ -s "$cuda_dev_dir/lib/libcuda.so" ] &&
		[ -x "$cuda_dev_dir/bin/ptxas" ]
}

# Sourced: only set the environment; never run apt or exit the caller's shell.
if [ "${BASH_SOURCE[0]}" != "$0" ]; then
	if ! cuda_dev_ready; then
		echo "cuda-dev: $cuda_dev_dir is incomplete; run: bash scripts/cuda-dev.sh" >&2
		return 1
	fi
	eval "$(cuda_dev_env_lines)"
	echo "cuda-dev: CGO_CFLAGS, CGO_LDFLAGS and PATH set for $cuda_dev_dir" >&2
	return 0
fi

set -euo pipefail

if [ "${1:-}" = env ]; then
	cuda_dev_env_lines
	exit 0
fi
if [ $# -gt 0 ]; then
	echo "usage: bash scripts/cuda-dev.sh [env]   or   source scripts/cuda-dev.sh" >&2
	exit 2
fi

say() { echo "cuda-dev: $*" >&2; }

if cuda_dev_ready; then
	say "already set up in $cuda_dev_dir (delete it to refetch)"
else
	arch="$(dpkg --print-architecture)"
	case "$arch" in
	amd64) triple=x86_64-linux-gnu ;;
	arm64) triple=aarch64-linux-gnu ;;
	ppc64el) triple=powerpc64le-linux-gnu ;;
	*)
		say "unsupported architecture $arch"
		exit 1
		;;
	esac
	# Debian's release name; bookworm ships CUDA 11.8 in non-free.
	suite="$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")"
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -r "$keyring" ] || {
		say "missing $keyring (install debian-archive-keyring)"
		exit 1
	}

	work="$(mktemp -d "${TMPDIR:-/tmp}/cuda-dev.XXXXXX")"
	trap 'rm -rf "$work"' EXIT
	mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs" "$work/x"
	cat >"$work/nonfree.sources" <<-EOF
		Types: deb
		URIs: http://deb.debian.org/debian
		Suites: $suite
		Components: non-free
		Signed-By: $keyring
	EOF
	# A private apt configuration: our sources only, our lists and cache.
	apt_opts=(
		-o "Dir::Etc::SourceList=/dev/null"
		-o "Dir::Etc::SourceParts=$work/srcparts"
		-o "Dir::State::Lists=$work/lists"
		-o "Dir::Cache=$work/cache"
		-o "Debug::NoLocking=1"
		-o "APT::Sandbox::User=root"
	)
	mkdir -p "$work/srcparts"
	cp "$work/nonfree.sources" "$work/srcparts/nonfree.sources"

	say "apt-get update (private list: $suite non-free)"
	apt-get "${apt_opts[@]}" -q update >"$work/update.log" 2>&1 || {
		cat "$work/update.log" >&2
		exit 1
	}
	pkgs=(nvidia-cuda-dev nvidia-cuda-toolkit)
	for p in "${pkgs[@]}"; do
		v="$(apt-cache "${apt_opts[@]}" policy "$p" | awk '/Candidate:/ {print $2}')"
		case "$v" in
		11.8.*) say "$p $v" ;;
		"" | "(none)")
			say "$p not found in $suite non-free"
			exit 1
			;;
		*) say "warning: $p is $v, not 11.8.*; continuing" ;;
		esac
	done
	say "downloading ${pkgs[*]} (about 860 MB)"
	(cd "$work/debs" && apt-get "${apt_opts[@]}" -q download "${pkgs[@]}") >"$work/download.log" 2>&1 || {
		cat "$work/download.log" >&2
		exit 1
	}

	# Extract only the members we need; tar still decompresses the stream.
	dev_deb="$(ls "$work"/debs/nvidia-cuda-dev_*.deb)"
	tk_deb="$(ls "$work"/debs/nvidia-cuda-toolkit_*.deb)"
	say "extracting cuda.h and stubs/libcuda.so from $(basename "$dev_deb")"
	dpkg-deb --fsys-tarfile "$dev_deb" |
		tar -x -C "$work/x" ./usr/include/cuda.h "./usr/lib/$triple/stubs/libcuda.so"
	say "extracting ptxas from $(basename "$tk_deb")"
	dpkg-deb --fsys-tarfile "$tk_deb" | tar -x -C "$work/x" ./usr/bin/ptxas

	# cuda.h includes only <stdlib.h> and <stdint.h>, so it is the only header.
	mkdir -p "$cuda_dev_dir/include" "$cuda_dev_dir/lib" "$cuda_dev_dir/bin"
	install -m 0644 "$work/x/usr/include/cuda.h" "$cuda_dev_dir/include/cuda.h"
	install -m 0644 "$work/x/usr/lib/$triple/stubs/libcuda.so" "$cuda_dev_dir/lib/libcuda.so"
	install -m 0755 "$work/x/usr/bin/ptxas" "$cuda_dev_dir/bin/ptxas"
	say "installed into $cuda_dev_dir:"
	(cd "$cuda_dev_dir" && find . -type f | sort | sed 's/^/  /') >&2
fi

# awk reads all of ptxas's output (grep -m1 could exit first and, with
# pipefail, fail the script on ptxas's SIGPIPE: a flaky CI).
"$cuda_dev_dir/bin/ptxas" --version | awk '/release/ && !n { print "cuda-dev: ptxas: " $0; n = 1 }' >&2
cat >&2 <<EOF
cuda-dev: to build with -tags cuda, set this environment (or: source scripts/cuda-dev.sh):
$(cuda_dev_env_lines)
EOF
