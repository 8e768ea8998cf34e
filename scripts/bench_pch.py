#!/usr/bin/env python3
"""Measures whether a precompiled header would speed up compiling Weft's sources.

Takes N translation units from BUILD/compile_commands.json whose path contains FILTER, compiles
them without ccache twice plainly and twice with `-include` of a precompiled header holding the
headers most of them include (gtest and Weft's public headers), alternating, and prints the CPU
seconds (user + system) of each pass and of building the header. CPU time, not wall time, so
another job on the machine changes little.

    python3 scripts/bench_pch.py [BUILD] [--filter /tests/core/op/] [--files 10]
"""
import argparse
import json
import os
import resource
import shlex
import subprocess
import tempfile

HEADER = """#include <gtest/gtest.h>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>
#include "util/test_util.h"
#include "weft/executor.h"
#include "weft/ndarray.h"
#include "weft/runtime.h"
#include "weft/symbol.h"
"""


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("--filter", default="/tests/core/op/")
    ap.add_argument("--files", type=int, default=10)
    a = ap.parse_args()
    out = tempfile.mkdtemp(prefix="weft-pch-")
    commands = json.load(open(os.path.join(a.build, "compile_commands.json")))
    chosen = [c for c in commands if a.filter in c["file"] and c["file"].endswith(".cc")][: a.files]
    jobs = []
    for c in chosen:
        args = shlex.split(c["command"])
        while args and not args[0].endswith(("c++", "g++")):  # drop the ccache launcher
            args.pop(0)
        args[args.index("-o") + 1] = os.path.join(out, os.path.basename(c["file"]) + ".o")
        jobs.append((c["directory"], args))
    header = os.path.join(out, "pch.h")
    with open(header, "w") as f:
        f.write(HEADER)
    d, first = jobs[0]
    flags = first[: first.index("-o")]
    t = cpu()
    subprocess.run(flags + ["-x", "c++-header", "-o", header + ".gch", header], check=True, cwd=d)
    print("precompiled header: %.1f CPU s" % (cpu() - t))
    for mode in ["plain", "pch", "plain", "pch"]:
        t = cpu()
        for d, args in jobs:
            if mode == "pch":
                k = args.index("-c")
                args = args[:k] + ["-include", header, "-Winvalid-pch"] + args[k:]
            subprocess.run(args, check=True, cwd=d)
        print("%-5s %d files: %.1f CPU s" % (mode, len(jobs), cpu() - t))


if __name__ == "__main__":
    main()
