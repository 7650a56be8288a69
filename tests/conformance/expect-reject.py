#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs the conformance suite linked with a faulty driver and passes only if the suite rejects
it: every test named on the command line (suite::test) must fail on an assertion, not crash or
time out. Other tests the variant happens to break are listed, not judged.

    expect-reject.py EXECUTABLE SUITE::TEST...
"""
import re
import subprocess
import sys


def main():
    exe, expected = sys.argv[1], sys.argv[2:]
    run = subprocess.run([exe, "--tap=/dev/stdout", "--jobs=1"], capture_output=True, text=True,
                         timeout=300)
    # name -> (passed, the test's TAP lines: its result and its YAML block of failures)
    results = {}
    current = None
    for line in run.stdout.splitlines():
        match = re.match(r"(not ok|ok) - (\S+)", line)
        if match:
            current = match.group(2)
            results[current] = (match.group(1) == "ok", line)
        elif current and line.startswith("  "):
            results[current] = (results[current][0], results[current][1] + "\n" + line)
        else:
            current = None
    status = 0
    for name in expected:
        if name not in results:
            print("FAIL %s: the suite has no such test" % name)
            status = 1
        elif results[name][0]:
            print("FAIL %s: passed, so the suite did not reject the faulty driver" % name)
            status = 1
        elif "Assertion failed" not in results[name][1]:
            print("FAIL %s: crashed rather than failing an assertion: %s" % (name, results[name][1]))
            status = 1
        else:
            print("ok   %s: rejected the faulty driver" % name)
    for name, (passed, _) in sorted(results.items()):
        if not passed and name not in expected:
            print("note %s: also fails against this driver" % name)
    if status:
        print(run.stdout)
        print(run.stderr, file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
