#!/usr/bin/env python3
"""The table of README.md from the committed JSON files: for each set of critical positions,
each move's loss against the best of the three moves the referee scored (capped at 1000),
the count within 100 and the count losing 300 or more."""
import json
import statistics
from pathlib import Path

here = Path(__file__).resolve().parent
for name in ("kaname-errors", "yo-errors"):
    rows = json.loads((here / f"{name}.json").read_text())
    losses = {"played": [], "kaname": [], "yo": []}
    for r in rows:
        ref = r["referee"]
        best = max(ref.values())
        for k in losses:
            losses[k].append(best - ref[k])
    print(f"{name}: {len(rows)} positions")
    for k, l in losses.items():
        capped = [min(v, 1000) for v in l]
        print(f"  {k:7s} mean loss {statistics.mean(capped):5.0f}  within 100: {sum(v <= 100 for v in l):3d}"
              f"  loss >= 300: {sum(v >= 300 for v in l):3d}")
