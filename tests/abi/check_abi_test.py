#!/usr/bin/env python3
"""Tests of the ABI checks on edited copies of the real headers and abi.txt.

    check_abi_test.py SOURCE_DIR [LIBWEFT_SO]

scripts/check_abi_prototypes.py must fail for a changed parameter or return
type, a removed function, an unlisted new function and (with --baseline) an
edited entry, and pass for renamed parameters, new layout and an appended
prototype; a declaration that opens a header's extern "C" block is read like
any other. With LIBWEFT_SO, scripts/check_abi.sh must fail when abi.txt
lacks an exported function. scripts/check_c_api_names.py must fail for a
definition whose parameter names differ from the header's (naming that
header) and for a message quoting a parameter under another name. Exit 0 when every case behaves.
"""
import glob
import os
import subprocess
import sys
import tempfile

SRC = sys.argv[1]
LIB = sys.argv[2] if len(sys.argv) > 2 else None
CHECKER = os.path.join(SRC, "scripts", "check_abi_prototypes.py")
# The public headers: weft/c_api.h (the umbrella) and the area headers it includes.
HEADERS = sorted(glob.glob(os.path.join(SRC, "c_api", "include", "weft", "*.h")))
ABI = os.path.join(SRC, "c_api", "abi.txt")
failures = []


def run(args):
    p = subprocess.run([sys.executable, CHECKER] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    return p.returncode, p.stdout + p.stderr


def copy_headers(tmp, header_edit):
    """Copies HEADERS into tmp, applying header_edit to the first one it changes; returns
    the copies' paths, or None when the edit changed no header."""
    paths, edited = [], header_edit is None
    for src in HEADERS:
        text = open(src, encoding="utf-8").read()
        if not edited and header_edit(text) != text:
            text, edited = header_edit(text), True
        paths.append(os.path.join(tmp, os.path.basename(src)))
        open(paths[-1], "w", encoding="utf-8").write(text)
    return paths if edited else None


def case(name, header_edit=None, abi_edit=None, expect_rc=0, expect_text=None, baseline=False):
    with tempfile.TemporaryDirectory() as tmp:
        a = os.path.join(tmp, "abi.txt")
        headers = copy_headers(tmp, header_edit)
        if headers is None:
            failures.append("%s: the header edit changed nothing (test out of date)" % name)
            return
        abi = open(ABI, encoding="utf-8").read()
        open(a, "w", encoding="utf-8").write(abi_edit(abi) if abi_edit else abi)
        args = (["--baseline", ABI] if baseline else []) + [a] + headers
        rc, out = run(args)
        if rc != expect_rc or (expect_text and expect_text not in out):
            failures.append("%s: exit %d (expected %d%s):\n%s" % (
                name, rc, expect_rc, ", output with '%s'" % expect_text if expect_text else "", out))


LIST_SIZE = "WEFT_API WeftStatus weft_ndarray_list_size(const WeftNDArrayList* list, size_t* out_size,"
NEW_DECL = "\nWEFT_API WeftStatus weft_test_appended(const WeftNDArray* arr,\n    int64_t*  out);\n"
NEW_LINE = "WeftStatus weft_test_appended(const WeftNDArray*, int64_t*)"

case("unchanged copy passes")
case("changed parameter type fails",
     header_edit=lambda t: t.replace(LIST_SIZE, LIST_SIZE.replace("size_t* out_size", "int* out_size")),
     expect_rc=1, expect_text="declared: WeftStatus weft_ndarray_list_size(const WeftNDArrayList*, int*, int*)")
case("changed return type fails",
     header_edit=lambda t: t.replace("WEFT_API size_t weft_live_handle_count(void)",
                                     "WEFT_API int weft_live_handle_count(void)"),
     expect_rc=1, expect_text="prototype changed")
case("renamed parameters and new layout pass",
     header_edit=lambda t: t.replace(LIST_SIZE, "WEFT_API   WeftStatus\nweft_ndarray_list_size( const WeftNDArrayList *"
                                     "the_list ,\n size_t *n,"))
case("a declaration opening an extern \"C\" block is read",
     header_edit=lambda t: t.replace("WEFT_API WeftStatus weft_buffer_free(WeftBuffer* buf);",
                                     'extern "C" {\nWEFT_API WeftStatus weft_buffer_free(WeftBuffer* buf, int n);\n}'),
     expect_rc=1, expect_text="declared: WeftStatus weft_buffer_free(WeftBuffer*, int)")
case("removed function fails",
     header_edit=lambda t: t.replace("WEFT_API WeftStatus weft_buffer_free(WeftBuffer* buf);", ""),
     expect_rc=1, expect_text="no longer declared: WeftStatus weft_buffer_free(WeftBuffer*)")
case("unlisted new function fails, naming the line to append",
     header_edit=lambda t: t.replace("#ifdef __cplusplus\n}", NEW_DECL + "#ifdef __cplusplus\n}"),
     expect_rc=1, expect_text="append these lines to its end:\n" + NEW_LINE)
case("appended prototype passes",
     header_edit=lambda t: t.replace("#ifdef __cplusplus\n}", NEW_DECL + "#ifdef __cplusplus\n}"),
     abi_edit=lambda a: a + NEW_LINE + "\n", baseline=True)
case("edited entry fails against the baseline",
     abi_edit=lambda a: a.replace("WeftStatus weft_buffer_free(WeftBuffer*)\n", "") +
     "WeftStatus weft_buffer_free(WeftBuffer*)\n",
     baseline=True, expect_rc=1, expect_text="append-only")
case("entry listed twice fails",
     abi_edit=lambda a: a + "WeftStatus weft_buffer_free(WeftBuffer*)\n", expect_rc=1, expect_text="listed twice")

if LIB:
    with tempfile.TemporaryDirectory() as tmp:
        a = os.path.join(tmp, "abi.txt")
        lines = open(ABI, encoding="utf-8").read().replace("WeftStatus weft_buffer_free(WeftBuffer*)\n", "")
        open(a, "w", encoding="utf-8").write(lines)
        p = subprocess.run([os.path.join(SRC, "scripts", "check_abi.sh"), LIB, a], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        if p.returncode != 1 or "+ weft_buffer_free" not in p.stdout:
            failures.append("check_abi.sh with weft_buffer_free unlisted: exit %d:\n%s" % (p.returncode, p.stdout))

NAMES = os.path.join(SRC, "scripts", "check_c_api_names.py")
NDARRAY_CC = os.path.join(SRC, "c_api", "src", "c_api_ndarray.cc")


def names_case(name, source_edit=None, expect_rc=0, expect_text=None):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "c_api_ndarray.cc")
        text = open(NDARRAY_CC, encoding="utf-8").read()
        if source_edit:
            edited = source_edit(text)
            if edited == text:
                failures.append("%s: the source edit changed nothing (test out of date)" % name)
                return
            text = edited
        open(src, "w", encoding="utf-8").write(text)
        p = subprocess.run([sys.executable, NAMES] + HEADERS + ["--", src], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        if p.returncode != expect_rc or (expect_text and expect_text not in p.stdout):
            failures.append("%s: exit %d (expected %d):\n%s" % (name, p.returncode, expect_rc, p.stdout))


names_case("names: unchanged source passes")
names_case("names: a renamed parameter fails",
           source_edit=lambda t: t.replace("weft_ndarray_ndim(const WeftNDArray* arr, int* out)",
                                           "weft_ndarray_ndim(const WeftNDArray* arr, int* out_ndim)"),
           expect_rc=1,
           expect_text="weft_ndarray_ndim: parameters are named (arr, out_ndim), c_api_ndarray.h names them (arr, out)")
names_case("names: a message quoting another name fails",
           source_edit=lambda t: t.replace('CheckNotNull(out, "out");\n  *out = a->shape().ndim();',
                                           'CheckNotNull(out, "out_ndim");\n  *out = a->shape().ndim();'),
           expect_rc=1, expect_text="weft_ndarray_ndim: passes parameter 'out' with the name \"out_ndim\"")

for f in failures:
    print("FAILED: " + f)
print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
