#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise bench-raw.csv (one row per run, from bench/guest-bench.sh).

For each lower filesystem, configuration and workload: the median, min and
max over the repeats, and the ratio of the median to the median of the
"lower" configuration (same workload, same lower filesystem, same boot).
Rows whose fs is "scanner" are the scanner benchmark: files/s (and MB/s,
from the corpus size in the meta file) of dazuko-clamscan and of clamscan,
with the ratio to clamscan; re-open ops/s with the ratio to dazukofs with no
group.  A raw CSV without them (an older run) reports without that section.
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


SCANNER_TEXT = {
    "dazuko-clamscan-w1": "dazuko-clamscan, 1 worker, verdict cache and libclamav's cache off, answering a group on dazukofs over the corpus",
    "dazuko-clamscan-w2": "dazuko-clamscan, 2 workers, verdict cache and libclamav's cache off",
    "clamscan": "`clamscan -d DB -r` over the corpus (lower, no dazukofs), its engine load (clamscan of an empty directory, same repeat) subtracted",
    "clamscan+load": "the same clamscan runs, engine load included",
    "dazukofs": "dazukofs over the corpus, no group",
    "dz-g1": "dazukofs, one group, allow-all C worker with 1 thread",
    "dazuko-clamscan-cache": "dazuko-clamscan, 1 worker, verdict cache on, every file already scanned once",
}
SCAN_BASE = "clamscan"
REOPEN_BASE = "dazukofs"


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


def summarise_scanner(rows, meta):
    """The scanner rows: ratios to clamscan (scan) and to dazukofs (reopen)."""
    out = summarise(rows)
    try:
        per_file = int(meta["corpus_bytes"]) / int(meta["corpus_files"]) / (1 << 20)
    except (KeyError, ValueError, ZeroDivisionError):
        per_file = None
    base = {(s["workload"], s["config"]): s["median"] for s in out}
    for s in out:
        b = None
        if s["workload"] == "scan":
            b = base.get(("scan", SCAN_BASE))
        elif s["workload"] == "reopen":
            b = base.get(("reopen", REOPEN_BASE))
        s["ratio"] = s["median"] / b if b else None
        s["mb_per_s"] = (s["median"] * per_file
                         if per_file is not None and s["unit"] == "files/s" else None)
    return out


def expected_rows(meta):
    """Rows the filesystem part should have (0: unknown)."""
    repeats = int(meta.get("repeats", "0") or 0)
    wls = len(meta.get("workloads", "").split())
    cfgs = meta.get("configs", "").split()
    n = 0
    for fs in meta.get("lowerfs", "").split():
        c = meta.get("configs_" + fs, "").split() or cfgs
        n += len(c)
    return n * wls * repeats


def ratio_cell(s):
    return f"{s['ratio']:.2f}" if s["ratio"] is not None else "-"


def scanner_row(s):
    """The first cells of a scanner table row: configuration, median, spread."""
    return f"| {s['config']} | {fmt(s['median'])} | {fmt(s['min'])}–{fmt(s['max'])} |"


def scanner_markdown(summary, meta):
    by = {(s["workload"], s["config"]): s for s in summary}
    lines = ["### Scanner", ""]
    files, size = meta.get("corpus_files"), meta.get("corpus_bytes")
    corpus = (f"{files} files, {int(size) / (1 << 20):.1f} MiB" if files and size
              else "size unknown")
    lines.append(f"Corpus: {corpus}; test signatures (tests/scanner/db). "
                 f"dazuko-clamscan: {meta.get('scanj', '?')} threads open every file once "
                 "through the mount; MB/s = files/s × mean file size (MiB).")
    lines.append("")
    scan = [s for s in summary if s["workload"] == "scan"]
    if scan:
        lines.append("| configuration | files/s | min–max | MB/s | ratio to clamscan |")
        lines.append("|---|---:|---:|---:|---:|")
        for s in scan:
            mb = fmt(s["mb_per_s"]) if s["mb_per_s"] is not None else "-"
            lines.append(f"{scanner_row(s)} {mb} | {ratio_cell(s)} |")
        lines.append("")
    eng = by.get(("engine", "clamscan"))
    if eng:
        lines.append(f"clamscan engine load (clamscan of an empty directory): median "
                     f"{eng['median']:.2f} s ({eng['min']:.2f}–{eng['max']:.2f}).")
        lines.append("")
    reopen = [s for s in summary if s["workload"] == "reopen"]
    if reopen:
        lines.append("Re-opening the already scanned corpus (open+close):")
        lines.append("")
        lines.append("| configuration | ops/s | min–max | ratio to dazukofs | events/s |")
        lines.append("|---|---:|---:|---:|---:|")
        for s in reopen:
            ev = fmt(s["events_per_s"]) if s["events_per_s"] is not None else ""
            lines.append(f"{scanner_row(s)} {ratio_cell(s)} | {ev} |")
        lines.append("")
    return "\n".join(lines)


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


SCANNER_DOC = """## The scanner numbers

The **Scanner** section measures dazuko-clamscan, the real scanner, on a
generated corpus ({corpus}: text of 256 B–8 KiB, text or pseudo-random data of
16 KiB–{maxsize}, the same contents on every run) with the test signature
database `tests/scanner/db` (EICAR's MD5 and one body signature), on a tmpfs
in the same boot as the tables above:

- `dazuko-clamscan-wN` (files/s, MB/s): a dazukofs is mounted over the corpus
  and dazuko-clamscan answers its group with N workers, its verdict cache
  off and libclamav's own cache of clean files' hashes off
  (`--clamav-cache no`), so every open is a whole libclamav scan, as every
  file is for clamscan (with libclamav's cache on, the repeats would only
  hash the files found clean before); {scanj} threads open every corpus
  file once through the mount. The engine is compiled before the clock
  starts (the runner waits for the scanner's `ready` and for the group's
  readers to reach N), and one untimed pass runs first (TCG translates code
  the first time it runs; clamscan gets an untimed warm-up run too). The
  runner checks the scanner's statistics (SIGUSR1): `scanned` equals the
  files opened, nothing infected, no errors, no skipped files; and at the
  end an EICAR file copied into the corpus must be denied.
- `clamscan`: Debian's `clamscan -d DB -r` over the same files (on the lower
  filesystem, no dazukofs) with the same signatures, one process per repeat.
  clamscan loads its engine on every run, so each repeat first times clamscan
  of an empty directory (the *engine load* printed under the table) and the
  `clamscan` row is the corpus time minus that; `clamscan+load` is the raw
  time. The ratio column is against `clamscan`: 1.00 means the on-access
  scanner, including the stacking, the event round trip and the open itself,
  scans as fast as clamscan does on its own. The two do not do quite the
  same work: clamscan is one thread that also walks the directory and prints
  a line per file, while with dazuko-clamscan the opener threads' round
  trips overlap the worker's scanning; both use libclamav with every file
  format parser and heuristics on (clamscan's defaults).
- MB/s is files/s times the corpus's mean file size (MiB/s). libclamav counts
  the data it scans differently (text is normalised, so it may scan more than
  it reads); these numbers count file bytes.
- Re-open (ops/s): open+close of the already scanned, unchanged corpus files
  (loops of {reopensecs} s, one thread) on dazukofs with no group (the ratio's
  baseline), with the allow-all C worker (`dz-g1`), and with dazuko-clamscan
  with its verdict cache (`dazuko-clamscan-cache`: one untimed scanning pass
  first; the scanner asks the kernel to remember each clean verdict). The
  runner checks that the group's kernel `cache_hits` grew by every one of
  these re-opens (no event at all) and the scanner's `scanned` stayed at the
  corpus size, so the row measures the kernel's verdict cache.

With 2 vCPUs under TCG, more workers (and opener threads) can only help a
little.
"""


# Everything from this line on in the doc is hand-written and kept.
KEEP_MARK = "<!-- Hand-written from here on: bench/run --update-doc keeps it. -->"


def doc(table, meta, scanner=False):
    quick = meta.get("mode") == "quick"
    cfg_rows = "\n".join(f"| `{c}` | {CONFIG_TEXT.get(c, c)} |"
                         for c in meta.get("configs", "").split())
    wl_rows = "\n".join(f"| `{w}` | {WORKLOAD_TEXT.get(w, w)} |"
                        for w in meta.get("workloads", "").split())
    scanner_doc = ""
    corpus = "?"
    if scanner:
        try:
            corpus = (f"{meta['corpus_files']} files, "
                      f"{int(meta['corpus_bytes']) / (1 << 20):.1f} MiB")
        except (KeyError, ValueError):
            pass
        maxkb = int(meta.get("corpuskb", "0") or 0)
        maxsize = f"{maxkb // 1024} MiB" if maxkb >= 1024 else (f"{maxkb} KiB" if maxkb else "?")
        scanner_doc = SCANNER_DOC.format(corpus=corpus, maxsize=maxsize,
                                         scanj=meta.get("scanj", "?"),
                                         reopensecs=meta.get("reopensecs", "?"))
        scanner_doc += ("\n| scanner configuration | what |\n|---|---|\n"
                        + "\n".join(f"| `{c}` | {t} |" for c, t in SCANNER_TEXT.items())
                        + "\n")
    ext4 = meta.get("configs_ext4", "")
    ext4_note = (f" (ext4: {', '.join(ext4.split())})"
                 if ext4 and ext4 != meta.get("configs", "") else "")
    return f"""# DazukoFS benchmarks

<!-- Generated by `bench/run --update-doc` (bench/report.py). Do not edit by hand: rerun it (it keeps the hand-written part at the end, if any). -->

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
| configurations | {' '.join(meta.get('configs', '').split())}{ext4_note} |
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

| config | what |
|---|---|
{cfg_rows}

| workload | what |
|---|---|
{wl_rows}

{scanner_doc}
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
    fsrows = [r for r in rows if r["fs"] != "scanner"]
    scanrows = [r for r in rows if r["fs"] == "scanner"]
    want = expected_rows(meta)
    if want and len(fsrows) != want:
        print(f"report.py: {len(fsrows)} filesystem rows in {a.raw}, expected {want}",
              file=sys.stderr)
        return 1
    summary = summarise(fsrows) if fsrows else []
    scan = summarise_scanner(scanrows, meta) if scanrows else []
    repeats = int(meta.get("repeats", "0") or 0)
    short = [f"{s['config']}/{s['workload']}" for s in scan if repeats and s["runs"] != repeats]
    if short:
        print(f"report.py: scanner rows without {repeats} runs: {', '.join(short)}",
              file=sys.stderr)
        return 1
    table = markdown(summary, meta)
    if scan:
        table += "\n" + scanner_markdown(scan, meta)
    print(table)
    with open(os.path.join(a.outdir, "bench.md"), "w") as f:
        f.write(table + "\n")
    fields = ["fs", "config", "workload", "unit", "runs", "median", "min", "max",
              "ratio", "events_per_s", "mb_per_s"]
    with open(os.path.join(a.outdir, "bench-summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for s in summary + scan:
            w.writerow({k: s.get(k) for k in fields})
    with open(os.path.join(a.outdir, "bench-summary.json"), "w") as f:
        json.dump({"meta": meta, "results": summary, "scanner": scan}, f, indent=1)
    if a.doc:
        os.makedirs(os.path.dirname(os.path.abspath(a.doc)), exist_ok=True)
        kept = ""
        try:
            with open(a.doc) as f:
                old = f.read()
            if KEEP_MARK in old:
                kept = "\n" + old[old.index(KEEP_MARK):]
        except FileNotFoundError:
            pass
        with open(a.doc, "w") as f:
            f.write(doc(table, meta, bool(scan)) + kept)
    return 0


if __name__ == "__main__":
    sys.exit(main())
