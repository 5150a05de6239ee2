#!/usr/bin/env python3
"""Plot of scripts/bench-host's CSV: one column per problem, PCApply ms per
call (top) and iterations (bottom), grouped by preconditioner, one bar per
thread setting.

    python3 scripts/bench-host-plot.py OUTDIR/bench-host.csv OUTDIR/bench-host.png
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def number(s):
    try:
        return float(s)
    except ValueError:
        return None


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit("bench-host-plot: no rows in " + sys.argv[1])
    problems, pcs, threads = [], [], []
    for r in rows:
        for lst, v in ((problems, r["problem"]), (pcs, r["pc"]), (threads, r["threads"])):
            if v not in lst:
                lst.append(v)
    data = {(r["problem"], r["pc"], r["threads"]): r for r in rows}
    fig, axes = plt.subplots(2, len(problems), figsize=(3.6 * len(problems), 6.5), squeeze=False)
    width = 0.8 / len(threads)
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red"]
    for j, p in enumerate(problems):
        for i, (field, label) in enumerate(
            (("pcapply_ms_per_call", "PCApply ms/call"), ("iterations", "iterations"))
        ):
            ax = axes[i][j]
            for k, t in enumerate(threads):
                xs, ys, failed = [], [], []
                for x, pc in enumerate(pcs):
                    r = data.get((p, pc, t))
                    v = number(r[field]) if r else None
                    xpos = x - 0.4 + width * (k + 0.5)
                    if v is not None:
                        xs.append(xpos)
                        ys.append(v)
                    if r is None or r["result"] != "converged":
                        failed.append(xpos)
                ax.bar(xs, ys, width, color=colors[k % len(colors)],
                       label=f"{t} thread{'s' if t != '1' else ''}")
                for xpos in failed:
                    ax.annotate("x", (xpos, 0), ha="center", va="bottom", color="red")
            ax.set_xticks(range(len(pcs)))
            ax.set_xticklabels(pcs, rotation=35, ha="right", fontsize=8)
            ax.set_ylabel(label)
            ax.grid(axis="y", alpha=0.3)
            if i == 0:
                ax.set_title(p, fontsize=10)
    axes[0][0].legend(fontsize=8)
    fig.suptitle("scripts/bench-host: CG to 1e-8, one rank (x: did not converge or failed; "
                 "PETSc sor/gamg are single-threaded)", fontsize=9)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)
    print("bench-host-plot: wrote " + sys.argv[2], file=sys.stderr)


if __name__ == "__main__":
    main()
