#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the traces of tests/ingest/split/, on which test-ingest.c checks that two decoder
processes deliver exactly what one delivers, in the same order (docs/analyzer.md "Two
decoders"). Each is traces/realtime-producer-consumer (two stream files, one packet each: CPU 0
and CPU 1) with a third stream file, fencescope_2, a copy of fencescope_1 under another stream
instance id and CPU (2, so that the callbacks can tell the twins apart): every event of fencescope_1 has a twin at the very same time in fencescope_2, and
the two files go to different decoders (the two largest), so each twin pair is a tie that
flt.utils.muxer breaks by stream id.
- ties-copy-last: the copy's id (2) is above the original's (1): the original goes first.
- ties-copy-first: fencescope_0 and fencescope_1 get ids 8 and 9, the copy 0: the copy goes first.
- discards: ties-copy-last where fencescope_1's and the copy's packets say that 3 and 5 events
  were discarded before them (a first packet's counter: a discarded-events message of unknown
  count over the packet's time range, ordered by its beginning).
The folders are committed; this script documents (and can redo) how they were made.

Layout (the metadata): packet header = magic u32, uuid[16], stream_id u32, stream_instance_id u64
at byte 24; packet context from byte 32 = timestamp_begin, timestamp_end, content_size,
packet_size, packet_seq_num, events_discarded (at byte 72) u64, cpu_id (at byte 80) u32
(little-endian). An
LTTng index 1.1 entry (big-endian) has stream_instance_id at byte 56."""
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, "..", "..", "..", "traces", "realtime-producer-consumer", "ust")
SUB = os.path.join("uid", "0", "64-bit")


def packet_offsets(index):
    with open(index, "rb") as f:
        data = f.read()
    entry = struct.unpack(">I", data[12:16])[0]
    return [struct.unpack(">Q", data[16 + i * entry:24 + i * entry])[0]
            for i in range((len(data) - 16) // entry)], entry


def set_stream(folder, name, instance=None, discarded=None, cpu=None):
    stream = os.path.join(folder, name)
    index = os.path.join(folder, "index", name + ".idx")
    offsets, entry = packet_offsets(index)
    with open(stream, "r+b") as f:
        for offset in offsets:
            if instance is not None:
                f.seek(offset + 24)
                f.write(struct.pack("<Q", instance))
            if discarded is not None:
                f.seek(offset + 72)
                f.write(struct.pack("<Q", discarded))
            if cpu is not None:
                f.seek(offset + 80)
                f.write(struct.pack("<I", cpu))
    with open(index, "r+b") as f:
        for i in range(len(offsets)):
            if instance is not None:
                f.seek(16 + i * entry + 56)
                f.write(struct.pack(">Q", instance))
            if discarded is not None:
                f.seek(16 + i * entry + 40)
                f.write(struct.pack(">Q", discarded))


def make(name, ids, discarded=(None, None)):
    out = os.path.join(HERE, name)
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(BASE, os.path.join(out, "ust"))
    folder = os.path.join(out, "ust", SUB)
    shutil.copy(os.path.join(folder, "fencescope_1"), os.path.join(folder, "fencescope_2"))
    shutil.copy(os.path.join(folder, "index", "fencescope_1.idx"),
                os.path.join(folder, "index", "fencescope_2.idx"))
    set_stream(folder, "fencescope_0", instance=ids[0])
    set_stream(folder, "fencescope_1", instance=ids[1], discarded=discarded[0])
    set_stream(folder, "fencescope_2", instance=ids[2], discarded=discarded[1], cpu=2)


make("ties-copy-last", (0, 1, 2))
make("ties-copy-first", (8, 9, 0))
make("discards", (0, 1, 2), discarded=(3, 5))
