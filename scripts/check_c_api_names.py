#!/usr/bin/env python3
"""Checks that the C ABI's error messages name the arguments the header declares.

    check_c_api_names.py HEADER SOURCE...

A message such as "weft_ndarray_ndim: argument 'out' is NULL" is only useful
when 'out' is the name a caller reads in c_api.h. For every WEFT_API function
of HEADER defined in one of the SOURCEs the check fails (exit 1) when:
  - the definition names a parameter differently from the declaration;
  - a call in the body passes a parameter together with a quoted name,
    as in CheckNotNull(out_ndim, "out_ndim"), and the quoted name is not
    that parameter's name.
Exit 2 on usage errors. Python 3 standard library only.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_abi_prototypes import TOKEN, split_top_level, strip_comments_and_directives  # noqa: E402

# A call whose first argument is an identifier and whose second is a string
# naming it: Helper(param, "param"...).
NAMED_ARG = re.compile(r"\b\w+\(\s*([A-Za-z_]\w*)\s*,\s*\"([A-Za-z_]\w*)\"")


def param_names(param_text):
    """The parameter names of a parameter list ('' or 'void' gives [])."""
    tokens = TOKEN.findall(param_text)
    if not tokens or tokens == ["void"]:
        return []
    names = []
    for p in split_top_level(tokens):
        if "(" in p:  # function pointer: ret (*name)(args)
            i = p.index("(")
            names.append(p[i + 2] if i + 2 < len(p) and p[i + 1] == "*" else "")
        elif "[" in p:
            names.append(p[p.index("[") - 1])
        else:
            names.append(p[-1])
    return names


def declared(header):
    """{function name: [parameter names]} of the header's WEFT_API declarations."""
    with open(header, encoding="utf-8") as f:
        text = strip_comments_and_directives(f.read())
    out = {}
    for stmt in text.split(";"):
        m = re.search(r"\bWEFT_API\b[^(]*?\b(weft_\w+)\s*\((.*)\)\s*$", stmt, re.S)
        if m:
            out[m.group(1)] = param_names(m.group(2))
    return out


def body_at(text, open_brace):
    """The text of the block whose '{' is at open_brace."""
    depth = 0
    for i in range(open_brace, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[open_brace:i + 1]
    return text[open_brace:]


def check_source(path, decls):
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"//[^\n]*", " ", re.sub(r"/\*.*?\*/", " ", f.read(), flags=re.S))
    problems, defined = [], set()
    for m in re.finditer(r"\b(weft_\w+)\s*\(([^;{}]*)\)\s*\{", text):
        name = m.group(1)
        if name not in decls:
            continue
        defined.add(name)
        where = "%s:%d: %s" % (path, text.count("\n", 0, m.start()) + 1, name)
        got, want = param_names(m.group(2)), decls[name]
        if got != want:
            problems.append("%s: parameters are named (%s), c_api.h names them (%s)"
                            % (where, ", ".join(got), ", ".join(want)))
            continue
        for call in NAMED_ARG.finditer(body_at(text, m.end() - 1)):
            param, quoted = call.group(1), call.group(2)
            if param in want and quoted != param:
                problems.append("%s: passes parameter '%s' with the name \"%s\"" % (where, param, quoted))
    return problems, defined


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    decls = declared(argv[1])
    problems, defined = [], set()
    for path in argv[2:]:
        p, d = check_source(path, decls)
        problems += p
        defined |= d
    for p in problems:
        print(p)
    print("%d of %d declared functions checked, %d problem(s)" % (len(defined), len(decls), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
