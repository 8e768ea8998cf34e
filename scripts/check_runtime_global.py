#!/usr/bin/env python3
"""Core never reaches the process runtime: no `Runtime::Global` under core/.

    scripts/check_runtime_global.py [--root DIR]

Core receives its Runtime (or the piece it needs: an op registry, a device's hooks)
from its caller or from the object created with one (an array, executor, predictor,
module); only init/ (which defines Runtime::Global()), the C ABI, the CLI, tests and
benchmarks name the process runtime. Every C and C++ source and header (.h .cc .cu .c
.cuh) under DIR/core is read as text, comments included, so a comment telling core code
to call it fails too. Exits 1, naming each file and line, when `Runtime::Global` (spaces
around `::` allowed) appears.
"""
import argparse
import os
import re
import sys

EXTS = (".h", ".cc", ".cu", ".cuh", ".c")
PATTERN = re.compile(r"\bRuntime\s*::\s*Global\b")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    a = p.parse_args()
    core = os.path.join(a.root, "core")
    if not os.path.isdir(core):
        print("runtime global: no core/ under %s" % a.root)
        return 1
    bad, files = [], 0
    for dirpath, dirnames, filenames in os.walk(core):
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith(EXTS):
                continue
            files += 1
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    if PATTERN.search(line):
                        bad.append("%s:%d: core calls Runtime::Global(); take a Runtime* (or the "
                                   "registry it needs) from the caller instead: %s"
                                   % (os.path.relpath(path, a.root), number, line.strip()))
    for line in bad:
        print(line)
    print("runtime global: %d core files, %d uses of Runtime::Global" % (files, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
