#!/usr/bin/env python3
"""Parameters decoded once: kernels read fields, not names.

    scripts/check_param_lookups.py [--root DIR] [--budget FILE]

Counts, per source file under kernels/, the parameter lookups by name
(`GetInt("...")`, `GetFloat`, `GetBool`, `GetShape`, `GetString`, `GetDType`,
`GetContext`, `IsNone`, `Has`) outside a `Decode(const ParamValues& ...)`
function: those run on every kernel call, while a `Decode` runs once per node
(ParamValues::Decoded). Exits 1, naming each file, when a file has more than
its ceiling in the budget file (default tests/lint/param_lookups.txt, lines
`PATH COUNT`) or has lookups and no ceiling. The ceilings only go down: a file
that drops below its ceiling is listed with its new count, to be lowered.
"""
import argparse
import os
import re
import sys

LOOKUP = re.compile(r"\b(GetInt|GetFloat|GetBool|GetShape|GetString|GetDType|GetContext|IsNone|Has)"
                    r"\(\s*\"")
DECODE = re.compile(r"\bDecode\(\s*const\s+ParamValues\s*&")
SUFFIXES = (".cc", ".cu", ".h", ".cuh")


def count(path):
    """Lookups in `path` outside Decode functions."""
    n, depth, in_decode = 0, 0, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            code = line.split("//", 1)[0]
            if not in_decode and DECODE.search(code) and "{" in code:
                in_decode, depth = True, 0
            if in_decode:
                depth += code.count("{") - code.count("}")
                if depth <= 0 and "}" in code:
                    in_decode = False
                continue
            n += len(LOOKUP.findall(code))
    return n


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--root", default=here)
    ap.add_argument("--budget", default=None)
    args = ap.parse_args()
    budget_path = args.budget or os.path.join(args.root, "tests", "lint", "param_lookups.txt")
    budget = {}
    with open(budget_path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                path, n = line.split()
                budget[path] = int(n)
    problems, lower, total = [], [], 0
    kernels = os.path.join(args.root, "kernels")
    for dirpath, _, files in os.walk(kernels):
        for name in sorted(files):
            if not name.endswith(SUFFIXES):
                continue
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, args.root)
            n = count(full)
            total += n
            ceiling = budget.get(rel, 0)
            if n > ceiling:
                problems.append("%s: %d parameter lookups by name in per-call code, ceiling %d "
                                "(decode them once: ParamValues::Decoded)" % (rel, n, ceiling))
            elif n < ceiling:
                lower.append("%s %d" % (rel, n))
    for p in problems:
        print(p)
    if lower:
        print("below their ceilings (lower them in %s):" % os.path.relpath(budget_path, args.root))
        for line in lower:
            print("  " + line)
    print("parameter lookups in kernels' per-call code: %d, %d file(s) over their ceiling"
          % (total, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
