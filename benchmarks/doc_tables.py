#!/usr/bin/env python3
"""The tables and plots of docs/*.md, from cascade_bench results (JSON).

  doc_tables.py RESULTS_DIR SECTION    print one Markdown table
  doc_tables.py RESULTS_DIR plots DIR  write the PNG plots into DIR (matplotlib)

Sections: harris-4194304, harris-268435456, block-size, block-tree,
reduce-strategies-int32, reduce-strategies-float, scan-strategies-<type>,
scan-block-size, seed003, host-return, iterators, read-limit, copy-limit,
ratio-<algorithm>, affine64.
Results are the files in benchmarks/results/ named after the GPU: <gpu>.json
(the full run), -automatic.json (the automatic reduce and scans against CUB at
the final commit: host-return, iterators, read-limit, copy-limit, ratio-*),
-affine64.json (a 16-byte struct under a non-commutative operator), -seed003.json,
-tuning*.json and -block-sizes.json.
"""
import json
import math
import pathlib
import re
import sys

GPU = "h100-sxm-80gb"
SEEDS = ["interleaved_divergent", "interleaved_strided", "sequential_addressing", "first_add_during_load",
         "unroll_last_warp", "complete_unroll", "multiple_elements_per_thread", "warp_shuffle", "radix4_pyramid"]
SCANS = ["hillis_steele", "blelloch", "blelloch_conflict_free", "reduce_then_scan", "decoupled_lookback"]


def medians(path):
    """(algorithm, implementation, type, n) -> median benchmark record."""
    out = {}
    for b in json.loads(pathlib.Path(path).read_text())["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        p = b["run_name"].split("/")
        if len(p) >= 4:
            out[(p[0], p[1], p[2], int(p[3]) if p[3].isdigit() else p[3])] = b
    return out


def us(rec):
    return rec["real_time"]  # microseconds (the harness reports in us)


def gbps(nbytes, t_us):
    return nbytes / (t_us * 1e3)


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join([":---"] + ["---:"] * (len(header) - 1)) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def harris(m, n):
    """Kernels 1-7, warp_shuffle, radix4 at 128 threads and at their best block size; step and cumulative speedups."""
    read = us(m[("reduce", "read_limit", "int32", n)])
    nbytes = 4 * n
    rows, prev128, prevbest, first128, firstbest = [], None, None, None, None
    for k, s in enumerate(SEEDS):
        sizes = {int(i[1].rsplit(".b", 1)[1]): us(r) for i, r in m.items()
                 if i[0] == "reduce" and i[1].startswith(f"cascade.{s}.b") and i[2] == "int32" and i[3] == n}
        t128 = sizes[128]
        best = min(sizes, key=sizes.get)
        tb = sizes[best]
        first128 = first128 or t128
        firstbest = firstbest or tb
        step128 = "" if prev128 is None else f"{prev128 / t128:.2f}x"
        stepb = "" if prevbest is None else f"{prevbest / tb:.2f}x"
        label = f"{k + 1}. {s}" if k < 7 else s
        rows.append([label, f"{t128:.1f}", f"{gbps(nbytes, t128):.0f}", f"{100 * read / t128:.1f}%", step128,
                     f"{first128 / t128:.2f}x", best, f"{tb:.1f}", f"{gbps(nbytes, tb):.0f}", f"{100 * read / tb:.1f}%",
                     stepb, f"{firstbest / tb:.2f}x"])
        if k < 7:  # the step speedup follows Harris's kernel sequence
            prev128, prevbest = t128, tb
    for impl, label in [("cascade", "cascade automatic"), ("cub", "CUB DeviceReduce"), ("thrust", "thrust::reduce")]:
        t = us(m[("reduce", impl, "int32", n)])
        rows.append([label, f"{t:.1f}", f"{gbps(nbytes, t):.0f}", f"{100 * read / t:.1f}%", "", f"{first128 / t:.2f}x",
                     "", "", "", "", "", f"{firstbest / t:.2f}x"])
    header = ["kernel", "128 thr: us", "GB/s", "% read limit", "step", "cumulative", "best block", "us", "GB/s",
              "% read limit", "step", "cumulative"]
    return f"int32, n = {n} ({nbytes >> 20} MiB); read limit {read:.1f} us ({gbps(nbytes, read):.0f} GB/s)\n\n" + table(header, rows)


def block_size(m, algorithm, names, type_="int32"):
    rows = []
    for s in names:
        for n in sorted({i[3] for i in m if i[0] == algorithm and i[1].startswith(f"cascade.{s}.b") and i[2] == type_}):
            sizes = {int(i[1].rsplit(".b", 1)[1]): us(r) for i, r in m.items()
                     if i[0] == algorithm and i[1].startswith(f"cascade.{s}.b") and i[2] == type_ and i[3] == n}
            best = min(sizes, key=sizes.get)
            rows.append([s, n] + [f"**{sizes[b]:.1f}**" if b == best else f"{sizes[b]:.1f}" for b in sorted(sizes)])
    threads = sorted({int(i[1].rsplit(".b", 1)[1]) for i in m if i[0] == algorithm and ".b" in i[1]})
    return table(["strategy", "n"] + [f"{t} thr (us)" for t in threads], rows)


def block_tree(m):
    rows = []
    for threads in sorted({i[3] for i in m if i[0] == "block_tree"}):
        rec = {r: m[("block_tree", r, "int32", threads)] for r in ["radix2", "radix4", "radix8"]
               if ("block_tree", r, "int32", threads) in m}
        ns = {r: v["ns/round"] for r, v in rec.items()}
        rows.append([threads] + [f"{ns[r]:.1f}" for r in ns] + [f"{ns['radix2'] / ns['radix4']:.2f}x"])
    return table(["threads", "radix-2 ns/round", "radix-4 ns/round", "radix-8 ns/round", "radix-4 speedup"], rows)


def sweep(m, algorithm, impls, type_, nbytes_per):
    ns = sorted({i[3] for i in m if i[0] == algorithm and i[2] == type_ and i[1] == "cub"})
    rows = []
    for n in ns:
        row = [n]
        for impl in impls:
            rec = m.get((algorithm, impl, type_, n))
            row.append(f"{gbps(nbytes_per * n, us(rec)):.0f}" if rec else "")
        rows.append(row)
    return table(["n"] + [f"{i} GB/s" for i in impls], rows)


def seed003(m):
    rows = []
    for n in sorted({i[3] for i in m if i[1] == "gpu.with_transfers"}):
        get = lambda impl: us(m[("inclusive_scan", impl, "int32", n)]) if ("inclusive_scan", impl, "int32", n) in m else None
        seq, par, xfer, dev = get("cpu.seq"), get("cpu.par"), get("gpu.with_transfers"), get("cascade")
        rows.append([f"{4 * n >> 20} MiB", f"{seq / 1e3:.2f}" if seq else "", f"{par / 1e3:.2f}" if par else "",
                     f"{xfer / 1e3:.2f}", f"{dev / 1e3:.3f}" if dev else "",
                     f"{seq / xfer:.2f}x" if seq else "", f"{seq / dev:.0f}x" if seq and dev else ""])
    return table(["int32 input", "cpu.seq ms", "cpu.par ms", "GPU incl. transfers ms", "GPU on device ms",
                  "transfers vs 1 core", "on device vs 1 core"], rows)


def host_return(m):
    rows = []
    for t in ["int32", "int64", "float", "double"]:
        for n in sorted({i[3] for i in m if i[0] == "reduce" and i[1] == "cascade.host" and i[2] == t}):
            if n > 1 << 20:
                continue
            a, b = us(m[("reduce", "cascade.host", t, n)]), us(m[("reduce", "thrust", t, n)])
            rows.append([t, n, f"{a:.1f}", f"{b:.1f}", f"{a / b:.2f}"])
    return table(["type", "n", "cascade::reduce us", "thrust::reduce us", "ratio"], rows)


def iterators(m):
    rows = []
    for t in ["int32", "int64", "float", "double"]:
        for n in [1 << 16, 1 << 20, 1 << 24, 1 << 28]:
            r = [t, n]
            for src in ["transform", "counting"]:
                a, b = m.get(("reduce", f"cascade.{src}", t, n)), m.get(("reduce", f"cub.{src}", t, n))
                r += [f"{us(a):.1f}", f"{us(b):.1f}", f"{us(a) / us(b):.2f}"] if a and b else ["", "", ""]
            rows.append(r)
    return table(["type", "n", "transform: cascade us", "cub us", "ratio", "counting: cascade us", "cub us", "ratio"], rows)


def read_limit(m):
    rows = []
    for t, size in [("int32", 4), ("int64", 8), ("float", 4), ("double", 8)]:
        for n in sorted({i[3] for i in m if i[0] == "reduce" and i[1] == "cascade" and i[2] == t and i[3] >= 1 << 24}):
            c, cub, lim = (us(m[("reduce", i, t, n)]) for i in ["cascade", "cub", "read_limit"])
            rows.append([t, n, f"{c:.1f}", f"{gbps(size * n, c):.0f}", f"{100 * lim / c:.1f}%", f"{100 * lim / cub:.1f}%",
                         f"{c / cub:.3f}"])
    return table(["type", "n", "cascade us", "GB/s", "% read limit", "CUB % read limit", "cascade/CUB"], rows)


def copy_limit(m):
    rows = []
    for alg in ["inclusive_scan", "exclusive_scan"]:
        for t, size in [("int32", 4), ("float", 4), ("int64", 8), ("double", 8)]:
            for n in sorted({i[3] for i in m if i[0] == alg and i[1] == "cascade" and i[2] == t and i[3] >= 1 << 24}):
                c, cub, lim = (us(m[(alg, i, t, n)]) for i in ["cascade", "cub", "copy_limit"])
                rows.append([alg, t, n, f"{c:.1f}", f"{gbps(2 * size * n, c):.0f}", f"{100 * lim / c:.1f}%",
                             f"{100 * lim / cub:.1f}%", f"{c / cub:.3f}"])
    return table(["scan", "type", "n", "cascade us", "GB/s", "% copy", "CUB % copy", "cascade/CUB"], rows)


def ratio(m, alg):
    types = ["int32", "int64", "float", "double"]
    ns = sorted({i[3] for i in m if i[0] == alg and i[1] == "cascade"})
    rows = []
    for n in ns:
        rows.append([n] + [f"{us(m[(alg, 'cascade', t, n)]) / us(m[(alg, 'cub', t, n)]):.2f}"
                           if (alg, "cascade", t, n) in m and (alg, "cub", t, n) in m else "" for t in types])
    return table(["n"] + types, rows)


def affine64(m):
    ns = sorted(i[3] for i in m if i[0] == "inclusive_scan" and i[1] == "cascade" and i[2] == "affine64")
    rows = []
    for n in ns:
        c, cub = us(m[("inclusive_scan", "cascade", "affine64", n)]), us(m[("inclusive_scan", "cub", "affine64", n)])
        rows.append([n, f"{c:.1f}", f"{gbps(32 * n, c):.0f}", f"{cub:.1f}", f"{c / cub:.2f}"])
    return table(["n", "cascade us", "GB/s", "cub us", "cascade/CUB"], rows)


def plots(results, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    if section == "family":  # doc_tables.py benchmarks/results family <results file name>
        return print(family(medians(results / sys.argv[3])))
    m = medians(results / f"{GPU}.json")
    sizes = {"int32": 4, "float": 4, "int64": 8, "double": 8}

    def finish(fig, ax, ylabel, title, path):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("n")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(out / path, dpi=110)

    def ratio_plot(algorithms, path, title, m=m):
        fig, ax = plt.subplots(figsize=(7, 4))
        for alg in algorithms:
            for t in sizes:
                ns = sorted(i[3] for i in m if i[0] == alg and i[1] == "cascade" and i[2] == t)
                ax.plot(ns, [us(m[(alg, "cascade", t, n)]) / us(m[(alg, "cub", t, n)]) for n in ns], marker="o",
                        label=f"{alg} {t}" if len(algorithms) > 1 else t)
        ax.axhline(1.0, color="gray", lw=0.8)
        finish(fig, ax, "time ratio cascade / CUB", title, path)

    def gbps_plot(alg, impls, type_, per, path, title):
        fig, ax = plt.subplots(figsize=(7, 4))
        for impl in impls:
            ns = sorted(i[3] for i in m if i[0] == alg and i[1] == impl and i[2] == type_)
            ax.plot(ns, [gbps(per * n, us(m[(alg, impl, type_, n)])) for n in ns], marker=".", label=impl)
        finish(fig, ax, "GB/s", title, path)

    automatic = medians(results / f"{GPU}-automatic.json")
    ratio_plot(["reduce"], "performance-reduce-ratio.png", "reduce: cascade / CUB (H100)", automatic)
    ratio_plot(["inclusive_scan", "exclusive_scan"], "performance-scan-ratio.png", "scans: cascade / CUB (H100)",
               automatic)
    for t in ["int32", "float"]:
        gbps_plot("reduce", [f"cascade.{s}" for s in SEEDS] + ["cascade", "cub", "read_limit"], t, 4,
                  f"reduce-strategies-{t}.png", f"reduce strategies, {t} (H100)")
    gbps_plot("inclusive_scan", [f"cascade.{s}" for s in SCANS[:-1]] + ["cascade", "cub", "thrust", "copy_limit"], "int32",
              8, "scan-strategies-int32.png", "inclusive scan strategies, int32 (H100)")


FAMILY = ["transform_reduce", "inner_product", "min_element", "max_element", "minmax_element",
          "transform_inclusive_scan"]


def family(m):
    """The std family, like for like: cascade (returns on the host) / cub.host
    (CUB's call, its result copied home, the stream waited for); cascade.into
    (transform_reduce_into, stream-ordered) / cub (stream-ordered); cascade /
    the flat algorithm over the same iterator; cascade / thrust (n <= 2^20);
    the % of the read limit (both arrays for inner_product) of cascade.into,
    else of cascade."""
    rows = []
    for alg in FAMILY:
        for t in ["int32", "int64", "float", "double"]:
            for n in sorted({i[3] for i in m if i[0] == alg and i[1] == "cascade" and i[2] == t}):
                def ratio(a, b):
                    x, y = m.get((alg, a, t, n)), m.get((alg, b, t, n))
                    return f"{us(x) / us(y):.2f}" if x and y else ""
                c = m[(alg, "cascade", t, n)]
                into = m.get((alg, "cascade.into", t, n))
                lim = m.get((alg, "read_limit", t, n))
                best = into or c
                rows.append([alg, t, n, f"{us(c):.1f}", ratio("cascade", "cub.host"),
                             f"{us(into):.1f}" if into else "", ratio("cascade.into", "cub"),
                             ratio("cascade", "cascade.iterator"),
                             ratio("cascade", "thrust") if n <= 1 << 20 else "",
                             f"{100 * us(lim) / us(best):.1f}%" if lim and alg != "transform_inclusive_scan" else ""])
    return table(["algorithm", "type", "n", "cascade us", "/cub.host", "into us", "into/cub", "/flat over iterator",
                  "/thrust", "% read limit"], rows)


def main():
    results, section = pathlib.Path(sys.argv[1]), sys.argv[2]
    if section == "plots":
        return plots(results, pathlib.Path(sys.argv[3]))
    if section == "family":  # doc_tables.py benchmarks/results family <results file name>
        return print(family(medians(results / sys.argv[3])))
    m = medians(results / f"{GPU}.json")
    if section.startswith("harris-"):
        print(harris(m, int(section.split("-")[1])))
    elif section == "block-size":
        print(block_size(m, "reduce", SEEDS))
    elif section == "block-tree":
        print(block_tree(m))
    elif section.startswith("reduce-strategies-"):
        t = section.rsplit("-", 1)[1]
        print(sweep(m, "reduce", [f"cascade.{s}" for s in SEEDS] + ["cascade", "cub", "thrust", "read_limit"], t, 4))
    elif section.startswith("scan-strategies-"):
        t = section.rsplit("-", 1)[1]
        per = 8 if t in ("int32", "float") else 16
        print(sweep(m, "inclusive_scan", [f"cascade.{s}" for s in SCANS] + ["cascade", "cub", "thrust", "copy_limit"], t, per))
    elif section == "scan-block-size":
        print(block_size(medians(results / f"{GPU}-block-sizes.json"), "inclusive_scan", SCANS[:-1]))
    elif section == "seed003":
        print(seed003(medians(results / f"{GPU}-seed003.json")))
    elif section == "host-return":
        print(host_return(medians(results / f"{GPU}-automatic.json")))
    elif section == "iterators":
        print(iterators(medians(results / f"{GPU}-automatic.json")))
    elif section == "read-limit":
        print(read_limit(medians(results / f"{GPU}-automatic.json")))
    elif section == "copy-limit":
        print(copy_limit(medians(results / f"{GPU}-automatic.json")))
    elif section == "affine64":
        print(affine64(medians(results / f"{GPU}-affine64.json")))
    elif section.startswith("ratio-"):
        print(ratio(medians(results / f"{GPU}-automatic.json"), section[len("ratio-"):]))
    else:
        sys.exit(f"unknown section {section}")


if __name__ == "__main__":
    main()
