#!/usr/bin/env bash
# run_c.sh cmake|pkgconfig PREFIX WORK VERSION [LIBDIR]
# Builds tests/install/c/consumer.c against the Weft installed in PREFIX only
# (find_package(Weft) with CMAKE_PREFIX_PATH, or `pkg-config --cflags --libs
# weft` with PKG_CONFIG_PATH), checks that it links the installed libweft.so.0
# (whose SONAME must be libweft.so.0) and runs it.
set -euo pipefail
mode="$1" prefix="$2" work="$3" version="$4" libdir="${5:-lib}"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/c"
rm -rf "$work" && mkdir -p "$work"

lib="$prefix/$libdir/libweft.so.$version"
soname="$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
[ "$soname" = "libweft.so.0" ] || { echo "SONAME of $lib is '$soname', expected libweft.so.0" >&2; exit 1; }
[ -L "$prefix/$libdir/libweft.so.0" ] && [ -L "$prefix/$libdir/libweft.so" ] ||
  { echo "missing libweft.so.0 / libweft.so links in $prefix/$libdir" >&2; exit 1; }

case "$mode" in
  cmake)
    # No hint but the prefix: the build tree's export must not be found.
    cmake -S "$src" -B "$work" -DCMAKE_PREFIX_PATH="$prefix" -DWEFT_WANT_VERSION="$version" \
      -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$work/configure.log" 2>&1 ||
      { cat "$work/configure.log"; exit 1; }
    grep -q "^Weft_DIR:PATH=$prefix/$libdir/cmake/Weft$" "$work/CMakeCache.txt" ||
      { grep Weft_DIR "$work/CMakeCache.txt"; echo "Weft found outside $prefix" >&2; exit 1; }
    cmake --build "$work" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
    exe="$work/weft_consumer"
    ;;
  pkgconfig)
    export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" PKG_CONFIG_LIBDIR="$prefix/$libdir/pkgconfig"
    [ "$(pkg-config --modversion weft)" = "$version" ] ||
      { echo "pkg-config weft version $(pkg-config --modversion weft), expected $version" >&2; exit 1; }
    # shellcheck disable=SC2046
    cc -std=c99 -Wall -Werror -o "$work/weft_consumer" "$src/consumer.c" $(pkg-config --cflags --libs weft)
    exe="$work/weft_consumer"
    ;;
  *) echo "usage: run_c.sh cmake|pkgconfig PREFIX WORK VERSION [LIBDIR]" >&2; exit 2 ;;
esac

# The installed copy is the one loaded (rpath from the package, no LD_LIBRARY_PATH).
resolved="$(env -u LD_LIBRARY_PATH ldd "$exe" | sed -n 's/.*libweft.so.0 => \([^ ]*\).*/\1/p')"
[ "$(readlink -f "$resolved")" = "$(readlink -f "$lib")" ] ||
  { echo "$exe loads libweft.so.0 from '$resolved', not from $prefix" >&2; exit 1; }
env -u LD_LIBRARY_PATH "$exe" "$version"
