#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the damaged traces of tests/ingest/damaged/ from the small base traces of tests/fuzz/base/
(the first ~240 events of traces/producer-consumer and traces/frame-pipeline, rewritten by
babeltrace2's sink.ctf.fs). Each folder is one way a trace gets damaged that made libbabeltrace2
2.0.4 abort or crash inside fencescope (issue 10, section 4); test-damaged-cli.c checks that
`fencescope report` ends each with a partial report or a one-line error. Run it from anywhere:
the folders are committed, so it only documents (and can redo) how they were made. Folders it
does not make were found by the fuzzer (tests/fuzz, docs/fuzzing.md) and are kept as found:
stream-that-libbabeltrace2-never-finishes is the frame-pipeline base with a 181-byte stream
fencescope_1 on which libbabeltrace2 2.0.4 spins forever.

Layout of the base streams (their metadata): packet header = magic u32, uuid[16], stream_id u64,
stream_instance_id u64 (36 bytes); packet context = packet_size, content_size, timestamp_begin,
timestamp_end, events_discarded, packet_seq_num (u64 each, little-endian), cpu_id u32."""
import os
import re
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, "..", "..", "fuzz", "base")
CONTEXT = {"packet_size": 36, "content_size": 44, "timestamp_begin": 52, "timestamp_end": 60}


def make(name, base, edit):
    out = os.path.join(HERE, name)
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(os.path.join(BASE, base), out)
    edit(out)


def edit_bytes(path, change):
    with open(path, "rb") as f:
        data = bytearray(f.read())
    change(data)
    with open(path, "wb") as f:
        f.write(data)


def context_value(field, value):
    def edit(out):
        def change(data):
            data[CONTEXT[field]:CONTEXT[field] + 8] = struct.pack("<Q", value)
        edit_bytes(os.path.join(out, "fencescope_1"), change)
    return edit


def stray_file(out):
    with open(os.path.join(out, "notes.txt"), "w") as f:
        f.write("notes about this recording\n")


def flipped_magic_bit(out):
    def change(data):
        data[0] ^= 1
    edit_bytes(os.path.join(out, "fencescope_1"), change)


def big_endian_metadata(out):
    path = os.path.join(out, "metadata")
    with open(path) as f:
        text = f.read()
    assert "byte_order = le;" in text
    with open(path, "w") as f:
        f.write(text.replace("byte_order = le;", "byte_order = be;"))


def long_sequence(out):
    # fencescope_hw:interrupt_raise's fence_handles: hwqueue_handle, then the u32 length, then
    # the u64 handles. The raise on queue 0x8003000000000007 with one handle gets 2^31 + 1.
    def change(data):
        head = struct.pack("<QI", 0x8003000000000007, 1)
        handle = struct.pack("<Q", 0x800400000000000C)
        for m in re.finditer(re.escape(head), bytes(data)):
            if handle in data[m.start() + 12:m.start() + 24]:
                data[m.start() + 8:m.start() + 12] = struct.pack("<I", 2**31 + 1)
                return
        raise SystemExit("no interrupt_raise with one fence handle in the base stream")
    edit_bytes(os.path.join(out, "fencescope_0"), change)


def main():
    make("stray-notes-txt", "producer-consumer", stray_file)
    make("flipped-bit-in-packet-magic", "producer-consumer", flipped_magic_bit)
    make("big-endian-metadata", "producer-consumer", big_endian_metadata)
    make("packet-size-2-63", "producer-consumer", context_value("packet_size", 2**63))
    make("content-size-2-62", "producer-consumer", context_value("content_size", 2**62))
    make("timestamp-end-2-64-minus-1", "producer-consumer",
         context_value("timestamp_end", 2**64 - 1))
    make("sequence-length-above-2-31", "frame-pipeline", long_sequence)


if __name__ == "__main__":
    main()
