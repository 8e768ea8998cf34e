#!/usr/bin/env python3
"""Checks that weft/c_api.h stays a complete umbrella over the area headers.

    check_c_api_headers.py SOURCE_DIR [CC [CXX]]

The C ABI is declared in c_api/include/weft/c_api_<area>.h; weft/c_api.h only
includes them, and bindings/weft.i %includes them itself (SWIG does not follow
#include). The check fails (exit 1) when:
  - c_api.h does not #include every area header, or includes one twice, or
    declares a WEFT_API function itself;
  - bindings/weft.i does not %include exactly the area headers, in c_api.h's
    order (a header it misses loses its functions in Java, C# and Go);
  - a function is declared in two headers, or WEFT_API_VERSION is not
    defined in exactly one header (c_api_base.h, which the install rules and
    tests/install/run_abi_mismatch.sh read);
  - with CC (and CXX): a header does not compile on its own, twice included,
    as C99 (and C++17) with -Wall -Wextra -pedantic -Werror.
Exit 0 when every header behaves. Python 3 standard library only.
"""
import glob
import os
import re
import subprocess
import sys

SRC = sys.argv[1]
CC = sys.argv[2] if len(sys.argv) > 2 else None
CXX = sys.argv[3] if len(sys.argv) > 3 else None
INC = os.path.join(SRC, "c_api", "include")
WEFT = os.path.join(INC, "weft")
failures = []


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def code(text):
    """The text without comments."""
    return re.sub(r"//[^\n]*", " ", re.sub(r"/\*.*?\*/", " ", text, flags=re.S))


areas = sorted(os.path.basename(p) for p in glob.glob(os.path.join(WEFT, "c_api_*.h")))
umbrella = code(read(os.path.join(WEFT, "c_api.h")))
included = re.findall(r'^\s*#\s*include\s*[<"](?:weft/)?(c_api_\w+\.h)[>"]', umbrella, flags=re.M)
if sorted(included) != areas:
    failures.append("c_api.h includes %s; the area headers are %s" % (included, areas))
if "WEFT_API " in umbrella:
    failures.append("c_api.h declares functions itself; declare them in an area header")

swig = code(read(os.path.join(SRC, "bindings", "weft.i")))
swig_included = re.findall(r'^\s*%include\s*"weft/(c_api\w*\.h)"', swig, flags=re.M)
if swig_included != included:
    failures.append("bindings/weft.i %%includes %s; c_api.h includes %s (same list, same order)"
                    % (swig_included, included))

where, version_in = {}, []
for h in areas + ["c_api.h"]:
    text = code(read(os.path.join(WEFT, h)))
    if re.search(r"^#define WEFT_API_VERSION [0-9]+$", text, flags=re.M):
        version_in.append(h)
    for name in re.findall(r"\bWEFT_API\b[^;(]*?\b(weft_\w+)\s*\(", text):
        if name in where:
            failures.append("%s is declared in %s and in %s" % (name, where[name], h))
        where[name] = h
if version_in != ["c_api_base.h"]:
    failures.append("'#define WEFT_API_VERSION <n>' is in %s, not (only) in c_api_base.h" % version_in)
if not where:
    failures.append("no WEFT_API function declared in %s" % WEFT)


def compiles(compiler, lang, std, header):
    source = '#include "weft/%s"\n#include "weft/%s"\nint weft_header_check(void);\n' % (header, header)
    p = subprocess.run([compiler, "-x", lang, "-std=" + std, "-Wall", "-Wextra", "-pedantic", "-Werror",
                        "-fsyntax-only", "-I", INC, "-"], input=source, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    if p.returncode != 0:
        failures.append("weft/%s does not compile on its own as %s:\n%s" % (header, std, p.stdout))


for h in areas + ["c_api.h"]:
    if CC:
        compiles(CC, "c", "c99", h)
    if CXX:
        compiles(CXX, "c++", "c++17", h)

for f in failures:
    print("FAILED: " + f)
print("%d area headers, %d functions, %d failure(s)" % (len(areas), len(where), len(failures)))
sys.exit(1 if failures else 0)
