#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`fencescope export --perfetto X.pftrace` read back by an independent protobuf reader.

Usage: check-perfetto-proto.py FENCESCOPE PROTOC PROTO_DIR TRACE...

For each TRACE it exports the SQLite database and the native Perfetto trace in one run, decodes
the trace with Debian's `protoc --decode=perfetto.protos.Trace` against perfetto_subset.proto
(Perfetto's field numbers), and checks it against the database, which holds the same model:

- the file is a sequence of TracePackets on one sequence whose first packet clears the
  incremental state; every interned iid is defined before it is used;
- slices nest on every track once sorted by time as trace_processor sorts them (stable): an
  END always closes an open slice, nothing is left open;
- every operation with a time is one slice whose op_id, begin and end (at least 6 ns) are the
  row's, on a track named after its queue (or its process, for CPU operations), and every packet
  one slice on its engine's track;
- every frame with a begin and an end is a slice on its display's track;
- every dependency edge is a flow (or counted in dependency_edges_without_arrow) from an instant
  inside the signal's box to one inside the wait's box, the end strictly after the start, and
  the JSON export's arrows (issue 10 §3) also end after they start;
- tracks are bounded: the UI shows one track per name and parent, no more than the queues,
  engines and other sources the trace has, however many lanes they use.
- counter tracks (docs/export.md "Counter tracks"): each queue's depth is the operations
  submitted minus completed, recomputed here from the database's operations; each engine's busy
  track alternates 100 and 0 (per cent, exact); each fence's CurrentValue track holds only values its operations or
  initial value give.
TAP output; exit status 1 on a failure.
"""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

FLOW_MIN_DUR_NS = 6


def unescape(text):
    """A protoc text-format string literal's body (C escapes, octal bytes) as str."""
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out += c.encode()
            i += 1
            continue
        n = text[i + 1]
        if n in "01234567":
            j = i + 1
            while j < len(text) and j < i + 4 and text[j] in "01234567":
                j += 1
            out.append(int(text[i + 1:j], 8))
            i = j
            continue
        out += {"n": b"\n", "t": b"\t", "r": b"\r", '"': b'"', "'": b"'", "\\": b"\\"}.get(
            n, n.encode())
        i += 2
    return out.decode("utf-8")


def parse_text(lines):
    """protoc's text format as nested dicts: each key maps to a list of values."""
    stack = [{}]
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if line == "}":
            stack.pop()
            continue
        if line.endswith("{"):
            key = line[:-1].strip()
            child = {}
            stack[-1].setdefault(key, []).append(child)
            stack.append(child)
            continue
        key, _, value = line.partition(": ")
        if value.startswith('"'):
            value = unescape(value[1:-1])
        elif value.lstrip("-").isdigit():
            value = int(value)
        stack[-1].setdefault(key, []).append(value)
    assert len(stack) == 1, "unbalanced text format"
    return stack[0]


def one(message, key, default=None):
    values = message.get(key)
    return values[0] if values else default


class Failures:
    def __init__(self):
        self.count = 0
        self.messages = []

    def check(self, condition, message):
        if not condition:
            self.count += 1
            if len(self.messages) < 20:
                self.messages.append(message)


def depth_points(con, queue):
    """A queue's depth change points, as perfetto-counters.c defines them (the viewer's)."""
    changes = []
    for state, queued, observed, end, ib, ie in con.execute(
            "SELECT state, queued_ns, observed_ns, end_ns, inferred_begin_ns, inferred_end_ns"
            " FROM operations WHERE source != 'cpu' AND hwqueue_handle = ?", (queue,)):
        begin, stop = queued, end
        if state == "inferred":
            begin, stop = ib, ie
        elif state == "unqueued":
            begin = observed if observed is not None else end
        if begin is None:
            begin = stop
        if stop is None:
            stop = begin
        submitted = queued if queued is not None else begin
        completed = end if end is not None else stop
        if submitted is None:
            continue
        if state == "never_completed":
            changes.append((submitted, 1))
        elif completed is not None and completed > submitted:
            changes += [(submitted, 1), (completed, -1)]
    changes.sort()
    points, depth, i = [], 0, 0
    while i < len(changes):
        ts = changes[i][0]
        while i < len(changes) and changes[i][0] == ts:
            depth += changes[i][1]
            i += 1
        if (points and points[-1][1] == depth) or (not points and depth == 0):
            continue
        points.append((ts, depth))
    return points


def check_counters(con, tracks, counters, base, fail):
    """Returns the number of counter tracks."""
    counter_tracks = {u: one(d, "name") for u, d in tracks.items() if "counter" in d}
    fail.check(set(counters) <= set(counter_tracks), "counter values on a track that is no counter")
    queues = [q for (q,) in con.execute("SELECT DISTINCT hwqueue_handle FROM operations"
                                        " WHERE source != 'cpu'")]
    by_name = {n: u for u, n in counter_tracks.items()}
    for q in queues:
        expected = depth_points(con, q)
        uuid = by_name.get("hwqueue 0x%x depth" % (q & (2**64 - 1)))
        fail.check(uuid is not None or not expected, "queue 0x%x has no depth track" % q)
        got = [(ts + base, v) for ts, _, v in sorted(counters.get(uuid, []))]
        fail.check(got == expected, "queue 0x%x: depth %s..., recomputed %s..."
                   % (q, got[:4], expected[:4]))
    for uuid, name in counter_tracks.items():
        values = [v for _, _, v in sorted(counters.get(uuid, []))]
        if name.endswith(" busy"):
            fail.check(values == [100, 0] * (len(values) // 2), "%s: not 100, 0, 100, 0…" % name)
        elif name.endswith(" CurrentValue"):
            handle = int(name.split()[1], 16)
            if handle >= 2**63:
                handle -= 2**64  # SQLite holds handles as signed 64-bit integers
            known = {v for (v,) in con.execute(
                "SELECT fence_value FROM operations WHERE kind = 'signal' AND"
                " fence_global_handle = ? UNION SELECT observed_value FROM operations"
                " WHERE fence_global_handle = ? UNION SELECT initial_value FROM fences"
                " WHERE fence_global_handle = ?", (handle, handle, handle))}
            progress = con.execute("SELECT COUNT(*) FROM fences WHERE fence_global_handle = ?"
                                   " AND is_progress_fence", (handle,)).fetchone()[0]
            fail.check(progress or set(values) <= known,
                       "%s: values %s not given by its operations" % (name, set(values) - known))
    return len(counter_tracks)


def check_trace(fencescope, protoc, proto_dir, trace, tmp):
    name = os.path.basename(trace.rstrip("/"))
    pftrace = os.path.join(tmp, name + ".pftrace")
    db = os.path.join(tmp, name + ".db")
    # Counters exact (--counter-resolution 0): their values are compared with the database's.
    run = subprocess.run([fencescope, "export", "-q", trace, "--sqlite", db, "--perfetto", pftrace,
                          "--counter-resolution", "0"], capture_output=True, text=True)
    if run.returncode not in (0, 1):
        return ["export exited %d: %s" % (run.returncode, run.stderr)]
    with open(pftrace, "rb") as f:
        decoded = subprocess.run([protoc, "--proto_path=" + proto_dir,
                                  "--decode=perfetto.protos.Trace", "perfetto_subset.proto"],
                                 stdin=f, capture_output=True, text=True)
    if decoded.returncode != 0:
        return ["protoc could not decode the export: " + decoded.stderr]
    packets = parse_text(decoded.stdout.splitlines()).get("packet", [])
    fail = Failures()
    fail.check(len(packets) > 0, "no packets")

    names, categories, annotation_names = {}, {}, {}
    tracks = {}  # uuid -> descriptor
    events = []  # (ts, file order, track uuid, event dict with resolved names)
    counters = {}  # counter track uuid -> [(ts, file order, value)]
    for index, p in enumerate(packets):
        fail.check(one(p, "trusted_packet_sequence_id") == 1, "packet %d: not on sequence 1" % index)
        if index == 0:
            fail.check(one(p, "sequence_flags") == 1,
                       "the first packet does not clear the incremental state")
        for interned in p.get("interned_data", []):
            for table, key in ((names, "event_names"), (categories, "event_categories"),
                               (annotation_names, "debug_annotation_names")):
                for entry in interned.get(key, []):
                    iid = one(entry, "iid")
                    fail.check(iid not in table, "iid %s of %s defined twice" % (iid, key))
                    table[iid] = one(entry, "name")
        for d in p.get("track_descriptor", []):
            uuid = one(d, "uuid")
            fail.check(uuid not in tracks, "track %s described twice" % uuid)
            tracks[uuid] = d
        for e in p.get("track_event", []):
            uuid = one(e, "track_uuid")
            fail.check(uuid in tracks, "packet %d: track %s used before it is described"
                       % (index, uuid))
            if one(e, "type") == "TYPE_COUNTER":
                counters.setdefault(uuid, []).append((one(p, "timestamp"), index,
                                                      one(e, "counter_value")))
                continue
            ev = {"type": one(e, "type"), "track": uuid, "ts": one(p, "timestamp"),
                  "flow": one(e, "flow_ids"), "end_flow": one(e, "terminating_flow_ids")}
            if "name_iid" in e:
                fail.check(one(e, "name_iid") in names, "name iid used before its definition")
                ev["name"] = names.get(one(e, "name_iid"))
            if "category_iids" in e:
                fail.check(one(e, "category_iids") in categories, "category iid undefined")
                ev["cat"] = categories.get(one(e, "category_iids"))
            args = {}
            for a in e.get("debug_annotations", []):
                key = annotation_names.get(one(a, "name_iid"))
                fail.check(key is not None, "annotation name iid undefined")
                for value_key in ("uint_value", "int_value", "string_value", "bool_value"):
                    if value_key in a:
                        args[key] = one(a, value_key)
            ev["args"] = args
            events.append((ev["ts"], index, uuid, ev))

    # trace_processor sorts by timestamp (stable): replay each track's stack.
    events.sort(key=lambda x: (x[0], x[1]))
    stacks = {}
    slices = []  # dicts: track, begin, end, name, cat, args, parent
    instants = []
    for ts, _, uuid, ev in events:
        stack = stacks.setdefault(uuid, [])
        if ev["type"] == "TYPE_SLICE_BEGIN":
            s = {"track": uuid, "begin": ts, "end": None, "name": ev.get("name"),
                 "cat": ev.get("cat"), "args": ev["args"], "parent": stack[-1] if stack else None}
            stack.append(s)
            slices.append(s)
        elif ev["type"] == "TYPE_SLICE_END":
            fail.check(stack, "track %s: an END at %d closes nothing" % (uuid, ts))
            if stack:
                stack.pop()["end"] = ts
        else:
            ev["parent"] = stack[-1] if stack else None
            instants.append(ev)
    for uuid, stack in stacks.items():
        fail.check(not stack, "track %s: %d slices never end" % (uuid, len(stack)))

    info = [i for i in instants if i.get("name") == "fencescope export"]
    fail.check(len(info) == 1, "no fencescope export instant")
    base = info[0]["args"].get("time_base_ns", 0) if info else 0
    without_arrow = info[0]["args"].get("dependency_edges_without_arrow", 0) if info else 0

    con = sqlite3.connect(db)
    op_slices = {}
    for s in slices:
        if "op_id" in s["args"]:
            fail.check(s["args"]["op_id"] not in op_slices, "op %s drawn twice" % s["args"]["op_id"])
            op_slices[s["args"]["op_id"]] = s

    def track_name(uuid):
        return tracks[uuid].get("name", [""])[0]

    ops = con.execute(
        "SELECT id, kind, state, source, hwqueue_handle, process_id, fence_value, queued_ns,"
        " observed_ns, end_ns, inferred_begin_ns, inferred_end_ns FROM operations").fetchall()
    for (op_id, kind, state, source, queue, pid, value, queued, observed, end, ib, ie) in ops:
        begin, stop = queued, end
        if state == "inferred":
            begin, stop = ib, ie
        elif state == "never_completed":
            stop = None
        elif state == "unqueued":
            begin = observed if observed is not None else end
        s = op_slices.get(op_id)
        if begin is None and stop is None:
            continue
        fail.check(s is not None, "op %d (%s %s) has no slice" % (op_id, state, kind))
        if s is None:
            continue
        fail.check(s["args"].get("value") == value, "op %d: value" % op_id)
        fail.check(s["name"].split(" f0x")[0].split(" local")[0].endswith(kind),
                   "op %d: name %r" % (op_id, s["name"]))
        if source == "cpu":
            fail.check(track_name(s["track"]).startswith("pid %d " % pid),
                       "op %d on track %r" % (op_id, track_name(s["track"])))
        else:
            fail.check(track_name(s["track"]).startswith("hwqueue 0x%x" % (queue & (2**64 - 1))),
                       "op %d on track %r" % (op_id, track_name(s["track"])))
        if state == "never_completed" or begin is None or stop is None:
            continue
        lo, hi = min(begin, stop), max(begin, stop)
        fail.check(s["begin"] == lo - base, "op %d begins at %d, not %d" % (op_id, s["begin"] + base, lo))
        fail.check(s["end"] == lo - base + max(hi - lo, FLOW_MIN_DUR_NS),
                   "op %d ends at %d, not %d" % (op_id, s["end"] + base, hi))

    packet_rows = con.execute("SELECT packet_id, start_ns, end_ns, engine_id FROM packets"
                              " WHERE start_ns IS NOT NULL AND end_ns IS NOT NULL").fetchall()
    packet_slices = {}
    for s in slices:
        if "packet_id" in s["args"]:
            packet_slices.setdefault((s["args"]["packet_id"], s["begin"] + base), []).append(s)
    for packet_id, start, end, engine in packet_rows:
        found = packet_slices.get((packet_id, start), [])
        fail.check(any(s["end"] + base == max(start, end) and
                       track_name(s["track"]).startswith("engine %d " % engine) for s in found),
                   "packet %d [%d, %d] has no slice on engine %d" % (packet_id, start, end, engine))

    # Frames (fsa/frames.h): each frame with both times is a slice on its display's track.
    frame_rows = con.execute("SELECT source_id, frame_index, begin_ns, end_ns FROM frames"
                             " WHERE is_pending = 0 AND begin_ns IS NOT NULL"
                             " AND end_ns IS NOT NULL").fetchall()
    frame_slices = {(track_name(s["track"]), s["args"].get("frame_index")): s
                    for s in slices if s["cat"] == "frame"}
    fail.check(len(frame_slices) == len(frame_rows),
               "%d frame slices for %d frames" % (len(frame_slices), len(frame_rows)))
    for source, index, begin, end in frame_rows:
        s = frame_slices.get(("display %d frames" % source, index))
        fail.check(s is not None and s["begin"] + base == begin and s["end"] + base == end,
                   "frame %d of display %d not drawn [%d, %d]" % (index, source, begin, end))

    # Flows: the instant carrying flow_ids starts it, terminating_flow_ids ends it.
    def enclosing_op(ev):
        s = ev.get("parent")
        while s is not None and "op_id" not in s["args"]:
            s = s["parent"]
        return s

    starts = {i["flow"]: i for i in instants if i.get("flow") is not None}
    ends = {i["end_flow"]: i for i in instants if i.get("end_flow") is not None}
    fail.check(set(starts) == set(ends), "flows without both ends")
    arrows = set()
    for flow_id, start in starts.items():
        end = ends.get(flow_id)
        if end is None:
            continue
        fail.check(end["ts"] > start["ts"], "flow %d ends at %d, before its start %d"
                   % (flow_id, end["ts"], start["ts"]))
        s_op, w_op = enclosing_op(start), enclosing_op(end)
        fail.check(s_op is not None and w_op is not None, "flow %d not inside two boxes" % flow_id)
        if s_op is None or w_op is None:
            continue
        fail.check(s_op["begin"] <= start["ts"] <= s_op["end"], "flow %d start outside its box" % flow_id)
        fail.check(w_op["begin"] <= end["ts"] <= w_op["end"], "flow %d end outside its box" % flow_id)
        arrows.add((s_op["args"]["op_id"], w_op["args"]["op_id"]))
    edges = set(con.execute("SELECT signal_op_id, wait_op_id FROM edges").fetchall())
    fail.check(arrows <= edges, "%d arrows are not edges" % len(arrows - edges))
    fail.check(len(arrows) + without_arrow == len(edges),
               "%d arrows + %d without arrow != %d edges" % (len(arrows), without_arrow, len(edges)))

    # Tracks as the UI shows them: lanes with the same name and parent are one.
    ui_tracks = {(one(d, "parent_uuid"), one(d, "name")) for d in tracks.values()
                 if "process" not in d and "counter" not in d}
    sources = con.execute(
        "SELECT (SELECT COUNT(*) FROM queues) * 3"
        " + (SELECT COUNT(DISTINCT adapter_id || '.' || engine_id) FROM packets) * 2"
        " + (SELECT COUNT(*) FROM processes)"
        " + (SELECT COUNT(DISTINCT kind) FROM anomalies)"
        " + (SELECT COUNT(*) FROM losses) + 8").fetchone()[0]
    fail.check(len(ui_tracks) <= sources, "%d tracks for %d sources" % (len(ui_tracks), sources))
    n_counters = check_counters(con, tracks, counters, base, fail)
    con.close()

    # The JSON writer's arrows keep the same rule (issue 10 §3: they once ended before they
    # started): every "f" strictly after its "s", as many arrows as in the protobuf trace.
    json_path = os.path.join(tmp, name + ".json")
    run = subprocess.run([fencescope, "export", "-q", trace, "--perfetto", json_path],
                         capture_output=True, text=True)
    fail.check(run.returncode in (0, 1), "JSON export exited %d" % run.returncode)
    if run.returncode in (0, 1):
        with open(json_path) as f:
            doc = json.load(f)
        flow_start = {e["id"]: float(e["ts"]) for e in doc["traceEvents"] if e.get("ph") == "s"}
        flow_end = {e["id"]: float(e["ts"]) for e in doc["traceEvents"] if e.get("ph") == "f"}
        fail.check(set(flow_start) == set(flow_end), "JSON flows without both ends")
        late = [i for i in flow_start if i in flow_end and flow_end[i] <= flow_start[i]]
        fail.check(not late, "%d JSON arrows end before they start" % len(late))
        fail.check(len(flow_start) == len(arrows),
                   "%d JSON arrows, %d in the protobuf trace" % (len(flow_start), len(arrows)))
    print("# %s: %d packets, %d slices, %d arrows, %d frames, %d UI tracks over %d lanes, %d ops,"
          " %d counter tracks" % (name, len(packets), len(slices), len(arrows), len(frame_slices),
                                  len(ui_tracks), len(tracks) - n_counters
                                  - sum(1 for d in tracks.values() if "process" in d), len(ops),
                                  n_counters))
    return ["%s (%d failures)" % (m, fail.count) for m in fail.messages]


def main():
    fencescope, protoc, proto_dir = sys.argv[1:4]
    traces = sys.argv[4:]
    print("1..%d" % len(traces))
    status = 0
    with tempfile.TemporaryDirectory(prefix="fst-pftrace-") as tmp:
        for n, trace in enumerate(traces, 1):
            problems = check_trace(fencescope, protoc, proto_dir, trace, tmp)
            label = "perfetto_proto_matches_the_model %s" % os.path.basename(trace)
            if problems:
                status = 1
                print("not ok %d - %s" % (n, label))
                for p in problems:
                    print("# " + p)
            else:
                print("ok %d - %s" % (n, label))
    return status


if __name__ == "__main__":
    sys.exit(main())
