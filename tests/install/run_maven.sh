#!/usr/bin/env bash
# run_maven.sh PREFIX WORK VERSION
# Debian's maven, offline: installs the prefix's weft-VERSION.jar + .pom into a
# fresh local repository (mvn install:install-file), builds a project depending
# on ai.weft:weft:VERSION (tests/install/maven/pom.xml + java/Consumer.java) with
# `mvn -o compile`, and runs it with the jar Maven installed.
# The local repository starts as a symlink copy of /usr/share/maven-repo, where
# Debian's plugin packages put their jars. Exits 77 (ctest: skipped) without
# mvn or without those plugins (libmaven-install-plugin-java,
# libmaven-compiler-plugin-java, libmaven-resources-plugin-java): Debian's
# maven package ships none, and offline Maven cannot fetch them.
set -euo pipefail
prefix="$1" work="$2" version="$3"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
debian=/usr/share/maven-repo
plugins="$debian/org/apache/maven/plugins"
command -v mvn >/dev/null || { echo "mvn not found (apt-get install maven): skipped"; exit 77; }
for p in maven-install-plugin maven-compiler-plugin maven-resources-plugin; do
  [ -d "$plugins/$p" ] || { echo "$p not in $debian (apt-get install lib$p-java): skipped"; exit 77; }
done
install_plugin="$(ls "$plugins/maven-install-plugin" | grep -E '^[0-9.]+$' | sort -V | tail -1)"
repo="$prefix/share/maven-repo/ai/weft/weft/$version"
rm -rf "$work" && mkdir -p "$work/m2" "$work/project/src/main/java"
cp -rs "$debian/." "$work/m2/"
mvn() { command mvn -o -B -q -Dmaven.repo.local="$work/m2" "$@"; }

mvn "org.apache.maven.plugins:maven-install-plugin:$install_plugin:install-file" \
  -Dfile="$repo/weft-$version.jar" -DpomFile="$repo/weft-$version.pom"
installed="$work/m2/ai/weft/weft/$version/weft-$version.jar"
cmp "$installed" "$repo/weft-$version.jar" || { echo "mvn did not install the jar at $installed" >&2; exit 1; }

cp "$here/maven/pom.xml" "$work/project/"
cp "$here/java/Consumer.java" "$work/project/src/main/java/"
(cd "$work/project" && mvn -Dweft.version="$version" compile)
env -u LD_LIBRARY_PATH java -Dai.weft.native.dir="$work/native" -cp "$installed:$work/project/target/classes" Consumer
echo "weft maven offline ok"
