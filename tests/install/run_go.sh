#!/usr/bin/env bash
# run_go.sh PREFIX WORK MODULE_DIR VERSION GOCACHE [LIBDIR]
# Builds tests/install/go (a module of its own with a replace pointing at
# MODULE_DIR, the repository's go/) with plain `go build`, offline
# (GOPROXY=off, GOFLAGS=-mod=mod), cgo flags only from PREFIX's weft.pc
# (PKG_CONFIG_PATH), then runs it with LD_LIBRARY_PATH=PREFIX/lib and checks it
# loaded PREFIX's libweft.so.0. GOCACHE is kept between runs (the cgo wrapper
# takes about a minute to compile the first time).
set -euo pipefail
prefix="$1" work="$2" module="$3" version="$4" gocache="$5" libdir="${6:-lib}"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/go"
rm -rf "$work" && mkdir -p "$work/src" "$gocache"
cp "$src/go.mod" "$src/main.go" "$work/src/"
export GOCACHE="$gocache" GOPATH="$work/gopath" GOPROXY=off GOFLAGS=-mod=mod GOTOOLCHAIN=local \
  CGO_ENABLED=1 PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" \
  PKG_CONFIG_LIBDIR="$prefix/$libdir/pkgconfig"
unset CGO_CPPFLAGS CGO_CFLAGS CGO_CXXFLAGS CGO_LDFLAGS
# Go's cache does not see the installed headers cgo includes: the ABI version
# in a (path-free) define keys the wrapper, which an older one was reused for.
abi="$(sed -n 's/^#define WEFT_API_VERSION \([0-9]*\)$/\1/p' "$prefix/include/weft/c_api_base.h")"
export CGO_CPPFLAGS="-DWEFT_ABI_STAMP=$abi"
cd "$work/src"
go mod edit -replace "github.com/weft-ai/weft/go=$module"
go build -o "$work/weftconsumer" .
LD_LIBRARY_PATH="$prefix/$libdir" "$work/weftconsumer"
resolved="$(LD_LIBRARY_PATH="$prefix/$libdir" ldd "$work/weftconsumer" | sed -n 's/.*libweft.so.0 => \([^ ]*\).*/\1/p')"
[ "$(readlink -f "$resolved")" = "$(readlink -f "$prefix/$libdir/libweft.so.$version")" ] ||
  { echo "weftconsumer loads libweft.so.0 from '$resolved', not from $prefix" >&2; exit 1; }
echo "weft go module ok"
