#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every rule id the runtime implements is cited by a test that fails when the rule breaks.

A rule id (tests/rules/rule-ids.txt, generated from the spec's rules.md) that a comment under
runtime/ cites must be cited by at least one test under tests/:

  - a Criterion test name, `Test(suite, nfv_13_...)`: the id lowercased with `_` for `-`,
    at the start of the name or after a `_` (`int_11_int_13_hpf_02_...` cites all three);
  - a faulty driver of the conformance suite, tests/conformance/faulty/<id>-....c
    (`int-02-drops-fence-interrupts.c`), which the suite must reject;
  - a Promela model test of tests/models/meson.build (`syn_06_no_lost_wakeup`).

An id that cannot be tested must be in tests/rules/untestable.txt (`ID<TAB>reason`), and
docs/runtime.md, "Rules no test cites", must list it: the check fails on an uncited id that is
not allowed, on an allowed id that a test cites after all (stale) or that the runtime no longer
cites, on an allowed id the docs do not list, and on an id that rule-ids.txt does not know.
It prints every uncited id with the runtime files that cite it.

    tests/rules/check-rule-citations.py [--list]   (--list: every runtime id and its tests)
"""
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RULES = os.path.join(TOP, "tests", "rules", "rule-ids.txt")
ALLOWED = os.path.join(TOP, "tests", "rules", "untestable.txt")
DOC = os.path.join(TOP, "docs", "runtime.md")
DOC_SECTION = "## Rules no test cites"
ID = re.compile(r"\b([A-Z]{2,4})-(\d\d)\b")
TEST_NAME = re.compile(r"\bTest\s*\(\s*\w+\s*,\s*(\w+)")
MODEL_TEST = re.compile(r"['\"]((?:[a-z]{2,4}_\d\d_)\w+)['\"]")
FAULTY = re.compile(r"^([a-z]{2,4}-\d\d)-")
SOURCE_EXT = (".c", ".h", ".py", ".build", ".pml")


def read_rules():
    rules = {}
    with open(RULES, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            rule_id, kind, sentence = line.rstrip("\n").split("\t", 2)
            rules[rule_id] = (kind, sentence)
    return rules


def read_allowed():
    allowed = {}
    with open(ALLOWED, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            rule_id, _, reason = line.rstrip("\n").partition("\t")
            if not reason.strip():
                sys.exit(f"check-rule-citations: {ALLOWED}:{number}: {rule_id} has no reason")
            allowed[rule_id] = reason.strip()
    return allowed


def files_under(folder, extensions):
    for root, dirs, files in os.walk(os.path.join(TOP, folder)):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(extensions):
                yield os.path.join(root, name)


def runtime_citations(rules):
    """id -> runtime files citing it; ids rules.md does not know -> files."""
    cited, unknown = {}, {}
    for path in files_under("runtime", (".c", ".h")):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for prefix, number in ID.findall(text):
            rule_id = f"{prefix}-{number}"
            target = cited if rule_id in rules else unknown
            target.setdefault(rule_id, set()).add(os.path.relpath(path, TOP))
    return cited, unknown


def test_citations():
    """id -> names of the tests under tests/ that cite it."""
    tests = {}

    def add(name, rule_id):
        tests.setdefault(rule_id.upper(), set()).add(name)

    for path in files_under("tests", SOURCE_EXT):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        names = TEST_NAME.findall(text) if path.endswith(".c") else []
        if path.endswith(os.path.join("models", "meson.build")):
            names += MODEL_TEST.findall(text)
        for name in names:
            tokens = name.split("_")
            for i in range(len(tokens) - 1):
                if re.fullmatch(r"[a-z]{2,4}", tokens[i]) and re.fullmatch(r"\d\d",
                                                                           tokens[i + 1]):
                    add(name, f"{tokens[i]}-{tokens[i + 1]}")
        match = FAULTY.match(os.path.basename(path))
        if match and os.path.basename(os.path.dirname(path)) == "faulty":
            add("faulty driver " + os.path.basename(path), match.group(1))
    return tests


def doc_listed():
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    start = text.find(DOC_SECTION)
    if start < 0:
        return None
    end = text.find("\n## ", start + len(DOC_SECTION))
    section = text[start:end if end >= 0 else len(text)]
    return {f"{p}-{n}" for p, n in ID.findall(section)}


def main():
    rules = read_rules()
    allowed = read_allowed()
    cited, unknown = runtime_citations(rules)
    tests = test_citations()
    listed = doc_listed()
    problems = []

    if "--list" in sys.argv[1:]:
        for rule_id in sorted(cited):
            print(f"{rule_id}: {', '.join(sorted(tests.get(rule_id, ()))) or '-'}")
    for rule_id in sorted(unknown):
        problems.append(f"{rule_id}: cited in {', '.join(sorted(unknown[rule_id]))} "
                        "but not a rule of rules.md (tests/rules/rule-ids.txt)")
    uncited = sorted(r for r in cited if r not in tests)
    for rule_id in uncited:
        where = ", ".join(sorted(cited[rule_id]))
        if rule_id in allowed:
            print(f"untestable {rule_id}: {allowed[rule_id]} (cited in {where})")
        else:
            problems.append(f"{rule_id}: cited in {where}, by no test "
                            f"({rules[rule_id][0]}: {rules[rule_id][1]})")
    for rule_id in sorted(allowed):
        if rule_id not in rules:
            problems.append(f"{rule_id}: in untestable.txt but not a rule of rules.md")
        elif rule_id in tests:
            problems.append(f"{rule_id}: in untestable.txt, but cited by "
                            f"{', '.join(sorted(tests[rule_id]))}: remove it from the list")
        elif rule_id not in cited:
            problems.append(f"{rule_id}: in untestable.txt, but no runtime comment cites it")
        if listed is None:
            continue
        if rule_id not in listed:
            problems.append(f"{rule_id}: in untestable.txt, not in docs/runtime.md "
                            f"'{DOC_SECTION[3:]}'")
    if allowed and listed is None:
        problems.append(f"docs/runtime.md has no section '{DOC_SECTION[3:]}'")
    for rule_id in sorted((listed or set()) - set(allowed)):
        problems.append(f"{rule_id}: listed in docs/runtime.md '{DOC_SECTION[3:]}', not in "
                        "untestable.txt")
    print(f"check-rule-citations: {len(cited)} rule ids cited under runtime/, "
          f"{len(cited) - len(uncited)} by a test, {len(uncited)} not "
          f"({sum(r in allowed for r in uncited)} of them untestable)")
    for problem in problems:
        print("FAIL " + problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
