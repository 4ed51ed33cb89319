#!/usr/bin/env python3
"""Writes resources/clusters/cpu-mpi.json from `tapas cluster calibrate` files of this machine.

How the preset is made (docs/step-pricing.md, "How the cpu-mpi preset is made"):
  1. On a quiet machine (load about 2 or less, no other session building), with the current build:
       build/bin/tapas cluster calibrate -np 2 -o quiet.json
     Everything in the preset comes from this file: the wall-clock figures (GEMM table, peak,
     MPI link, the all-reduce inside a step) and the op families (CPU time of each case).
  2. Only when a family the current build calibrates is missing from quiet.json (it was made by
     an older build), a later calibration with the current build supplies that family alone:
       build/bin/tapas cluster calibrate -np 2 -o later.json
       scripts/make_cpu_mpi_preset.py quiet.json --families-from later.json
     The notes in the preset's `calibration` say which family came from which run, and at what
     load: memory-bound families read 0.5-0.7 of their quiet rates at load 7-10 even in CPU time.
A file whose CPU model differs from quiet.json's is refused: the preset describes one machine.
"""
import argparse
import json
import pathlib
import sys


def cpu_of(spec):
    device = spec.get("device", "")
    return device.split(";")[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("quiet", help="calibration made on the quiet machine (the preset's base)")
    ap.add_argument("--families-from", help="a later calibration with the current build: only the families quiet lacks")
    ap.add_argument("-o", "--output", default=str(pathlib.Path(__file__).resolve().parent.parent / "resources/clusters/cpu-mpi.json"))
    a = ap.parse_args()

    base = json.load(open(a.quiet))
    cal = base["calibration"]
    base["name"] = "cpu-mpi"
    when = lambda spec: spec["device"].split("measured by tapas cluster calibrate ")[-1].split(": ")[0]
    notes = {
        "preset_made": "scripts/make_cpu_mpi_preset.py (docs/step-pricing.md, 'How the cpu-mpi preset is made')",
        "measured": "%s by tapas cluster calibrate -np 2 at load average %.2f (the 1 minute before), every figure not named below"
        % (when(base), cal.get("load_average_1min", -1)),
    }
    if a.families_from:
        later = json.load(open(a.families_from))
        if cpu_of(later) != cpu_of(base):
            sys.exit("make_cpu_mpi_preset: %s describes '%s', %s '%s'" % (a.families_from, cpu_of(later), a.quiet, cpu_of(base)))
        added = sorted(set(later["op_families"]) - set(base["op_families"]))
        for f in added:
            base["op_families"][f] = later["op_families"][f]
        cases = later["calibration"]["op_family_cases"]
        # The cases of the added families, and the interpreter chains whose slopes gave the in-step ones.
        chains = {"node_in_step", "weight_in_step"}
        cal["op_family_cases"] += [c for c in cases if c["family"] in set(added) | chains and c not in cal["op_family_cases"]]
        notes["added_families"] = added
        notes["added_families_measured"] = ("%s by tapas cluster calibrate -np 2 with a later build, at load average %.2f: only the "
                                            "families the quiet run's build did not calibrate" % (when(later), later["calibration"].get("load_average_1min", -1)))
    if "node_in_step" not in base["op_families"] and any(c["family"] == "node_in_step" for c in cal["op_family_cases"]):
        notes["node_in_step"] = ("not written: a Relu node in a chain run through the worker's interpreter cost no more than "
                                 "the element-wise family prices it at (the chain cases)")
    cal["preset"] = notes
    pathlib.Path(a.output).write_text(json.dumps(base, indent=2) + "\n")
    print("wrote %s (%d op families)" % (a.output, len(base["op_families"])))


if __name__ == "__main__":
    main()
