#!/usr/bin/env bash
# run_abi_mismatch.sh java|csharp|go PREFIX WORK GO_CONSUMER [LIBDIR]
# Loads a binding installed in PREFIX against another libweft.so.0 whose
# weft_abi_version() is one less than the installed headers' WEFT_API_VERSION
# (make_fake_libweft.sh: same SONAME and exports). The load must fail with a
# message naming both versions and that library's path. The same setup with
# the real library must load (so the failure comes from the version check).
# go: GO_CONSUMER is the program install.go built against PREFIX (ignored otherwise).
set -euo pipefail
lang="$1" prefix="$2" work="$3" go_consumer="$4" libdir="${5:-lib}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
lib="$prefix/$libdir"
# WEFT_API_VERSION is defined in c_api_base.h (c_api.h, the umbrella, includes it).
abi="$(sed -n 's/^#define WEFT_API_VERSION \([0-9]*\)$/\1/p' "$prefix/include/weft/c_api_base.h")"
[[ "$abi" =~ ^[0-9]+$ ]] || { echo "no WEFT_API_VERSION in $prefix/include/weft/c_api_base.h" >&2; exit 1; }
old=$((abi - 1))
rm -rf "$work" && mkdir -p "$work/real" "$work/old"
"$here/make_fake_libweft.sh" "$lib/libweft.so.0" "$work/old" "$old"
cp "$lib/libweft.so.0" "$work/real/"

case "$lang" in
  java)
    jar="$(ls "$prefix"/share/java/weft-*.jar)"
    for d in real old; do cp "$lib/libweft_java.so" "$work/$d/"; done
    run() { env -u LD_LIBRARY_PATH java -Dweft.library.path="$1" -cp "$jar" ai.weft.Weft; }
    ;;
  csharp)
    for d in real old; do cp "$lib/cli/weft/Weft.dll" "$lib/cli/weft/libweft_csharp.so" "$work/$d/"; done
    mcs -nologo -r:"$work/real/Weft.dll" -out:"$work/Consumer.exe" "$here/csharp/Consumer.cs"
    for d in real old; do cp "$work/Consumer.exe" "$work/$d/"; done
    run() { env -u LD_LIBRARY_PATH mono "$1/Consumer.exe"; }
    ;;
  go)
    [ -x "$go_consumer" ] || { echo "no Go consumer at '$go_consumer' (built by install.go)" >&2; exit 1; }
    run() { LD_LIBRARY_PATH="$1" "$go_consumer"; }
    ;;
  *) echo "usage: run_abi_mismatch.sh java|csharp|go PREFIX WORK GO_CONSUMER [LIBDIR]" >&2; exit 2 ;;
esac

run "$work/real" >"$work/real.log" 2>&1 || { cat "$work/real.log"; echo "the real library failed to load" >&2; exit 1; }
set +e
run "$work/old" >"$work/old.log" 2>&1
rc=$?
set -e
grep -m1 "ABI version mismatch" "$work/old.log" || true
[ $rc -ne 0 ] || { cat "$work/old.log"; echo "loading ABI $old instead of $abi succeeded" >&2; exit 1; }
for want in "ABI version mismatch" "native library $work/old/libweft.so.0 " "has ABI version $old " \
            "needs ABI version $abi"; do
  grep -qF -- "$want" "$work/old.log" || { cat "$work/old.log"; echo "the message lacks '$want'" >&2; exit 1; }
done
echo "weft $lang ABI mismatch detected"
