#!/usr/bin/env bash
# ptxas-sm90a.sh: fetch a ptxas that assembles sm_90a PTX (wgmma, TMA,
# setmaxnreg) on a machine without CUDA: Debian trixie's non-free
# nvidia-cuda-toolkit 12.4 (one ~87 MB .deb) has one that runs on this
# Debian. Only usr/bin/ptxas is kept, as .dev/ptxas-12.4/ptxas.
#
#   bash scripts/ptxas-sm90a.sh        # fetch once; prints the path
#
# Like scripts/cuda-dev.sh it leaves the system's apt configuration alone:
# a private sources list (trixie non-free), private lists and cache under a
# temporary directory, `apt-get download` (no install), `dpkg-deb` to
# extract. Running it again is a no-op once the file is there.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$root/.dev/ptxas-12.4"
say() { echo "ptxas-sm90a: $*" >&2; }

if [ -x "$dest/ptxas" ]; then
	echo "$dest/ptxas"
	exit 0
fi
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || {
	say "missing $keyring (install debian-archive-keyring)"
	exit 1
}
work="$(mktemp -d "${TMPDIR:-/tmp}/ptxas-sm90a.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/srcparts" "$work/debs" "$work/x"
cat >"$work/srcparts/trixie-nonfree.sources" <<-EOF2
	Types: deb
	URIs: http://deb.debian.org/debian
	Suites: trixie
	Components: non-free
	Signed-By: $keyring
EOF2
apt_opts=(
	-o "Dir::Etc::SourceList=/dev/null"
	-o "Dir::Etc::SourceParts=$work/srcparts"
	-o "Dir::State::Lists=$work/lists"
	-o "Dir::Cache=$work/cache"
	-o "Debug::NoLocking=1"
	-o "APT::Sandbox::User=root"
)
say "apt-get update (private list: trixie non-free)"
apt-get "${apt_opts[@]}" -q update >"$work/update.log" 2>&1 || {
	cat "$work/update.log" >&2
	exit 1
}
v="$(apt-cache "${apt_opts[@]}" policy nvidia-cuda-toolkit | awk '/Candidate:/ {print $2}')"
case "$v" in
12.*) say "nvidia-cuda-toolkit $v" ;;
*)
	say "nvidia-cuda-toolkit in trixie non-free is '$v', want 12.x"
	exit 1
	;;
esac
(cd "$work/debs" && apt-get "${apt_opts[@]}" -q download nvidia-cuda-toolkit) >"$work/download.log" 2>&1 || {
	cat "$work/download.log" >&2
	exit 1
}
dpkg-deb --fsys-tarfile "$work"/debs/nvidia-cuda-toolkit_*.deb | tar -x -C "$work/x" ./usr/bin/ptxas
mkdir -p "$dest"
install -m 0755 "$work/x/usr/bin/ptxas" "$dest/ptxas"
"$dest/ptxas" --version | awk '/release/ && !n { print "ptxas-sm90a: " $0; n = 1 }' >&2
echo "$dest/ptxas"
