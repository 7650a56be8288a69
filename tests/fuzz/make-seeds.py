#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes fuzz-trace's seed inputs: for each base trace (sorted folder names under BASE, the
order fuzz-trace.c uses) and each of its files, one input = selector byte + the file's bytes.
The selector's two low bits name the file (0 fencescope_1, 1 metadata, 2 fencescope_0, 3 a stray
notes.txt), its other bits the base. Usage: make-seeds.py BASE OUT"""
import os
import sys

FILES = ["fencescope_1", "metadata", "fencescope_0"]


def main():
    base, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    names = sorted(n for n in os.listdir(base) if not n.startswith("."))
    for index, name in enumerate(names):
        for which, file_name in enumerate(FILES):
            with open(os.path.join(base, name, file_name), "rb") as f:
                payload = f.read()
            with open(os.path.join(out, "%s-%s" % (name, file_name)), "wb") as f:
                f.write(bytes([(index << 2 | which) & 0xFF]) + payload)
        # A stray text file beside the trace's own files.
        with open(os.path.join(out, "%s-notes.txt" % name), "wb") as f:
            f.write(bytes([(index << 2 | 3) & 0xFF]) + b"notes about this recording\n")


if __name__ == "__main__":
    main()
