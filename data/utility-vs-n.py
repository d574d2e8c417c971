#!/usr/bin/env python3
"""Utility against n: one table row per records run, and an SVG plot (no third-party modules).

usage: data/utility-vs-n.py CORPUS=RUN_DIR [CORPUS=RUN_DIR ...] [--svg FILE] [--md FILE]

RUN_DIR is a run's output directory (the one holding summary.json and operator.json, or its
parent `--out` directory with exactly one run in it). Each row: the corpus label, n (teachers),
the threshold share T/n, exit, elapsed seconds, ε spent, private tokens, non-empty records,
distinct records, the ten most common records' share, fidelity, the public model's top-1 share
and the LATE_VOTE rejections. fidelity and the text meters come from operator.json, which is
scored against the private records: the table is an operator's evaluation (docs/performance.md
"Utility against n" prints one made from public commit histories).
"""
import argparse
import json
import os
import sys


def run_dir(path):
    if os.path.exists(os.path.join(path, "summary.json")):
        return path
    subs = [d for d in sorted(os.listdir(path)) if os.path.exists(os.path.join(path, d, "summary.json"))]
    if len(subs) != 1:
        sys.exit("utility-vs-n.py: %s holds %d runs (summary.json); name one" % (path, len(subs)))
    return os.path.join(path, subs[0])


def row(label, path):
    d = run_dir(path)
    s = json.load(open(os.path.join(d, "summary.json")))
    o = json.load(open(os.path.join(d, "operator.json")))
    t = o.get("textOrigin") or {}
    plan = o.get("mechanismPlan") or {}
    return {
        "corpus": label,
        "n": s["teachers"],
        "thresholdShare": plan.get("thresholdShare"),
        "elapsedSeconds": o.get("elapsedSeconds"),
        "epsilon": s.get("epsilon"),
        "privateTokens": s.get("privateTokens"),
        "nonEmpty": t.get("nonEmpty"),
        "distinct": t.get("distinct"),
        "top10Share": t.get("top10Share"),
        "fidelity": o.get("fidelity"),
        "publicTop1Share": t.get("publicTop1Share"),
        "lateVotes": (o.get("rejectedReasons") or {}).get("LATE_VOTE", 0),
    }


def fmt(v, pct=False, digits=2):
    if v is None:
        return "–"
    if pct:
        return "%.0f %%" % (100 * v)
    if isinstance(v, float):
        return ("%." + str(digits) + "f") % v
    return "{:,}".format(v)


def markdown(rows):
    head = ("| corpus | n | T/n | elapsed | ε | private tokens | non-empty | distinct | top-10 share "
            "| fidelity | public top-1 | late votes |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    body = ""
    for r in rows:
        body += "| %s | %s | %s | %s s | %s | %s | %s | %s | %s | %s | %s | %s |\n" % (
            r["corpus"], fmt(r["n"]), "%.1f %%" % (100 * r["thresholdShare"]) if r["thresholdShare"] else "–",
            fmt(r["elapsedSeconds"], digits=0), fmt(r["epsilon"]), fmt(r["privateTokens"]), fmt(r["nonEmpty"]),
            fmt(r["distinct"]), fmt(r["top10Share"], pct=True), fmt(r["fidelity"]),
            fmt(r["publicTop1Share"], pct=True), fmt(r["lateVotes"]))
    return head + body


PANELS = [("privateTokens", "private tokens"), ("distinct", "distinct records"),
          ("top10Share", "top-10 share"), ("fidelity", "fidelity"), ("publicTop1Share", "public top-1 share")]
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]


def svg(rows):
    """Five small panels (one meter each) against n, one line per corpus; n on a log axis."""
    import math
    corpora = []
    for r in rows:
        if r["corpus"] not in corpora:
            corpora.append(r["corpus"])
    w, h, pad = 220, 170, 46
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
           'font-size="10">' % (w * len(PANELS), h + 50), '<rect width="100%" height="100%" fill="white"/>']
    ns = [r["n"] for r in rows]
    lo, hi = math.log10(min(ns)) - 0.05, math.log10(max(ns)) + 0.05
    for p, (key, title) in enumerate(PANELS):
        x0 = p * w
        vals = [r[key] for r in rows if r[key] is not None]
        if not vals:
            continue
        vmin, vmax = min(0.0, min(vals)), max(vals) * 1.1 or 1.0
        X = lambda n: x0 + pad + (math.log10(n) - lo) / (hi - lo) * (w - pad - 10)
        Y = lambda v: 10 + (1 - (v - vmin) / (vmax - vmin)) * (h - 30)
        out.append('<text x="%d" y="%d" text-anchor="middle">%s</text>' % (x0 + w / 2, h + 15, title))
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (x0 + pad, Y(vmin), x0 + w - 10, Y(vmin)))
        out.append('<line x1="%d" y1="10" x2="%d" y2="%d" stroke="black"/>' % (x0 + pad, x0 + pad, Y(vmin)))
        for v in (vmin, (vmin + vmax) / 2, vmax):
            out.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (x0 + pad - 3, Y(v) + 3, "{:,.0f}".format(v) if abs(vmax) >= 100 else "%.2f" % v))
        if vmin < 0 < vmax:
            out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#aaa" stroke-dasharray="3"/>'
                       % (x0 + pad, Y(0), x0 + w - 10, Y(0)))
        last, row = -1e9, 0
        for n in sorted(set(ns)):
            row = row + 1 if X(n) - last < 34 else 0  # close labels go one line lower
            last = X(n)
            out.append('<text x="%d" y="%d" text-anchor="middle">%s</text>'
                       % (X(n), Y(vmin) + 12 + 10 * row, "{:,}".format(n)))
        for c, corpus in enumerate(corpora):
            pts = sorted((r["n"], r[key]) for r in rows if r["corpus"] == corpus and r[key] is not None)
            colour = COLOURS[c % len(COLOURS)]
            out.append('<polyline fill="none" stroke="%s" points="%s"/>'
                       % (colour, " ".join("%.1f,%.1f" % (X(n), Y(v)) for n, v in pts)))
            for n, v in pts:
                out.append('<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>' % (X(n), Y(v), colour))
    for c, corpus in enumerate(corpora):
        out.append('<text x="%d" y="%d" fill="%s">%s</text>' % (10 + 200 * c, h + 40, COLOURS[c % len(COLOURS)], corpus))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", help="CORPUS=RUN_DIR")
    ap.add_argument("--svg", help="write the plot here")
    ap.add_argument("--md", help="write the table here (default stdout)")
    a = ap.parse_args()
    rows = []
    for spec in a.runs:
        label, sep, path = spec.partition("=")
        if not sep or not os.path.isdir(path):
            sys.exit("utility-vs-n.py: expected CORPUS=RUN_DIR with an existing directory, got %r" % spec)
        rows.append(row(label, path))
    rows.sort(key=lambda r: (r["corpus"], r["n"]))
    table = markdown(rows)
    if a.md:
        open(a.md, "w").write(table)
    else:
        sys.stdout.write(table)
    if a.svg:
        open(a.svg, "w").write(svg(rows))


if __name__ == "__main__":
    main()
