#!/usr/bin/env bash
# Checks that the built libweft.so exports exactly the functions of the
# released C ABI (c_api/abi.txt: one prototype per line, whose function names
# are compared here; scripts/check_abi_prototypes.py compares the prototypes
# with the headers).
#
#   scripts/check_abi.sh [path/to/libweft.so] [path/to/abi.txt]
#
# Fails (exit 1) when the exported weft_ symbols differ from the list: a
# removed or renamed function breaks every binary built against an older
# libweft, and an unlisted one is an ABI change nobody reviewed (add it to
# abi.txt in the same commit). Also fails when anything other than weft_*
# is exported. Exit 2 on usage errors (library or list not found, nm
# missing).
set -euo pipefail
export LC_ALL=C

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
lib="${1:-}"
abi="${2:-$root/c_api/abi.txt}"

if [[ -z "$lib" ]]; then
  for d in "$root"/build*/lib; do
    if [[ -e "$d/libweft.so" ]]; then lib="$d/libweft.so"; break; fi
  done
fi
if [[ -z "$lib" || ! -e "$lib" ]]; then
  echo "check_abi: libweft.so not found (pass its path as the first argument)" >&2
  exit 2
fi
if [[ ! -r "$abi" ]]; then
  echo "check_abi: symbol list '$abi' not found" >&2
  exit 2
fi
if ! command -v nm >/dev/null 2>&1; then
  echo "check_abi: nm not found (install binutils)" >&2
  exit 2
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Defined dynamic symbols whose name starts with weft_ (functions or data).
nm -D --defined-only "$lib" | awk 'NF >= 3 && $3 ~ /^weft_/ { sub(/@.*/, "", $3); print $3 }' |
  sort -u >"$tmp/exported"
# The name before the first '(' of each listed prototype.
grep -v -e '^[[:space:]]*$' -e '^#' "$abi" | sed -E -e 's/[[:space:]]*\(.*$//' -e 's/^.*[^A-Za-z0-9_]//' |
  sort -u >"$tmp/expected"

comm -23 "$tmp/expected" "$tmp/exported" >"$tmp/removed"
comm -13 "$tmp/expected" "$tmp/exported" >"$tmp/added"

status=0
nm -D --defined-only "$lib" | awk 'NF >= 3 && $3 !~ /^weft_/ && $2 ~ /[TDBRVWiu]/ { print $3 }' |
  grep -v -e '^_init$' -e '^_fini$' -e '^WEFT_' >"$tmp/foreign" || true

if [[ -s "$tmp/added" ]]; then
  echo "check_abi: FAILED: exported but not listed in $(basename "$abi"):" >&2
  sed 's/^/  + /' "$tmp/added" >&2
  status=1
fi
if [[ -s "$tmp/foreign" ]]; then
  echo "check_abi: FAILED: non-C-ABI symbols exported:" >&2
  head -20 "$tmp/foreign" | sed 's/^/  ! /' >&2
  status=1
fi
if [[ -s "$tmp/removed" ]]; then
  echo "check_abi: FAILED: symbols listed in $(basename "$abi") but not exported by $lib:" >&2
  sed 's/^/  - /' "$tmp/removed" >&2
  status=1
fi
if [[ $status -eq 0 ]]; then
  echo "check_abi: OK ($(wc -l <"$tmp/expected") listed symbols exported by $lib)"
fi
exit $status
