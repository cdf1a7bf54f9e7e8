#!/usr/bin/env python3
"""Tables from a cascade_bench results file (Google Benchmark JSON).

For each algorithm and value type: rows are sizes n, and each implementation
has columns for its median time (us), its throughput (GB/s), its share of the
measured limit (reduce: read_limit; scans: copy_limit; same n and type) and
its time ratio to CUB (below 1: faster than CUB).

  report.py results.json                     all tables, plain text
  report.py results.json --markdown          the same as Markdown
  report.py results.json --ratio-table       cascade/cub time ratios only: rows n, columns types
  report.py results.json --plot gbps.png     GB/s against n (needs matplotlib)
  report.py results.json --segmented-summary --markdown
                                             keyed and segmented: cascade/CUB time and % of
                                             copy, rows shapes, columns algorithms
  report.py results.json --segmented-plot p.png --types float
                                             keyed and segmented: time against shape at the
                                             largest n, one panel per algorithm (needs matplotlib)

Keyed and segmented algorithms (names <algorithm>/<impl>/<type>/<n>/<shape>)
get one table per algorithm, type and n: rows are shapes, columns each
implementation's time, cascade's time ratio to CUB and its share of the copy
limit (copy_limit time / cascade time, the bytes it must move).

Python 3 standard library only; matplotlib is needed for --plot alone.
"""

import argparse
import json
import math
import os
import statistics
import sys
from collections import defaultdict

FAMILY = ["transform_reduce", "inner_product", "min_element", "max_element", "minmax_element",
          "transform_inclusive_scan"]
ALGORITHMS = ["reduce", "inclusive_scan", "exclusive_scan"] + FAMILY
TYPES = ["int8", "int16", "int32", "int64", "uint32", "uint64", "float", "double"]
LIMIT_OF = {"reduce": "read_limit", "inclusive_scan": "copy_limit", "exclusive_scan": "copy_limit",
            "transform_inclusive_scan": "copy_limit"}
LIMIT_OF.update({a: "read_limit" for a in FAMILY if a not in LIMIT_OF})
BASELINE = "cub"
METRICS = ["time", "gbps", "limit", "ratio"]
SEGMENTED = ["segmented_reduce", "segmented_reduce_fixed", "reduce_by_key", "inclusive_scan_by_key",
             "exclusive_scan_by_key", "segmented_inclusive_scan"]
SHAPES = ["len1", "len4", "len16", "len64", "len256", "len1000", "len4096", "len5000", "len50000", "len65536",
          "len4194304", "powerlaw", "halfempty"]
TO_MICROSECONDS = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


class Result:
    """The median of one case: time in microseconds and bytes moved per run."""

    def __init__(self, time_us, bytes_moved, gbps):
        self.time_us = time_us
        self.bytes = bytes_moved
        self._gbps = gbps

    @property
    def gbps(self):
        if self.bytes and self.time_us > 0:
            return self.bytes / (self.time_us * 1e-6) * 1e-9
        return self._gbps


def parse_name(name):
    """(algorithm, implementation, type, n) from '<algorithm>/<impl>/<type>/<n>[/decorations]';
    the keyed and segmented algorithms' keys end with their shape."""
    parts = name.split("/")
    if len(parts) < 4 or not parts[3].isdigit():
        return None
    if parts[0] in SEGMENTED:
        if len(parts) < 5:
            return None
        return parts[0], parts[1], parts[2], int(parts[3]), parts[4]
    return parts[0], parts[1], parts[2], int(parts[3])


def load(path):
    """Results keyed by (algorithm, impl, type, n), the context, and the errors.

    The median aggregate of a case is used where the file has one (the median
    of them where it has several: rounds of a sweep in one file); a case run
    without repetitions has only its iterations, and their median is used.
    """
    with open(path) as f:
        data = json.load(f)
    rounds, iterations, errors = defaultdict(list), defaultdict(list), []
    for entry in data.get("benchmarks", []):
        key = parse_name(entry.get("run_name", entry["name"]))
        if key is None:
            continue
        if entry.get("error_occurred"):
            errors.append((entry["name"], entry.get("error_message", "")))
            continue
        result = Result(entry["real_time"] * TO_MICROSECONDS[entry.get("time_unit", "ns")],
                        entry.get("bytes"), entry.get("GB/s"))
        if entry.get("run_type") == "aggregate":
            if entry.get("aggregate_name") == "median":
                rounds[key].append(result)
        else:
            iterations[key].append(result)
    medians = {key: Result(statistics.median(r.time_us for r in runs), runs[0].bytes, runs[0]._gbps)
               for key, runs in rounds.items()}
    for key, runs in iterations.items():
        if key not in medians:
            time_us = statistics.median(r.time_us for r in runs)
            medians[key] = Result(time_us, runs[0].bytes, None)
    return medians, data.get("context", {}), errors


def ordered(values, preferred):
    """The preferred values first, in that order, then the others sorted."""
    return [v for v in preferred if v in values] + sorted(v for v in values if v not in preferred)


def impl_order(impls):
    """cascade and its variants, the other libraries, the CPU, the limits last."""

    def rank(impl):
        if impl == "cascade":
            return (0, "")
        if impl.startswith("cascade."):
            return (1, "" if impl == "cascade.host" else impl)
        if impl.startswith("cpu."):
            return (3, "" if impl == "cpu.seq" else impl)
        if impl.endswith("_limit"):
            return (4, impl)
        return (2, "" if impl == BASELINE else impl)

    return sorted(impls, key=rank)


# ---------------------------------------------------------------------------
# Formatting
# ---------------------------------------------------------------------------
def fmt_time(us):
    return f"{us:.2f}" if us < 100 else f"{us:.1f}" if us < 10000 else f"{us:.0f}"


def fmt_ratio(r):
    return f"{r:.2f}"


def render(title, header, rows, markdown):
    """A table with the first column left-aligned and the rest right-aligned."""
    lines = []
    if markdown:
        lines.append(f"**{title}**\n")
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "|".join([":---"] + ["---:"] * (len(header) - 1)) + "|")
        lines += ["| " + " | ".join(row) + " |" for row in rows]
    else:
        widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]

        def line(cells):
            return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

        lines.append(title)
        lines.append(line(header))
        lines.append("  ".join("-" * w for w in widths))
        lines += [line(row) for row in rows]
    return "\n".join(lines) + "\n"


def context_line(context):
    gpu = context.get("gpu")
    if not gpu:
        return None
    parts = [gpu]
    if "gpu_sm_count" in context:
        parts.append(f"{context['gpu_sm_count']} SMs")
    if "gpu_l2_bytes" in context:
        parts.append(f"L2 {int(context['gpu_l2_bytes']) / 2**20:.0f} MiB")
    if "gpu_peak_bandwidth_GBps" in context:
        parts.append(f"peak {float(context['gpu_peak_bandwidth_GBps']):.0f} GB/s")
    for key, label in (("cuda_runtime", "CUDA"), ("cccl", "CCCL"), ("build_type", "build")):
        if key in context:
            parts.append(f"{label} {context[key]}")
    if "date" in context:
        parts.append(context["date"])
    return ", ".join(parts)


# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------
def detail_table(results, algorithm, type_name, impls, metrics, markdown):
    """Rows n; per implementation: time, GB/s, % of the limit, ratio to CUB."""
    limit = LIMIT_OF.get(algorithm)
    sizes = sorted({n for (a, _, t, n) in results if a == algorithm and t == type_name})
    header = ["n"]
    columns = []  # (impl, metric)
    for impl in impls:
        for metric in metrics:
            # The limit against itself and CUB against itself say nothing, nor
            # does the CPU against a GPU memory limit.
            if metric == "limit" and (impl == limit or impl.startswith("cpu.")):
                continue
            if metric == "ratio" and impl == BASELINE:
                continue
            columns.append((impl, metric))
            label = {"time": "us", "gbps": "GB/s", "limit": "% limit", "ratio": "/cub"}[metric]
            header.append(f"{impl} {label}")
    rows = []
    for n in sizes:
        row = [str(n)]
        for impl, metric in columns:
            r = results.get((algorithm, impl, type_name, n))
            reference = results.get((algorithm, limit if metric == "limit" else BASELINE, type_name, n))
            if r is None or (metric in ("limit", "ratio") and reference is None):
                row.append("-")
            elif metric == "time":
                row.append(fmt_time(r.time_us))
            elif metric == "gbps":
                row.append(f"{r.gbps:.1f}" if r.gbps is not None else "-")
            elif metric == "limit":
                row.append(f"{100.0 * reference.time_us / r.time_us:.1f}%")
            else:
                row.append(fmt_ratio(r.time_us / reference.time_us))
        rows.append(row)
    return render(f"{algorithm} / {type_name}", header, rows, markdown)


def ratio_table(results, algorithm, impl, types, markdown):
    """Rows n, columns types: time of impl / time of CUB, and their geometric mean."""
    ratios = {}
    for (a, i, t, n), r in results.items():
        base = results.get((a, BASELINE, t, n))
        if a == algorithm and i == impl and t in types and base is not None:
            ratios[(t, n)] = r.time_us / base.time_us
    if not ratios:
        return None
    shown = [t for t in types if any(key[0] == t for key in ratios)]
    sizes = sorted({n for (_, n) in ratios})
    rows = [[str(n)] + [fmt_ratio(ratios[(t, n)]) if (t, n) in ratios else "-" for t in shown] for n in sizes]
    geomean = ["geomean"]
    for t in shown:
        values = [v for (tt, _), v in ratios.items() if tt == t]
        geomean.append(fmt_ratio(math.exp(sum(map(math.log, values)) / len(values))))
    rows.append(geomean)
    return render(f"{algorithm}: {impl} / {BASELINE} time (below 1: faster than {BASELINE})", ["n"] + shown, rows,
                  markdown)


def segmented_table(results, algorithm, type_name, n, markdown):
    """Rows shapes; each implementation's time, cascade / CUB and cascade's % of the copy limit."""
    shapes = ordered({k[4] for k in results if k[:4] == (algorithm, k[1], type_name, n)}, SHAPES)
    impls = impl_order({k[1] for k in results if (k[0], k[2], k[3]) == (algorithm, type_name, n)})
    if not shapes:
        return None
    header = ["shape"] + [f"{i} us" for i in impls] + ["cascade/cub", "cascade % copy"]
    rows = []
    for shape in shapes:
        get = lambda impl: results.get((algorithm, impl, type_name, n, shape))
        row = [shape] + [fmt_time(get(i).time_us) if get(i) else "-" for i in impls]
        mine, cub, copy = get("cascade"), get(BASELINE), get("copy_limit")
        row.append(fmt_ratio(mine.time_us / cub.time_us) if mine and cub else "-")
        row.append(f"{100.0 * copy.time_us / mine.time_us:.1f}%" if mine and copy else "-")
        rows.append(row)
    return render(f"{algorithm} / {type_name} / n = {n}", header, rows, markdown)


def segmented_summary(shaped, type_name, n, markdown):
    """Rows shapes, columns the keyed and segmented algorithms: cascade / CUB
    time and, in brackets, cascade's share of the copy limit (docs/segmented.md)."""
    algorithms = ordered({k[0] for k in shaped if k[2:4] == (type_name, n)}, SEGMENTED)
    if not algorithms:
        return None
    # (algorithm, implementation): cascade's, and its stream-ordered forms (cascade.into) beside them.
    columns = [(a, i) for a in algorithms for i in ["cascade", "cascade.into"]
               if any(k[:3] == (a, i, type_name) and k[3] == n for k in shaped)]
    rows = []
    for shape in ordered({k[4] for k in shaped if k[2:4] == (type_name, n)}, SHAPES):
        row = [shape]
        for algorithm, impl in columns:
            get = lambda i: shaped.get((algorithm, i, type_name, n, shape))
            mine, cub, copy = get(impl), get(BASELINE), get("copy_limit")
            cell = f"{mine.time_us / cub.time_us:.2f}" if mine and cub else ""
            if cell and copy:
                cell += f" ({100.0 * copy.time_us / mine.time_us:.0f}%)"
            row.append(cell)
        rows.append(row)
    header = ["shape"] + [a if i == "cascade" else f"{a} ({i})" for a, i in columns]
    return render(f"cascade / {BASELINE} time (% of the copy limit), {type_name}, n = {n}", header, rows, markdown)


def import_pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only, no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("report.py: --plot needs matplotlib (pip install matplotlib)")
    return plt


def plot(plt, results, algorithms, types, impls, path):
    fig, axes = plt.subplots(len(algorithms), len(types), figsize=(4 * len(types), 3.2 * len(algorithms)),
                             squeeze=False, sharex=True)
    for row, algorithm in enumerate(algorithms):
        for col, type_name in enumerate(types):
            ax = axes[row][col]
            for impl in impls:
                points = sorted((n, r.gbps) for (a, i, t, n), r in results.items()
                                if (a, i, t) == (algorithm, impl, type_name) and r.gbps is not None)
                if points:
                    ax.plot([p[0] for p in points], [p[1] for p in points], marker=".", label=impl,
                            linestyle="--" if impl.endswith("_limit") else "-")
            ax.set_xscale("log", base=2)
            ax.set_title(f"{algorithm} / {type_name}", fontsize=9)
            ax.grid(True, alpha=0.3)
            if col == 0:
                ax.set_ylabel("GB/s")
            if row == len(algorithms) - 1:
                ax.set_xlabel("n")
            ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")


def segmented_plot(plt, shaped, type_name, path):
    """One panel per keyed or segmented algorithm: time against shape at the largest n."""
    algorithms = ordered({k[0] for k in shaped if k[2] == type_name}, SEGMENTED)
    if not algorithms:
        sys.exit(f"report.py: no keyed or segmented results for {type_name}")
    fig, axes = plt.subplots(2, (len(algorithms) + 1) // 2, figsize=(5 * ((len(algorithms) + 1) // 2), 7),
                             squeeze=False)
    for ax, algorithm in zip([a for row in axes for a in row], algorithms):
        n = max(k[3] for k in shaped if (k[0], k[2]) == (algorithm, type_name))
        shapes = ordered({k[4] for k in shaped if (k[0], k[2], k[3]) == (algorithm, type_name, n)}, SHAPES)
        for impl in impl_order({k[1] for k in shaped if (k[0], k[2], k[3]) == (algorithm, type_name, n)}):
            points = [(x, shaped[(algorithm, impl, type_name, n, s)].time_us) for x, s in enumerate(shapes)
                      if (algorithm, impl, type_name, n, s) in shaped]
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=impl,
                    linestyle="--" if impl.endswith("_limit") else "-")
        ax.set_xticks(range(len(shapes)))
        ax.set_xticklabels(shapes, rotation=45, fontsize=7)
        ax.set_yscale("log")
        ax.set_ylabel("us")
        ax.set_title(f"{algorithm} / {type_name} / n = {n}", fontsize=9)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    for ax in [a for row in axes for a in row][len(algorithms):]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", help="Google Benchmark JSON written by cascade_bench --benchmark_out=...")
    parser.add_argument("--markdown", action="store_true", help="Markdown tables")
    parser.add_argument("--ratio-table", action="store_true", help="only the time ratio to CUB, rows n, columns types")
    parser.add_argument("--ratio-impl", default="cascade", help="implementation of the ratio table (default cascade)")
    parser.add_argument("--algorithms", help="comma-separated subset of the algorithms")
    parser.add_argument("--types", help="comma-separated subset of the value types")
    parser.add_argument("--impls", help="comma-separated subset of the implementations (columns)")
    parser.add_argument("--metrics", default=",".join(METRICS),
                        help="comma-separated subset of time,gbps,limit,ratio (default: all)")
    parser.add_argument("--plot", metavar="PNG", help="also plot GB/s against n into this file (needs matplotlib)")
    parser.add_argument("--segmented-plot", metavar="PNG",
                        help="plot the keyed and segmented times against shape (first of --types, default float)")
    parser.add_argument("--segmented-summary", action="store_true",
                        help="only the keyed and segmented summary: cascade/CUB time and %% of copy, rows shapes")
    parser.add_argument("--missing-ok", action="store_true", help="exit quietly if the results file does not exist")
    args = parser.parse_args()

    plt = import_pyplot() if args.plot or args.segmented_plot else None  # fail before printing anything
    if args.missing_ok and not os.path.exists(args.json):
        print(f"report.py: {args.json} does not exist: no results to report")
        return
    results, context, errors = load(args.json)
    shaped = {k: r for k, r in results.items() if len(k) == 5}
    results = {k: r for k, r in results.items() if len(k) == 4}
    if not results and not shaped and not errors:
        sys.exit(f"report.py: no cascade_bench results in {args.json}")

    def subset(option, present, preferred):
        chosen = ordered(present, preferred)
        if option:
            wanted = option.split(",")
            chosen = [v for v in wanted if v in present]
        return chosen

    algorithms = subset(args.algorithms, {k[0] for k in results}, ALGORITHMS)
    types = subset(args.types, {k[2] for k in results}, TYPES)
    impls = impl_order({k[1] for k in results})
    if args.impls:
        impls = [i for i in args.impls.split(",") if i in impls]
    metrics = [m for m in args.metrics.split(",") if m in METRICS]
    if not metrics:
        sys.exit(f"report.py: --metrics takes {','.join(METRICS)}")

    line = context_line(context)
    if line:
        print(f"_{line}_\n" if args.markdown else f"{line}\n")

    for algorithm in algorithms:
        if args.ratio_table:
            table = ratio_table(results, algorithm, args.ratio_impl, types, args.markdown)
            if table:
                print(table)
            continue
        for type_name in types:
            present = [i for i in impls if any(k[:3] == (algorithm, i, type_name) for k in results)]
            if present:
                print(detail_table(results, algorithm, type_name, present, metrics, args.markdown))

    if args.segmented_summary:
        for type_name in ordered({k[2] for k in shaped}, TYPES):
            if args.types and type_name not in args.types.split(","):
                continue
            for n in sorted({k[3] for k in shaped if k[2] == type_name}, reverse=True):
                print(segmented_summary(shaped, type_name, n, args.markdown))
        return

    for algorithm in ordered({k[0] for k in shaped}, SEGMENTED):
        if args.algorithms and algorithm not in args.algorithms.split(","):
            continue
        for type_name in ordered({k[2] for k in shaped if k[0] == algorithm}, TYPES):
            if args.types and type_name not in args.types.split(","):
                continue
            for n in sorted({k[3] for k in shaped if k[0] == algorithm and k[2] == type_name}):
                table = segmented_table(shaped, algorithm, type_name, n, args.markdown)
                if table:
                    print(table)

    for name, message in errors:
        print(f"failed: {name}: {message}", file=sys.stderr)
    if args.plot:
        plot(plt, results, algorithms, types, impls, args.plot)
    if args.segmented_plot:
        segmented_plot(plt, shaped, (args.types or "float").split(",")[0], args.segmented_plot)


if __name__ == "__main__":
    main()
