#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise bench-raw.csv (one row per run, from bench/guest-bench.sh).

For each lower filesystem, configuration and workload: the median, min and
max over the repeats, and the ratio of the median to the median of the
"lower" configuration (same workload, same lower filesystem, same boot).
Writes OUTDIR/bench.md (also printed), bench-summary.csv and
bench-summary.json; with --doc, Documentation/benchmarks.md.
"""
import argparse
import csv
import json
import os
import shlex
import statistics
import sys

WORKLOAD_TEXT = {
    "open": "open+close of an existing 4 KiB file",
    "stat": "stat() of an existing file",
    "create": "create+write 1 KiB+close+unlink",
    "seqwrite": "sequential write of a large file (1 MiB writes, fsync)",
    "seqread": "sequential read of a large file (1 MiB reads)",
    "mmapread": "mmap of a large file, one byte read per page",
    "walk": "nftw() of a tree of small files (lstat each)",
    "untar": "tar xf of a synthetic source tarball",
}
CONFIG_TEXT = {
    "lower": "the lower filesystem itself (baseline, ratio 1)",
    "dazukofs": "dazukofs mounted over the lower, no group",
    "overlay": "overlayfs, single layer read-write (upperdir = the lower data, workdir beside it, empty lowerdir)",
    "bindfs": "FUSE pass-through (bindfs)",
    "dz-g1": "dazukofs, one group, allow-all C worker with 1 thread",
    "dz-g2": "dazukofs, one group, allow-all C worker with 2 threads",
    "dz-g4": "dazukofs, one group, allow-all C worker with 4 threads",
    "fanotify": "lower filesystem with fanotify FAN_OPEN_PERM on its mount, allow-all C listener",
}


def read_meta(path):
    meta = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if "=" in line:
                k, v = line.split("=", 1)
                meta[k] = " ".join(shlex.split(v)) if v else ""
    return meta


def fmt(v):
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def summarise(rows):
    groups = {}
    order = []
    for r in rows:
        key = (r["fs"], r["config"], r["workload"])
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(r)
    out = []
    for key in order:
        rs = groups[key]
        vals = [float(r["value"]) for r in rs]
        evs = [int(r["events"]) / float(r["secs"])
               for r in rs if r["events"] not in ("", None) and float(r["secs"]) > 0]
        out.append({
            "fs": key[0], "config": key[1], "workload": key[2],
            "unit": rs[0]["unit"], "runs": len(vals),
            "median": statistics.median(vals), "min": min(vals), "max": max(vals),
            "events_per_s": statistics.median(evs) if evs and any(int(r["events"]) for r in rs) else None,
        })
    base = {(s["fs"], s["workload"]): s["median"] for s in out if s["config"] == "lower"}
    for s in out:
        b = base.get((s["fs"], s["workload"]))
        s["ratio"] = s["median"] / b if b else None
    return out


def markdown(summary, meta):
    fss = list(dict.fromkeys(s["fs"] for s in summary))
    cfgs = list(dict.fromkeys(s["config"] for s in summary))
    wls = list(dict.fromkeys(s["workload"] for s in summary))
    by = {(s["fs"], s["config"], s["workload"]): s for s in summary}
    lines = []
    lines.append(f"Kernel {meta.get('kernel', '?')}, {meta.get('mode', '?')} run, "
                 f"{meta.get('repeats', '?')} repeats; ratio = median / median of `lower` "
                 "(same workload, same lower filesystem, same boot); higher is faster.")
    lines.append("")
    for fs in fss:
        lines.append(f"### Ratios to the lower filesystem: {fs}")
        lines.append("")
        lines.append("| config | " + " | ".join(wls) + " |")
        lines.append("|---|" + "---:|" * len(wls))
        for c in cfgs:
            cells = []
            for w in wls:
                s = by.get((fs, c, w))
                cells.append(f"{s['ratio']:.2f}" if s and s["ratio"] is not None else "-")
            lines.append(f"| {c} | " + " | ".join(cells) + " |")
        lines.append("")
    for fs in fss:
        lines.append(f"### Details: {fs}")
        lines.append("")
        lines.append("| workload | config | median | unit | min–max | ratio | events/s |")
        lines.append("|---|---|---:|---|---:|---:|---:|")
        for w in wls:
            for c in cfgs:
                s = by.get((fs, c, w))
                if not s:
                    continue
                ratio = f"{s['ratio']:.2f}" if s["ratio"] is not None else "-"
                ev = fmt(s["events_per_s"]) if s["events_per_s"] is not None else ""
                lines.append(f"| {w} | {c} | {fmt(s['median'])} | {s['unit']} | "
                             f"{fmt(s['min'])}–{fmt(s['max'])} | {ratio} | {ev} |")
        lines.append("")
    return "\n".join(lines)


def doc(table, meta):
    quick = meta.get("mode") == "quick"
    cfg_rows = "\n".join(f"| `{c}` | {CONFIG_TEXT.get(c, c)} |"
                         for c in meta.get("configs", "").split())
    wl_rows = "\n".join(f"| `{w}` | {WORKLOAD_TEXT.get(w, w)} |"
                        for w in meta.get("workloads", "").split())
    return f"""# DazukoFS benchmarks

<!-- Generated by `bench/run --update-doc` (bench/report.py). Do not edit by hand: rerun it. -->

These are the numbers of the latest `bench/run --update-doc`. They come from a
**{meta.get('mode', '?')} run**{' (`--quick`: small sizes, fewer repeats; a full run gives steadier numbers)' if quick else ''}.

| | |
|---|---|
| date (UTC) | {meta.get('date', '?')} |
| command | `{meta.get('command', '?')} --update-doc` |
| guest kernel | {meta.get('kernel', '?')} |
| host CPU | {meta.get('host_cpu', '?')} ({meta.get('host_cpus', '?')} CPUs) |
| emulation | {meta.get('qemu', 'QEMU')}, TCG (no KVM), single-threaded TCG |
| guest | {meta.get('guest_cpus', '?')} vCPUs, {meta.get('guest_mem_mb', '?')} MiB |
| sizes | {meta.get('nfiles', '?')} files for open/stat; time-bounded loops of {meta.get('secs', '?')} s; {meta.get('bigmb', '?')} MiB large file; tree of {meta.get('tree', '?')} files; tarball of {meta.get('tarfiles', '?')} files |
| repeats | {meta.get('repeats', '?')} per configuration and workload |
| wall time | {meta.get('wall_secs', '?')} s including boot |
| host load average | {meta.get('host_load', '?')} (1, 5, 15 min; other work on the host makes the numbers noisier: look at the spread) |

## What the numbers mean

The guest runs under QEMU's TCG emulation: every instruction is translated,
so **absolute numbers are meaningless** (orders of magnitude below real
hardware, and distorted: system calls and context switches cost relatively
more than on hardware). What matters are the **ratios** against the baseline
measured in the same boot: the same workload on the lower filesystem itself
(tmpfs, or ext4 on a loop device backed by a file in the guest's tmpfs).
A ratio of 0.50 means half the baseline's throughput. Spread is min–max over
the repeats. Numbers never fail a test; `bench-quick` in ctest only proves
that the runner works.

For the `dz-gN` and `fanotify` rows every open was answered by the allow-all
C worker/listener: the runner checks that the group's sysfs `events` and
`allowed` counters (or the listener's count) grew by exactly the number of
opens of each run, and reports events/s. The worker reads the event record,
parses it with `module/protocol.c`, closes the event's fd and writes
`id=N r=0`. With 2 vCPUs, 2 or 4 worker threads can only help a little.

Not measured yet: a group answered by the real scanner (being written
elsewhere).

| config | what |
|---|---|
{cfg_rows}

| workload | what |
|---|---|
{wl_rows}

## Results

{table}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--meta", required=True)
    ap.add_argument("--outdir", required=True)
    ap.add_argument("--doc")
    a = ap.parse_args()
    with open(a.raw, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        print("report.py: no rows in " + a.raw, file=sys.stderr)
        return 1
    meta = read_meta(a.meta)
    want = (len(meta.get("lowerfs", "").split()) * len(meta.get("configs", "").split())
            * len(meta.get("workloads", "").split()) * int(meta.get("repeats", "0") or 0))
    if want and len(rows) != want:
        print(f"report.py: {len(rows)} rows in {a.raw}, expected {want}", file=sys.stderr)
        return 1
    summary = summarise(rows)
    table = markdown(summary, meta)
    print(table)
    with open(os.path.join(a.outdir, "bench.md"), "w") as f:
        f.write(table + "\n")
    fields = ["fs", "config", "workload", "unit", "runs", "median", "min", "max",
              "ratio", "events_per_s"]
    with open(os.path.join(a.outdir, "bench-summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for s in summary:
            w.writerow({k: s[k] for k in fields})
    with open(os.path.join(a.outdir, "bench-summary.json"), "w") as f:
        json.dump({"meta": meta, "results": summary}, f, indent=1)
    if a.doc:
        os.makedirs(os.path.dirname(a.doc), exist_ok=True)
        with open(a.doc, "w") as f:
            f.write(doc(table, meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
