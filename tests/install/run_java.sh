#!/usr/bin/env bash
# run_java.sh PREFIX WORK VERSION
# The Java package in PREFIX: the jar and its pom in the Maven layout
# (share/maven-repo/ai/weft/weft/VERSION/); a consumer compiled against that jar
# alone; natives extracted once into the per-user cache (XDG_CACHE_HOME=WORK/cache)
# and reused by the next run; -Dai.weft.native.dir on an empty directory with
# extraction off fails naming the missing file and every path tried.
set -euo pipefail
prefix="$1" work="$2" version="$3"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/java"
rm -rf "$work" && mkdir -p "$work/classes" "$work/empty"
repo="$prefix/share/maven-repo/ai/weft/weft/$version"
jar="$repo/weft-$version.jar" pom="$repo/weft-$version.pom"
[ -f "$jar" ] && [ -f "$pom" ] || { echo "missing $jar or $pom" >&2; exit 1; }
grep -q "<artifactId>weft</artifactId>" "$pom" && grep -q "<version>$version</version>" "$pom" ||
  { echo "$pom does not describe ai.weft:weft:$version" >&2; exit 1; }

javac --release 11 -d "$work/classes" -cp "$jar" "$src/Consumer.java"
run() { env -u LD_LIBRARY_PATH XDG_CACHE_HOME="$work/cache" java -Djava.library.path=/nonexistent "$@" \
          -cp "$jar:$work/classes" Consumer; }

first="$(run)"; echo "$first"
second="$(run)"; echo "$second"
cache="$work/cache/weft/native/$version-"
echo "$first" | grep -q "^native: $cache[0-9a-f]\{16\}/libweft_java.so (extracted from the jar now)$" ||
  { echo "first run did not extract into $cache<hash>" >&2; exit 1; }
dir="$(echo "$first" | sed -n 's/^native: \(.*\)\/libweft_java.so .*/\1/p')"
[ "$second" = "${first/(extracted from the jar now)/(extracted from the jar earlier)}" ] ||
  { echo "second run did not reuse $dir" >&2; exit 1; }
[ "$(stat -c %a "$dir")" = 700 ] || { echo "$dir is not owner-only" >&2; exit 1; }

# Nothing to load: the error names the file and every place tried.
set +e
err="$(run -Dai.weft.native.dir="$work/empty" -Dai.weft.native.extract=false 2>&1)"
rc=$?
set -e
echo "$err" | grep -m1 UnsatisfiedLinkError
[ $rc -ne 0 ] || { echo "loading from an empty native dir succeeded" >&2; exit 1; }
for want in "cannot load the native library libweft_java.so" \
            "-Dai.weft.native.dir: $work/empty/libweft_java.so (file not found)" \
            "java.library.path=/nonexistent"; do
  echo "$err" | grep -qF -- "$want" || { echo "load error lacks '$want'" >&2; exit 1; }
done
echo "weft java package ok"
