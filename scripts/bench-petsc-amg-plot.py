#!/usr/bin/env python3
"""Plot of scripts/bench-petsc's amg CSV: one panel per problem, grouped bars
of the median setup and solve seconds per entry (log scale; dots: the single
runs, the number over a group: median iterations, "stops": no run gave a
result row).

    python3 scripts/bench-petsc-amg-plot.py OUTDIR/amg.csv OUTDIR/amg.png

Without matplotlib it says so and exits 0 (the benchmark's table and CSV
stand without the plot).
"""
import csv
import statistics
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: E402
except ImportError:
    plt = None


def number(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    if plt is None:
        print("bench-petsc-amg-plot: python3 cannot import matplotlib: no plot "
              f"(pip install matplotlib, then: python3 {sys.argv[0]} {sys.argv[1]} {sys.argv[2]})",
              file=sys.stderr)
        return
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit("bench-petsc-amg-plot: no rows in " + sys.argv[1])
    problems, entries, devices = [], [], []
    for r in rows:
        for lst, v in ((problems, r["problem"]), (entries, r["entry"]),
                       (devices, r.get("device") or "unknown device")):
            if v not in lst:
                lst.append(v)
    runs = {}  # (problem, entry) -> rows with a result
    for r in rows:
        if number(r["setup_s"]) is not None:
            runs.setdefault((r["problem"], r["entry"]), []).append(r)
    reps = max(sum(1 for r in rows if r["problem"] == p and r["entry"] == e)
               for p in problems for e in entries)
    fig, axes = plt.subplots(1, len(problems), figsize=(3.4 * len(problems) + 0.6, 4.4),
                             squeeze=False)
    width = 0.38
    fields = (("setup_s", "setup", "tab:blue"), ("solve_s", "solve", "tab:orange"))
    for j, p in enumerate(problems):
        ax = axes[0][j]
        ymin = None
        for k, (field, label, color) in enumerate(fields):
            xs, ys = [], []
            for x, e in enumerate(entries):
                xpos = x + (k - 0.5) * width
                vals = [number(r[field]) for r in runs.get((p, e), [])]
                if not vals:
                    continue
                xs.append(xpos)
                ys.append(statistics.median(vals))
                ax.plot([xpos] * len(vals), vals, ".", color="black", markersize=3, zorder=3)
                ymin = min(vals + ([ymin] if ymin is not None else []))
            ax.bar(xs, ys, width, color=color, label=f"{label} (median)")
        for x, e in enumerate(entries):
            got = runs.get((p, e), [])
            n = sum(1 for r in rows if r["problem"] == p and r["entry"] == e)
            if not got:
                failed = [r["result"] for r in rows if r["problem"] == p and r["entry"] == e]
                ax.annotate(failed[-1] if failed else "not run", (x, 0.5), xycoords=("data", "axes fraction"),
                            ha="center", va="center", color="red", rotation=90, fontsize=9)
                continue
            its = statistics.median([number(r["iterations"]) for r in got])
            note = f"{its:g} it"
            if len(got) < n:
                note += f"\n{n - len(got)}/{n} stop"
            if any(r["result"] != "converged" for r in got):
                note += "\nnot conv."
            top = max(number(r["setup_s"]) for r in got)
            ax.annotate(note, (x, top), xytext=(0, 4), textcoords="offset points",
                        ha="center", va="bottom", fontsize=7,
                        color="black" if note.endswith("it") else "red")
        ax.set_yscale("log")
        if ymin is not None:
            lo, hi = ax.get_ylim()
            ax.set_ylim(lo, hi * 3)  # room for the iteration labels
        ax.set_xticks(range(len(entries)))
        ax.set_xticklabels(entries, rotation=30, ha="right", fontsize=8)
        ax.set_xlim(-0.6, len(entries) - 0.4)
        ax.grid(axis="y", which="both", alpha=0.3)
        ax.set_title(p, fontsize=10)
        if j == 0:
            ax.set_ylabel("seconds")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, loc="lower center", ncol=2)
    fig.suptitle(f"scripts/bench-petsc amg on {', '.join(devices)}: CG to 1e-8, second of "
                 f"-repeat 2, {reps} process{'es' if reps > 1 else ''} an entry (dots: runs)",
                 fontsize=9)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(sys.argv[2], dpi=110)
    print("bench-petsc-amg-plot: wrote " + sys.argv[2], file=sys.stderr)


if __name__ == "__main__":
    main()
