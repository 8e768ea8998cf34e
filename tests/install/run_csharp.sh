#!/usr/bin/env bash
# run_csharp.sh PREFIX WORK VERSION
# The NuGet package in PREFIX/share/nuget (a directory feed): `nuget install`
# restores it (that feed only), the consumer is compiled by mcs against the
# package's lib/net45/Weft.dll, the package's runtimes/linux-x64/native files are
# copied beside it (as an SDK build's output would be), and it runs with no
# LD_LIBRARY_PATH and must map the package's libweft.so.0.
# Exits 77 (ctest: skipped) when Debian's nuget is not installed.
set -euo pipefail
prefix="$1" work="$2" version="$3"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/csharp"
command -v nuget >/dev/null || { echo "nuget not found (apt-get install nuget): skipped"; exit 77; }
feed="$prefix/share/nuget"
[ -f "$feed/Weft.$version.nupkg" ] || { echo "missing $feed/Weft.$version.nupkg" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work/home" "$work/app"
# A private HOME: no user NuGet.config, no machine-wide sources.
HOME="$work/home" nuget install Weft -Version "$version" -Source "$feed" -OutputDirectory "$work/packages" \
  -NonInteractive -Verbosity quiet
pkg="$work/packages/Weft.$version"
for f in lib/net45/Weft.dll runtimes/linux-x64/native/libweft_csharp.so runtimes/linux-x64/native/libweft.so.0; do
  [ -f "$pkg/$f" ] || { echo "the package lacks $f" >&2; exit 1; }
done
mcs -nologo -warnaserror -r:"$pkg/lib/net45/Weft.dll" -out:"$work/app/Consumer.exe" "$src/Consumer.cs"
cp "$pkg/lib/net45/Weft.dll" "$pkg"/runtimes/linux-x64/native/* "$work/app/"
out="$(env -u LD_LIBRARY_PATH mono "$work/app/Consumer.exe")"
echo "$out"
echo "$out" | grep -qx "native: $(readlink -f "$work/app/libweft.so.0")" ||
  { echo "the consumer did not map the package's libweft.so.0" >&2; exit 1; }
echo "weft nuget package ok"
