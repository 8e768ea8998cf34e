#!/usr/bin/env python3
"""The size budget of product code: files at most 500 lines, functions at most 80.

    scripts/check_sizes.py [--root DIR] [--budget FILE] [--report]

Product code: C and C++ sources and headers (.h .cc .cu .c) under core/, c_api/,
kernels/, init/ and tools/. A function is a brace block opened outside any other
function whose head (the text since the previous ';', '{' or '}') has a parameter list
and is not a namespace, class, struct, union, enum or initialiser; its length counts
the lines from its head to its closing brace. Lambdas and local classes count toward
their enclosing function. Comments, strings and character literals are skipped.

The budget file (default tests/lint/size_budget.txt) lists what may exceed the limits,
one entry per line: `file PATH LINES` or `function PATH NAME LINES` (a registration
table, or code that predates the budget). An entry is a ceiling: it may shrink, not
grow. Exits 1, naming each offender and its size, when a file or function over a limit
has no entry or exceeds its entry; --report prints every over-limit item as budget lines
(to seed or refresh the file).
"""
import argparse
import os
import re
import sys

FILE_LIMIT, FUNCTION_LIMIT = 500, 80
DIRS = ("core", "c_api", "kernels", "init", "tools")
EXTS = (".h", ".cc", ".cu", ".c")
NOT_FUNCTIONS = re.compile(r"\b(namespace|class|struct|union|enum)\b|=\s*$|^\s*extern\s+\"C\"")


def strip(text):
    """`text` with comments, strings and character literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            end = text.find(")" + (m.group(1) if m else "") + '"', i)
            j = n if end < 0 else end + len(m.group(1) if m else "") + 2
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """(name, first line, last line) of every function body of stripped `text`."""
    found, stack, head_start = [], [], 0
    # stack entries: 'scope' (namespace/class/...), 'function', 'block' (inside a function)
    line_at = [0]
    for ch in text:
        line_at.append(line_at[-1] + (ch == "\n"))
    for i, ch in enumerate(text):
        if ch == ";" and (not stack or stack[-1][0] == "scope"):
            head_start = i + 1
        elif ch == "{":
            if stack and stack[-1][0] != "scope":
                stack.append(("block", i, None))
                continue
            head = text[head_start:i]
            squashed = " ".join(head.split())
            is_fn = ")" in head and not NOT_FUNCTIONS.search(squashed.split(")")[0] + ")") \
                and not re.search(r"=\s*$", squashed)
            if is_fn:
                name = re.findall(r"([~\w:]+(?:<[^()]*>)?)\s*\(", head)
                first = head_start + len(head) - len(head.lstrip())
                stack.append(("function", first, name[0] if name else "?"))
            else:
                stack.append(("scope", i, None))
            head_start = i + 1
        elif ch == "}":
            if not stack:
                continue
            kind, start, name = stack.pop()
            if kind == "function":
                found.append((name, line_at[start] + 1, line_at[i] + 1))
            if not stack or stack[-1][0] == "scope":
                head_start = i + 1
    return found


def measure(root):
    """{('file', path): lines, ('function', path, name): lines} over the limits."""
    over = {}
    for top in DIRS:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith(EXTS):
                    continue
                path = os.path.join(d, f)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                lines = text.count("\n")
                if lines > FILE_LIMIT:
                    over[("file", rel)] = lines
                for name, first, last in functions(strip(text)):
                    length = last - first + 1
                    if length > FUNCTION_LIMIT:
                        key = ("function", rel, name)
                        over[key] = max(over.get(key, 0), length)
    return over


def read_budget(path):
    budget = {}
    with open(path, encoding="utf-8") as fh:
        for n, raw in enumerate(fh, 1):
            line = raw.split("#", 1)[0].split()
            if not line:
                continue
            if line[0] == "file" and len(line) == 3:
                budget[("file", line[1])] = int(line[2])
            elif line[0] == "function" and len(line) == 4:
                budget[("function", line[1], line[2])] = int(line[3])
            else:
                sys.exit("%s:%d: expected 'file PATH LINES' or 'function PATH NAME LINES'" % (path, n))
    return budget


def main():
    p = argparse.ArgumentParser()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p.add_argument("--root", default=here)
    p.add_argument("--budget", default=os.path.join(here, "tests", "lint", "size_budget.txt"))
    p.add_argument("--report", action="store_true")
    a = p.parse_args()
    over = measure(a.root)
    if a.report:
        for key, size in sorted(over.items()):
            print(" ".join(key) + " " + str(size))
        return 0
    budget = read_budget(a.budget)
    bad = []
    for key, size in sorted(over.items()):
        what = "%s %s" % (key[0], " ".join(key[1:]))
        limit = FILE_LIMIT if key[0] == "file" else FUNCTION_LIMIT
        if key not in budget:
            bad.append("%s: %d lines, over the limit of %d (split it, or list it in %s)"
                       % (what, size, limit, os.path.relpath(a.budget, a.root)))
        elif size > budget[key]:
            bad.append("%s: %d lines, over its budget of %d" % (what, size, budget[key]))
    for line in bad:
        print(line)
    print("size budget: %d items over the limits, %d listed, %d offenders"
          % (len(over), len(budget), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
