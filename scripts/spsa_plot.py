#!/usr/bin/env python3
"""Draws an SPSA run's parameter paths as an SVG, and prints its final values.

Reads the ledger shogiarena keeps in a run directory (`<run>/spsa/ledger.sqlite3`) and draws
every parameter's value after each update, as its distance from the start in units of its final
perturbation (`c_end`), so that parameters of every scale share one axis: a path that leaves
the grey band of +/- 1 c_end and stays out has moved by more than SPSA's own probing. Plain SVG
written by hand (no plotting library to install); it opens in any browser.

    python3 scripts/spsa_plot.py RUN_DIR --svg spsa.svg [--options]

`--options` prints the last update's values rounded, as `Tune_x=v,...` for `scripts/sprt.py
--cand-options` (with `--cand-args=--tune`).
"""

import argparse
import json
import sqlite3
import sys

COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39",
           "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363"]


def load(run):
    """(parameters {id: (initial, c_end)}, [(update index, theta)]) of the run's ledger."""
    db = sqlite3.connect(f"file:{run}/spsa/ledger.sqlite3?mode=ro", uri=True)
    params = {pid: (float(init), json.loads(sched)["c_end"])
              for pid, init, sched in db.execute(
                  "select parameter_id, initial_value, schedule_json from parameters")}
    updates = [(idx, json.loads(theta)) for idx, theta in db.execute(
        "select update_idx, theta_final_json from updates "
        "where theta_final_json is not null order by update_idx")]
    return params, updates


def svg(params, updates, title):
    """The parameter paths as an SVG document."""
    w, h, left, right, top, bottom = 900, 520, 60, 190, 40, 40
    n = max(updates[-1][0], 1)
    drift = {p: [(theta[p] - init) / c for _, theta in updates] for p, (init, c) in params.items()}
    span = max(2.0, max(abs(v) for path in drift.values() for v in path)) * 1.1
    x = lambda i: left + (w - left - right) * i / n
    y = lambda v: top + (h - top - bottom) * (span - v) / (2 * span)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{w / 2}" y="20" text-anchor="middle" font-size="14">{title}</text>',
           f'<rect x="{left}" y="{y(1)}" width="{w - left - right}" height="{y(-1) - y(1)}" fill="#eee"/>']
    for v in range(-int(span), int(span) + 1):
        out.append(f'<line x1="{left}" x2="{w - right}" y1="{y(v)}" y2="{y(v)}" stroke="#ccc"/>'
                   f'<text x="{left - 6}" y="{y(v) + 4}" text-anchor="end">{v:+d}</text>')
    for i in range(0, n + 1, max(1, n // 8)):
        out.append(f'<text x="{x(i)}" y="{h - bottom + 16}" text-anchor="middle">{i}</text>')
    out.append(f'<text x="{(left + w - right) / 2}" y="{h - 6}" text-anchor="middle">update</text>')
    out.append(f'<text x="14" y="{h / 2}" transform="rotate(-90 14 {h / 2})" '
               f'text-anchor="middle">distance from the start, in c_end</text>')
    ranked = sorted(drift, key=lambda p: -abs(drift[p][-1]))
    for k, p in enumerate(ranked):
        colour = COLOURS[k % len(COLOURS)]
        pts = " ".join(f"{x(i):.1f},{y(v):.1f}" for (i, _), v in zip(updates, drift[p]))
        out.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="1.3"/>')
        out.append(f'<text x="{w - right + 8}" y="{top + 12 + 14 * k}" fill="{colour}">'
                   f'{p} {drift[p][-1]:+.1f}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="the SPSA run directory (shogiarena --run-dir)")
    ap.add_argument("--svg", help="write the parameter paths here")
    ap.add_argument("--title", default="SPSA parameter paths")
    ap.add_argument("--options", action="store_true", help="print the final values as Tune_x=v,...")
    a = ap.parse_args()
    params, updates = load(a.run)
    if not updates:
        sys.exit("no update in the ledger yet")
    idx, theta = updates[-1]
    if a.options:
        print(",".join(f"Tune_{p}={round(theta[p])}" for p in sorted(params)))
    else:
        print(f"update {idx}")
        for p, (init, c) in sorted(params.items()):
            print(f"{p:18s} {init:8.0f} -> {theta[p]:9.2f}  ({(theta[p] - init) / c:+.2f} c_end)")
    if a.svg:
        with open(a.svg, "w") as f:
            f.write(svg(params, updates, a.title))


if __name__ == "__main__":
    main()
