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
      after a first byte that says how fuzz-wire-helper ends (0: exits 0, in one write); the
      same bytes cut in the middle, sent in small writes by a helper that then aborts; and the
      same bytes with a header scribble that changes nothing, for mutations to work on."""
import os
import socket
import struct
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


def decode(helper, trace):
    """What HELPER publishes for TRACE: the wire of wire-private.h, through a ring in a memfd
    whose header (head, tail, writer_waiting, reserved, size) the reader sets up. The ring is
    big enough for a whole base trace, so it is read once, at the end."""
    data_offset, size = 4096, 4 * 1024 * 1024
    shm = os.memfd_create("fencescope-seed", 0)
    os.ftruncate(shm, data_offset + size)
    os.pwrite(shm, struct.pack("<QQIIQ", 0, 0, 0, 0, size), 0)
    data_read, data_write = os.pipe()
    room_read, room_write = socket.socketpair()
    fds = [shm, data_write, room_read.fileno()]
    child = subprocess.Popen([helper, "--wire", ",".join(map(str, fds)), "--", trace],
                             pass_fds=fds, stdout=subprocess.DEVNULL)
    os.close(data_write)
    room_read.close()
    while os.read(data_read, 4096):
        pass
    if child.wait() != 0:
        raise SystemExit("make-seeds: %s failed on %s" % (helper, trace))
    head, = struct.unpack("<Q", os.pread(shm, 8, 0))
    if head == 0 or head > size:
        raise SystemExit("make-seeds: %s published %d bytes for %s" % (helper, head, trace))
    sent = os.pread(shm, head, data_offset)
    for fd in (shm, data_read):
        os.close(fd)
    room_write.close()
    return sent


def wire_seeds(base, out, helper):
    for name in bases(base):
        sent = decode(helper, os.path.join(base, name))
        write(out, "%s-wire" % name, bytes([0]) + sent)
        # The same bytes cut inside a record, published 62 bytes at a time (bits 2-6 = 1), then
        # abort.
        write(out, "%s-wire-cut-abort" % name, bytes([1 << 2 | 2]) + sent[:len(sent) // 2 + 3])
        # Bit 7: the stand-in scribbles on the ring's shared header (here: adds 0 to head and
        # xors 0 into size) for mutations to change.
        write(out, "%s-wire-scribble" % name, bytes([0x80]) + bytes(16) + sent)


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
