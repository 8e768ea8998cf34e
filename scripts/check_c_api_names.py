#!/usr/bin/env python3
"""Checks that the C ABI's error messages name the arguments the headers declare.

    check_c_api_names.py HEADER... -- SOURCE...
    check_c_api_names.py HEADER SOURCE...

A message such as "weft_ndarray_ndim: argument 'out' is NULL" is only useful
when 'out' is the name a caller reads in the public headers (weft/c_api.h and
its area headers weft/c_api_*.h). For every WEFT_API function of the HEADERs
defined in one of the SOURCEs the check fails (exit 1) when:
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


def declared(headers):
    """{function name: ([parameter names], header file name)} of the headers' WEFT_API declarations."""
    out = {}
    for header in headers:
        with open(header, encoding="utf-8") as f:
            text = strip_comments_and_directives(f.read())
        for stmt in text.split(";"):
            m = re.search(r"\bWEFT_API\b[^(]*?\b(weft_\w+)\s*\((.*)\)\s*$", stmt, re.S)
            if m:
                out[m.group(1)] = (param_names(m.group(2)), os.path.basename(header))
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
        got, (want, header) = param_names(m.group(2)), decls[name]
        if got != want:
            problems.append("%s: parameters are named (%s), %s names them (%s)"
                            % (where, ", ".join(got), header, ", ".join(want)))
            continue
        for call in NAMED_ARG.finditer(body_at(text, m.end() - 1)):
            param, quoted = call.group(1), call.group(2)
            if param in want and quoted != param:
                problems.append("%s: passes parameter '%s' with the name \"%s\"" % (where, param, quoted))
    return problems, defined


def main(argv):
    args = argv[1:]
    if "--" in args:
        headers, sources = args[:args.index("--")], args[args.index("--") + 1:]
    else:
        headers, sources = args[:1], args[1:]
    if not headers or not sources:
        print(__doc__, file=sys.stderr)
        return 2
    decls = declared(headers)
    if not decls:  # e.g. only the umbrella weft/c_api.h, which declares nothing itself
        print("check_c_api_names: no WEFT_API declarations in %s (pass the area headers)" % " ".join(headers),
              file=sys.stderr)
        return 2
    problems, defined = [], set()
    for path in sources:
        p, d = check_source(path, decls)
        problems += p
        defined |= d
    for p in problems:
        print(p)
    print("%d of %d declared functions checked, %d problem(s)" % (len(defined), len(decls), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
