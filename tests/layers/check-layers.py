#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The driver model's boundaries, read from the built objects of libfencescope-runtime.

Usage: check-layers.py OBJECT_DIR  (the .p folder meson builds the library's objects in)

Each object belongs to the layer its source lies in (meson names hw/engine.c's object
hw_engine.c.o): common (the leaf), hw (the emulated GPU), kmd (the driver), os (the graphics
kernel), umd (the user-mode driver) or top (runtime.c, the public lifecycle). For every symbol
an object leaves undefined, `nm` tells which object of the library defines it; that one's layer
must be one the first may call (docs/driver-interface.md, "Who may call whom"):

    common -> common              hw  -> common
    kmd    -> hw, common          os  -> common (the driver only through its DDI table)
    umd    -> os thunks (the public fsr_* API, the internal os_kmt_*), common
    top    -> os, kmd_driver_entry, common

and no two files may call each other, however far round (no circle between files). Prints
every breach and exits 1 if there is one.
"""
import os
import subprocess
import sys

LAYERS = ("common", "hw", "kmd", "os", "umd", "top")
ALLOWED = {
    "common": {"common"},
    "hw": {"common", "hw"},
    "kmd": {"common", "kmd", "hw"},
    "os": {"common", "os"},
    "umd": {"common", "umd", "os"},
    "top": {"common", "top", "os", "kmd"},
}


def symbol_allowed(from_layer, to_layer, name):
    """Rules finer than a layer: which symbols of an allowed layer may be named."""
    if from_layer == "umd" and to_layer == "os":
        return name.startswith(("fsr_", "os_kmt_"))  # the D3DKMT-style thunks
    if from_layer == "top" and to_layer == "kmd":
        return name == "kmd_driver_entry"  # DriverEntry: the table, nothing else
    return True


def layer_of(obj):
    base = os.path.basename(obj)
    prefix = base.split("_", 1)[0]
    if prefix in LAYERS and "_" in base:
        return prefix
    if base == "runtime.c.o":
        return "top"
    return None


def nm(obj, *flags):
    out = subprocess.run(["nm", "-P", *flags, obj], check=True, capture_output=True, text=True)
    return [line.split()[0:2] for line in out.stdout.splitlines() if line.strip()]


def find_cycle(graph):
    """One circle of the file graph as a list of files, or None."""
    colour = {}
    stack = []

    def visit(node):
        colour[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if colour.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in colour:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        colour[node] = 2
        return None

    for node in sorted(graph):
        if node not in colour:
            found = visit(node)
            if found:
                return found
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    folder = sys.argv[1]
    objects = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".o"))
    if not objects:
        print(f"check-layers: no objects in {folder}", file=sys.stderr)
        return 2
    definer = {}
    for obj in objects:
        if layer_of(obj) is None:
            print(f"check-layers: {os.path.basename(obj)} belongs to no layer", file=sys.stderr)
            return 1
        for name, kind in nm(obj, "--defined-only"):
            if kind in "TtDdBbRrVvWw" and kind.isupper():
                definer[name] = obj
    breaches = []
    graph = {}
    refs = 0
    for obj in objects:
        src = layer_of(obj)
        for name, _kind in nm(obj, "--undefined-only"):
            target = definer.get(name)
            if target is None or target == obj:
                continue  # libc, lttng-ust, pthread: outside the library
            refs += 1
            dst = layer_of(target)
            graph.setdefault(obj, set()).add(target)
            if dst not in ALLOWED[src] or not symbol_allowed(src, dst, name):
                breaches.append(f"{os.path.basename(obj)} ({src}) calls {name}, "
                                f"defined in {os.path.basename(target)} ({dst})")
    cycle = find_cycle(graph)
    if cycle:
        breaches.append("circle between files: " +
                        " -> ".join(os.path.basename(o) for o in cycle))
    for breach in breaches:
        print("layer breach:", breach)
    print(f"check-layers: {len(objects)} objects, {refs} references inside the library, "
          f"{len(breaches)} breaches")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
