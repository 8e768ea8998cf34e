#!/usr/bin/env python3
"""The bindings' conformance list: the Java, C# and Go suites test the same cases.

    scripts/check_conformance.py [--root DIR] [--cases FILE]

The list (default bindings/conformance_cases.txt) holds one case per line, `ID DESCRIPTION`;
after a line `[language-specific]`, `ID LANGUAGES DESCRIPTION` with LANGUAGES a comma-separated
subset of java, csharp, go. `#` starts a comment line. A test is tagged with comment lines
`// conformance: ID [ID...]` among the comment and annotation lines directly above it:

    java    java/src/test/java/**/*.java   a method under @Test (or @ParameterizedTest, ...)
    csharp  csharp/tests/**/*.cs           a method under [Test] (or [Test, ...], [TestCase(...)])
    go      go/**/*_test.go                func TestX(t *testing.T)

Exits 1, naming each problem, when: an id is listed twice or is malformed; a shared case has no
test in one of the three languages; a language-specific case has no test in one of its
languages, or a test in another; a tag names an id not in the list; a tag is not directly above
a test; a test has no tag. Prints the per-language test counts on success.
"""
import argparse
import os
import re
import sys

LANGUAGES = ("java", "csharp", "go")
ID = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$")
TAG = re.compile(r"^\s*//\s*conformance:\s*(.*)$")
# Per language: the directory and file suffix of its tests, the line that starts a test
# declaration, and how to read the test's name from that line or the ones below it.
SUITES = {
    "java": ("java/src/test/java", ".java",
             re.compile(r"^\s*@(Test|ParameterizedTest|RepeatedTest|TestFactory)\b"),
             re.compile(r"\bvoid\s+(\w+)\s*\(")),
    "csharp": ("csharp/tests", ".cs", re.compile(r"^\s*\[(Test|TestCase)\b"),
               re.compile(r"\bvoid\s+(\w+)\s*\(")),
    "go": ("go", "_test.go", re.compile(r"^func\s+(Test\w*)\s*\(\s*\w+\s+\*testing\.T\s*\)"),
           re.compile(r"^func\s+(Test\w*)")),
}
# Lines that may sit between a tag and its test: comments, annotations, attributes.
ABOVE = re.compile(r"^\s*(//|/\*|\*|@|\[)")


def parse_cases(path, problems):
    """{id: languages} from the list file; duplicates and bad lines go to problems."""
    cases, section = {}, "shared"
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            where = "%s:%d" % (path, n)
            if text == "[language-specific]":
                section = "specific"
                continue
            fields = text.split(None, 2 if section == "specific" else 1)
            need = 3 if section == "specific" else 2
            if len(fields) < need:
                problems.append("%s: expected `ID %sDESCRIPTION`" %
                                (where, "LANGUAGES " if section == "specific" else ""))
                continue
            case = fields[0]
            if not ID.match(case):
                problems.append("%s: malformed id '%s' (area.name, lower case)" % (where, case))
                continue
            langs = LANGUAGES
            if section == "specific":
                langs = tuple(fields[1].split(","))
                bad = [l for l in langs if l not in LANGUAGES]
                if bad or len(set(langs)) != len(langs) or len(langs) == len(LANGUAGES):
                    problems.append("%s: languages '%s' of '%s' must be a proper subset of %s" %
                                    (where, fields[1], case, ",".join(LANGUAGES)))
                    continue
            if case in cases:
                problems.append("%s: '%s' is listed twice" % (where, case))
                continue
            cases[case] = langs
    return cases


def test_files(root, lang):
    directory, suffix = SUITES[lang][0], SUITES[lang][1]
    out = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, directory)):
        dirnames[:] = sorted(d for d in dirnames if d != "internal")
        out += [os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(suffix)]
    return out


def scan(path, lang, root, problems):
    """[(test name, [ids])] of one file; stray tags go to problems."""
    _, _, start, name_re = SUITES[lang]
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    rel = os.path.relpath(path, root)
    tests, used = [], set()
    for i, line in enumerate(lines):
        if not start.match(line):
            continue
        name = None
        for j in range(i, min(i + 6, len(lines))):
            m = name_re.search(lines[j])
            if m:
                name = m.group(1)
                break
        if name is None:
            problems.append("%s:%d: cannot read the test's name" % (rel, i + 1))
            continue
        ids, k = [], i - 1
        while k >= 0 and ABOVE.match(lines[k]):
            m = TAG.match(lines[k])
            if m:
                ids += m.group(1).split()
                used.add(k)
            k -= 1
        tests.append((name, ids, "%s:%d" % (rel, i + 1)))
    for k, line in enumerate(lines):
        if TAG.match(line) and k not in used:
            problems.append("%s:%d: conformance tag not directly above a test" % (rel, k + 1))
    return tests


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=here, help="repository root (default: this checkout)")
    ap.add_argument("--cases", help="the list (default ROOT/bindings/conformance_cases.txt)")
    args = ap.parse_args()
    cases_path = args.cases or os.path.join(args.root, "bindings", "conformance_cases.txt")
    problems = []
    cases = parse_cases(cases_path, problems)
    covered = {lang: set() for lang in LANGUAGES}
    counts = {}
    for lang in LANGUAGES:
        n = 0
        for path in test_files(args.root, lang):
            for name, ids, where in scan(path, lang, args.root, problems):
                n += 1
                if not ids:
                    problems.append("%s: %s test %s has no `// conformance:` tag" % (where, lang, name))
                for case in ids:
                    if case not in cases:
                        problems.append("%s: %s tags '%s', which is not in %s" %
                                        (where, name, case, os.path.relpath(cases_path, args.root)))
                    elif lang not in cases[case]:
                        problems.append("%s: %s tags '%s', listed for %s only" %
                                        (where, name, case, ",".join(cases[case])))
                    covered[lang].add(case)
        counts[lang] = n
    for case, langs in cases.items():
        for lang in langs:
            if case not in covered[lang]:
                problems.append("case '%s' has no %s test" % (case, lang))
    for p in problems:
        print(p)
    if problems:
        print("%d conformance problem(s)" % len(problems))
        return 1
    shared = sum(1 for langs in cases.values() if len(langs) == len(LANGUAGES))
    print("%d cases (%d in all three suites, %d language-specific); tests: %s" %
          (len(cases), shared, len(cases) - shared,
           ", ".join("%s %d" % (lang, counts[lang]) for lang in LANGUAGES)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
