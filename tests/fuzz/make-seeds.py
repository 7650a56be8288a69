#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed inputs of a fuzz target from the base traces (sorted folder names under BASE,
the order the targets use).

  make-seeds.py trace BASE OUT
      fuzz-trace: for each base and each of its files, selector byte + the file's bytes. The
      selector's two low bits name the file (0 fencescope_1, 1 metadata, 2 fencescope_0, 3 a
      stray notes.txt), its other bits the base.
  make-seeds.py wire BASE OUT HELPER
      fuzz-wire: what the real decoder helper (HELPER, fencescope-decode) sends for each base,
      after a first byte that says how fuzz-wire-helper ends (0: exits 0, in one write), and
      the same bytes cut in the middle, sent in small writes by a helper that then aborts."""
import os
import subprocess
import sys

FILES = ["fencescope_1", "metadata", "fencescope_0"]


def bases(base):
    return sorted(n for n in os.listdir(base) if not n.startswith("."))


def write(out, name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def trace_seeds(base, out):
    for index, name in enumerate(bases(base)):
        for which, file_name in enumerate(FILES):
            with open(os.path.join(base, name, file_name), "rb") as f:
                payload = f.read()
            write(out, "%s-%s" % (name, file_name), bytes([(index << 2 | which) & 0xFF]) + payload)
        # A stray text file beside the trace's own files.
        write(out, "%s-notes.txt" % name,
              bytes([(index << 2 | 3) & 0xFF]) + b"notes about this recording\n")


def wire_seeds(base, out, helper):
    for name in bases(base):
        read_fd, write_fd = os.pipe()
        child = subprocess.Popen([helper, "--fd", str(write_fd), "--", os.path.join(base, name)],
                                 pass_fds=[write_fd], stdout=subprocess.DEVNULL)
        os.close(write_fd)
        with os.fdopen(read_fd, "rb") as f:
            sent = f.read()
        if child.wait() != 0 or not sent:
            raise SystemExit("make-seeds: %s failed on %s" % (helper, name))
        write(out, "%s-wire" % name, bytes([0]) + sent)
        # The same bytes cut inside a record, sent 62 bytes at a time (bits 2-7 = 1), then abort.
        write(out, "%s-wire-cut-abort" % name, bytes([1 << 2 | 2]) + sent[:len(sent) // 2 + 3])


def main():
    kind, base, out = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    if kind == "trace":
        trace_seeds(base, out)
    elif kind == "wire":
        wire_seeds(base, out, sys.argv[4])
    else:
        raise SystemExit("make-seeds: unknown target kind %s" % kind)


if __name__ == "__main__":
    main()
