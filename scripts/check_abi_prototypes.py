#!/usr/bin/env python3
"""Checks the C ABI's prototypes against c_api/abi.txt (append-only).

    check_abi_prototypes.py [--baseline OLD_ABI_TXT] ABI_TXT HEADER...
    check_abi_prototypes.py --print HEADER...

Every `WEFT_API` declaration of the public headers is reduced to one
normalised line: return type, name and parameter types, without parameter
names, comments or layout ("WeftStatus weft_buffer_free(WeftBuffer*)").
abi.txt lists those lines, oldest first ('#' comments and blank lines are
ignored). The check fails (exit 1) when:
  - a listed prototype is no longer declared: a function was removed, or its
    return or parameter types changed (the message shows the new one);
  - a declared prototype is not listed: a new function nobody reviewed
    (append the printed lines to the end of abi.txt in the same commit);
  - a prototype is listed twice;
  - with --baseline: the lines of OLD_ABI_TXT are not the first lines of
    ABI_TXT (an existing entry was edited, removed or reordered).
--print writes the normalised prototypes of the headers (for regenerating).
Exit 2 on usage errors. Python 3 standard library only.
"""
import re
import sys

C_TYPE_WORDS = {"void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool",
                "const", "volatile", "struct", "enum", "union"}
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+|\.\.\.|[*()\[\],]")


def strip_comments_and_directives(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"\\\n", " ", text)  # join continued directive lines
    text = re.sub(r'\bextern\s+"C"\s*\{?', " ", text)  # a header's C++ linkage block
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("#"))


def join_tokens(tokens):
    out = ""
    for t in tokens:
        if t in ("*", ")", "]", ","):
            out += t
        elif not out or out[-1] in "([":
            out += t
        else:
            out += " " + t
    return out.replace(",", ", ")


def split_top_level(tokens):
    parts, depth, cur = [], 0, []
    for t in tokens:
        if t in "([":
            depth += 1
        elif t in ")]":
            depth -= 1
        if t == "," and depth == 0:
            parts.append(cur)
            cur = []
        else:
            cur.append(t)
    parts.append(cur)
    return parts


def param_type(tokens):
    """The tokens of one parameter without its name."""
    if "(" in tokens:  # function pointer: ret (*name)(args)
        i = tokens.index("(")
        if i + 2 < len(tokens) and tokens[i + 1] == "*" and re.match(r"[A-Za-z_]", tokens[i + 2]):
            return tokens[: i + 2] + tokens[i + 3:]
        return tokens
    if "[" in tokens:  # array: type name[N]
        i = tokens.index("[")
        if i > 1 and re.match(r"[A-Za-z_]", tokens[i - 1]) and tokens[i - 1] not in C_TYPE_WORDS:
            return tokens[: i - 1] + tokens[i:]
        return tokens
    last = tokens[-1] if tokens else ""
    if (len(tokens) >= 2 and re.match(r"[A-Za-z_]", last) and last not in C_TYPE_WORDS and
            (tokens[-2] == "*" or tokens[-2] not in ("const", "volatile", "struct", "enum", "union"))):
        return tokens[:-1]
    return tokens


def normalise(decl):
    """One declaration (without ';') as 'ret name(types)', or None."""
    tokens = TOKEN.findall(decl)
    if "WEFT_API" not in tokens:
        return None
    tokens = [t for t in tokens if t not in ("WEFT_API", "extern")]
    if "(" not in tokens or tokens[-1] != ")":
        raise ValueError("cannot parse declaration: " + " ".join(decl.split()))
    open_at = tokens.index("(")
    head, params = tokens[:open_at], tokens[open_at + 1:-1]
    if len(head) < 2:
        raise ValueError("declaration without a return type: " + " ".join(decl.split()))
    name, ret = head[-1], head[:-1]
    types = [join_tokens(param_type(p)) for p in split_top_level(params)] if params else ["void"]
    return "%s %s(%s)" % (join_tokens(ret), name, ", ".join(types))


def header_prototypes(paths):
    protos = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = strip_comments_and_directives(f.read())
        for stmt in text.split(";"):
            p = normalise(stmt)
            if p:
                protos.append(p)
    return protos


def read_list(path):
    with open(path, encoding="utf-8") as f:
        lines = [" ".join(line.split()) for line in f]
    return [line for line in lines if line and not line.startswith("#")]


def name_of(proto):
    return proto.split("(", 1)[0].split()[-1]


def main(argv):
    args = argv[1:]
    if args[:1] == ["--print"]:
        if len(args) < 2:
            print(__doc__, file=sys.stderr)
            return 2
        for p in header_prototypes(args[1:]):
            print(p)
        return 0
    baseline = None
    if args[:1] == ["--baseline"]:
        if len(args) < 2:
            print(__doc__, file=sys.stderr)
            return 2
        baseline, args = args[1], args[2:]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    abi_path, headers = args[0], args[1:]
    try:
        declared = header_prototypes(headers)
        listed = read_list(abi_path)
        old = read_list(baseline) if baseline else None
    except (OSError, ValueError) as e:
        print("check_abi_prototypes: %s" % e, file=sys.stderr)
        return 2

    status = 0
    declared_set, by_name = set(declared), {}
    for p in declared:
        by_name.setdefault(name_of(p), p)
    seen = set()
    for p in listed:
        if p in seen:
            print("check_abi_prototypes: FAILED: listed twice in %s: %s" % (abi_path, p), file=sys.stderr)
            status = 1
        seen.add(p)
    for p in listed:
        if p in declared_set:
            continue
        now = by_name.get(name_of(p))
        if now:
            print("check_abi_prototypes: FAILED: prototype changed (released entries never change):\n"
                  "  listed:   %s\n  declared: %s" % (p, now), file=sys.stderr)
        else:
            print("check_abi_prototypes: FAILED: listed but no longer declared: %s" % p, file=sys.stderr)
        status = 1
    new = [p for p in declared if p not in seen and name_of(p) not in {name_of(q) for q in listed}]
    if new:
        print("check_abi_prototypes: FAILED: declared but not in %s; append these lines to its end:" % abi_path,
              file=sys.stderr)
        for p in new:
            print(p, file=sys.stderr)
        status = 1
    if old is not None and listed[: len(old)] != old:
        for i, p in enumerate(old):
            if i >= len(listed) or listed[i] != p:
                print("check_abi_prototypes: FAILED: %s is append-only; line %d of the baseline, '%s', is now "
                      "'%s'" % (abi_path, i + 1, p, listed[i] if i < len(listed) else "(missing)"),
                      file=sys.stderr)
                break
        status = 1
    if status == 0:
        print("check_abi_prototypes: OK (%d prototypes)" % len(listed))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
