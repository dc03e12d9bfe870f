#!/usr/bin/env python3
"""README's RMCAT tables from a `fairway suite rmcat` folder's summary.csv.

    fairway suite rmcat --reps 5 --ecn --out /tmp/rmcat
    python3 bench/rmcat_table.py /tmp/rmcat/summary.csv

Prints markdown tables, each case's first variant (its first [sweep] values), the mean over the
seeds: the case as written, and when the suite ran with --ecn its "ECN" variant and its "CoDel"
twin, and a last table of ECN against CoDel dropping.
"""

import csv
import sys
from collections import OrderedDict

CONTROLLERS = ["nada", "scream", "gcc"]
NAMES = {"nada": "NADA", "scream": "SCReAM", "gcc": "GCC"}


def mean(xs):
    xs = [float(x) for x in xs if x != ""]
    return sum(xs) / len(xs) if xs else None


def main(path):
    rows = list(csv.DictReader(open(path)))
    # (case, ecn?) -> controller -> the rows of the case's first variant of that kind.
    first = OrderedDict()
    for r in rows:
        kind = next((k for k in ("ECN", "CoDel") if r["variant"].startswith(k)), "")
        key = (r["case"], kind)
        chosen = first.setdefault(key, {}).setdefault(r["controller"], r["variant"])
        if r["variant"] == chosen:
            first[key].setdefault(r["controller"] + "/rows", []).append(r)

    def cell(rs):
        rate = mean(r["media_rate_bps"] for r in rs) / 1e3
        p95 = mean(r["delay_p95_s"] for r in rs)
        util = mean(r["utilisation"] for r in rs)
        jain = mean(r["jain"] for r in rs)
        parts = [f"{rate:.0f} kb/s", f"p95 {p95 * 1e3:.0f} ms" if p95 is not None else "p95 -"]
        if util is not None:
            parts.append(f"util {util:.2f}")
        if jain is not None:
            parts.append(f"Jain {jain:.2f}")
        parts.append(f"loss {mean(r['loss'] for r in rs) * 100:.2f}%")
        return ", ".join(parts)

    for kind in ("", "ECN", "CoDel"):
        keys = [k for k in first if k[1] == kind]
        if not keys:
            continue
        print(f"{kind or 'As written'}:\n")
        print("| case | " + " | ".join(NAMES[c] for c in CONTROLLERS) + " |")
        print("|---|" + "---|" * len(CONTROLLERS))
        for key in keys:
            cells = []
            for c in CONTROLLERS:
                rs = first[key].get(c + "/rows")
                cells.append(cell(rs) if rs else "-")
            print(f"| {key[0]} | " + " | ".join(cells) + " |")
        print()


def ecn_against_codel(path):
    """One table: each case's first variant with ECN against the same CoDel dropping, per
    controller: media rate and loss, the mean over the seeds."""
    rows = list(csv.DictReader(open(path)))
    cases = []
    cells = {}
    for r in rows:
        kind = next((k for k in ("ECN", "CoDel") if r["variant"].startswith(k)), None)
        if kind is None:
            continue
        if r["case"] not in cases:
            cases.append(r["case"])
        first = cells.setdefault((r["case"], r["controller"], kind, "variant"), r["variant"])
        if r["variant"] == first:
            cells.setdefault((r["case"], r["controller"], kind), []).append(r)
    if not cases:
        return
    print("ECN against CoDel dropping (media rate, loss):\n")
    print("| case | " + " | ".join(NAMES[c] for c in CONTROLLERS) + " |")
    print("|---|" + "---|" * len(CONTROLLERS))
    for case in cases:
        out = []
        for c in CONTROLLERS:
            parts = []
            for kind in ("ECN", "CoDel"):
                rs = cells.get((case, c, kind), [])
                if rs:
                    rate = mean(r["media_rate_bps"] for r in rs) / 1e3
                    loss = mean(r["loss"] for r in rs) * 100
                    parts.append(f"{rate:.0f} kb/s, {loss:.2f}%")
            out.append(" against ".join(parts) or "-")
        print(f"| {case} | " + " | ".join(out) + " |")
    print()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
    ecn_against_codel(sys.argv[1])
