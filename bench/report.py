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
    "dz-g1-bp": "dz-g1 with the group's `busy_poll_us` set (see below)",
    "dz-g2": "dazukofs, one group, allow-all C worker with 2 threads",
    "dz-g4": "dazukofs, one group, allow-all C worker with 4 threads",
    "dz-gx": "dz-g1 whose group excludes the benchmark's cgroup (`exclude_cgroups`): no event; compare with dazukofs",
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
    "dazuko-clamscan-store": "dazuko-clamscan, 1 worker, caches off, the verdict store on and empty: every file scanned and stored",
    "dazuko-clamscan-stored": "the same store, the scanner restarted: every file answered from the store (digested, not scanned)",
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


def median_ratio(num, den):
    """The median over the repeats of num[rep] / den[rep] (dicts by
    repeat), only repeats both have: ratios within the same repeat."""
    rs = [num[k] / den[k] for k in num if den.get(k)]
    return statistics.median(rs) if rs else None


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
    base = {(s["fs"], s["workload"]): s for s in out if s["config"] == "lower"}
    for s in out:
        b = base.get((s["fs"], s["workload"]))
        s["ratio"] = s["median"] / b["median"] if b and b["median"] else None
        s["implausible"] = bool(b) and implausible(s, b)
    return out


# Every configuration but lower passes through to the lower filesystem (or
# adds an fanotify listener on it): it does the lower's work and more, so
# it cannot be faster.  A ratio above 1 + PASS_NOISE whose slowest run still
# beats the lower's fastest is a measurement artefact (caching, order, host
# load), not a speed-up: the report flags it.
PASS_NOISE = 0.10


def implausible(s, base):
    if s["config"] == "lower" or s["config"] not in CONFIG_TEXT or not base["median"]:
        return False
    return (s["median"] / base["median"] > 1 + PASS_NOISE and s["min"] > base["max"])


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
    # the restarted scanner's pass over the first pass, per repeat
    byrep = {}
    for r in rows:
        if r["workload"] == "scan":
            byrep.setdefault(r["config"], {})[r["rep"]] = float(r["value"])
    ratio = median_ratio(byrep.get("dazuko-clamscan-stored", {}),
                         byrep.get("dazuko-clamscan-store", {}))
    for s in out:
        if s["config"] == "dazuko-clamscan-stored" and ratio is not None:
            s["ratio_first"] = ratio
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
        stored = [s for s in scan if s.get("ratio_first") is not None]
        if stored:
            lines.append(f"Verdict store across a restart: the restarted scanner's pass "
                         f"÷ the first pass, per repeat (median): {stored[0]['ratio_first']:.2f}.")
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


def ratio_flagged(s):
    """A ratio cell: the ratio, with "(!)" if it cannot be real."""
    if not s or s["ratio"] is None:
        return "-"
    return f"{s['ratio']:.2f}" + (" (!)" if s.get("implausible") else "")


def implausible_note(summary):
    bad = [s for s in summary if s.get("implausible")]
    if not bad:
        return []
    lines = ["**(!) Implausible:** these pass-through configurations measured faster "
             f"than the lower filesystem they pass through, by more than {PASS_NOISE:.0%} "
             "and with their slowest run faster than the lower's fastest. They do the "
             "lower's work and more, so this is an artefact of the measurement (caching, "
             "order, host load), not a speed-up; do not quote these ratios:", ""]
    for s in bad:
        lines.append(f"- {s['fs']} `{s['config']}` {s['workload']}: {s['ratio']:.2f}× "
                     f"({fmt(s['min'])}–{fmt(s['max'])} {s['unit']})")
    lines.append("")
    return lines


def against_fanotify(summary):
    """Events/s of each dz-g* configuration over fanotify's, same boot."""
    fan = {(s["fs"], s["workload"]): s["events_per_s"] for s in summary
           if s["config"] == "fanotify" and s["events_per_s"]}
    dz = list(dict.fromkeys(s["config"] for s in summary
                            if s["config"].startswith("dz-g")))
    if not fan or not dz:
        return []
    by = {(s["fs"], s["config"], s["workload"]): s["events_per_s"] for s in summary}
    lines = ["### Events/s against fanotify", "",
             "Median events/s of each configuration over fanotify's, same "
             "workload, same lower filesystem, same boot.", "",
             "| lower | workload | " + " | ".join(dz) + " |",
             "|---|---|" + "---:|" * len(dz)]
    for (fs, wl), f in fan.items():
        cells = [f"{by[(fs, c, wl)] / f:.2f}" if by.get((fs, c, wl)) else "-"
                 for c in dz]
        lines.append(f"| {fs} | {wl} | " + " | ".join(cells) + " |")
    lines.append("")
    return lines


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
            cells = [ratio_flagged(by.get((fs, c, w))) for w in wls]
            lines.append(f"| {c} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += implausible_note(summary)
    lines += against_fanotify(summary)
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
                ratio = ratio_flagged(s)
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
  configurations are interleaved (each repeat starts a fresh scanner for
  each, the order rotated each repeat). The
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
    noise = f"{1 + PASS_NOISE:.2f}"
    busy_poll = meta.get("busy_poll_us", "?") + " µs"
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
The guest boots without the tests' slab debugging (`run-vm
--no-slub-debug`; until 2026-12-05 it had it, and a stack trace saved at
every allocation dominated the allocating configurations' numbers).
The workloads run inside the configuration's directory and name their
files relative to it (until 2026-12-05 by absolute paths): the guest's
root is overlayfs over the host's 9p root, whose revalidation leaves
RCU path walk, so every absolute path was walked in ref-walk mode, as no
host with a local root does, which cost the stacked configurations more.
A ratio of 0.50 means half the baseline's throughput. Spread is min–max over
the repeats. The configurations are interleaved: each repeat sets up and
runs every configuration once, in an order rotated by one each repeat, and
each configuration's first setup runs every workload once untimed (a
warm-up; time-bounded loops for a quarter of the time), so that slow drifts
of the host and cold caches hit every configuration alike. Every configuration but `lower`
passes through to the lower filesystem (or adds a listener to it), so it
cannot be faster: a ratio above {noise} whose slowest run still beats the
lower's fastest is marked **(!)** and listed under its table as a
measurement artefact. Numbers never fail a test; `bench-quick` in ctest only proves
that the runner works.

For the `dz-gN` and `fanotify` rows every open was answered by the allow-all
C worker/listener: the runner checks that the group's sysfs `events` and
`allowed` counters (or the listener's count) grew by exactly the number of
opens of each run, and reports events/s. The worker reads the event record,
parses it with `module/protocol.c`, closes the event's fd and writes
`id=N r=0`. With 2 vCPUs, 2 or 4 worker threads can only help a little.
`dz-g1-bp` sets the group's `busy_poll_us` to {busy_poll}: the opener
waiting for the verdict and the worker waiting for the next event spin
that long before they sleep. Under TCG this is cheap and saves much: a
spinning vCPU's `pause` hands the emulator thread to the other vCPU at
once, while a sleep halts the vCPU and its wake-up goes through an
emulated interrupt. On hardware the saving is the sleep and the
wake-up of each round trip (microseconds), and the spin costs CPU time:
expect a smaller gain there. fanotify's waits always sleep.

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


# ---- bench/native: the scanners natively on the host ------------------------

NATIVE_BEGIN = "<!-- Native section: generated by `bench/native --update-doc` (bench/report.py --native); `bench/run --update-doc` keeps it. -->"
NATIVE_END = "<!-- End of the native section. -->"
NATIVE_ORDER = ["dazuko-clamscan", "dazuko-store", "clamonacc", "clamscan", "clamscan+load",
                "clamdscan", "none"]
NATIVE_TEXT = {
    "dazuko-clamscan": "dazuko-clamscan, `--source fanotify` (a mount mark on the corpus mount), libclamav in process, its settings imported from the same clamd.conf (`--import-clamd-conf`: include path, limits, workers, excluded user); verdict cache and libclamav's cache on (defaults)",
    "dazuko-store": "dazuko-clamscan as above with the verdict store (`store = yes`, a new store each repeat): cold is its first pass, every file scanned and stored; the restart table below has the pass of a scanner restarted over the same files",
    "clamonacc": "clamonacc `--fdpass` with OnAccessPrevention yes, OnAccessIncludePath the corpus mount (its default dynamic directory marking), answered by a local clamd (MaxThreads = workers, its cache of clean hashes on: the default)",
    "clamscan": "`clamscan -r` over the corpus, one process per pass; its engine load (clamscan of an empty directory, same repeat) subtracted. No cache survives the process: its warm pass scans again",
    "clamscan+load": "the same clamscan runs, engine load included",
    "clamdscan": "`clamdscan --multiscan` over the corpus against a fresh clamd (clamd opens the files, MaxThreads = workers); warm: the same again, clamd's cache of clean hashes warm",
    "none": "no scanner: the same opens alone (reference)",
}
NATIVE_SCAN_BASE = "clamscan"
NATIVE_ACC_BASE = "clamonacc"


def native_summary(rows):
    """median/min/max per (config, workload), and per-repeat ratios to the
    baselines of the same repeat (median of the ratios)."""
    vals = {}
    for r in rows:
        vals.setdefault((r["config"], r["workload"]), {})[r["rep"]] = float(r["value"])
    out = {}
    for (c, w), byrep in vals.items():
        v = list(byrep.values())
        s = {"config": c, "workload": w, "runs": len(v), "median": statistics.median(v),
             "min": min(v), "max": max(v), "ratio_clamscan": None, "ratio_clamonacc": None}
        for name, base in [] if c == "none" else (("ratio_clamscan", NATIVE_SCAN_BASE), ("ratio_clamonacc", NATIVE_ACC_BASE)):
            s[name] = median_ratio(byrep, vals.get((base, w), {}))
        out[(c, w)] = s
    # the verdict store: a restarted scanner's pass over its first pass's
    # files, per repeat
    if ("dazuko-store", "restart") in out:
        out[("dazuko-store", "restart")]["ratio_first"] = median_ratio(
            vals[("dazuko-store", "restart")], vals.get(("dazuko-store", "cold"), {}))
    return out


def native_store_markdown(summ):
    """The verdict store across a restart (bench/native's dazuko-store)."""
    r = summ.get(("dazuko-store", "restart"))
    if not r:
        return ""

    def med(c, w, unit=""):
        s = summ.get((c, w))
        return f"{fmt(s['median'])}{unit}" if s else "-"

    ratio = r.get("ratio_first")
    return "\n".join([
        "| verdict store | first pass files/s | restarted scanner files/s | restarted ÷ first "
        "| store hits | hashed MiB/s (restarted) | store off: a started scanner's pass files/s |",
        "|---|---:|---:|---:|---:|---:|---:|",
        f"| dazuko-store | {med('dazuko-store', 'cold')} | {med('dazuko-store', 'restart')} | "
        f"{'-' if ratio is None else f'{ratio:.2f}'} | {med('dazuko-store', 'store-hits')} | "
        f"{med('dazuko-store', 'hashed')} | {med('dazuko-clamscan', 'cold')} |",
        "",
    ])


def native_markdown(summ, meta):
    def cell(c, w, key="median"):
        s = summ.get((c, w))
        if not s or s.get(key) is None:
            return "-"
        return fmt(s[key])

    def spread(c, w):
        s = summ.get((c, w))
        return f"{fmt(s['min'])}–{fmt(s['max'])}" if s else "-"

    def ratio(c, w, key):
        s = summ.get((c, w))
        return f"{s[key]:.2f}" if s and s.get(key) is not None else "-"

    cfgs = [c for c in NATIVE_ORDER if any(k[0] == c for k in summ)]
    lines = ["| configuration | cold files/s | min–max | ÷ clamscan | ÷ clamonacc "
             "| warm files/s | min–max | ÷ clamonacc | engine load s | peak RSS MiB |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for c in cfgs:
        rss = cell(c, "rss")
        if (c, "rss-client") in summ:
            rss += f" + {cell(c, 'rss-client')}"
        lines.append(f"| {c} | {cell(c, 'cold')} | {spread(c, 'cold')} | "
                     f"{ratio(c, 'cold', 'ratio_clamscan')} | {ratio(c, 'cold', 'ratio_clamonacc')} | "
                     f"{cell(c, 'warm')} | {spread(c, 'warm')} | {ratio(c, 'warm', 'ratio_clamonacc')} | "
                     f"{cell(c, 'load')} | {rss} |")
    lines.append("")
    store = native_store_markdown(summ)
    if store:
        lines += [store]
    return "\n".join(lines)


def native_doc(table, meta):
    try:
        mib = f"{int(meta['corpus_bytes']) / (1 << 20):.0f} MiB"
    except (KeyError, ValueError):
        mib = "?"
    cfg_rows = "\n".join(f"| `{c}` | {t} |" for c, t in NATIVE_TEXT.items())
    return f"""{NATIVE_BEGIN}
## Natively on the host: dazuko-clamscan, clamonacc, clamscan, clamdscan

`bench/native` runs on the host itself (root, its own kernel, no VM, no
TCG), with the fanotify source, all four scanners side by side in one run.
Ratios are taken per repeat against the baseline of the same repeat, then
the median; higher is faster.{chr(10) + chr(10) + "**A quick run** (`--quick`: tiny corpus and signature set; the numbers mean little)." if meta.get("mode") == "quick" else ""}

| | |
|---|---|
| date | {meta.get('date', '?')} |
| command | `{meta.get('command', '?')} --update-doc` |
| kernel | {meta.get('kernel', '?')} |
| host | {meta.get('host_cpu', '?')}, {meta.get('host_cpus', '?')} CPUs, {meta.get('host_mem_mb', '?')} MiB |
| ClamAV | {meta.get('clamav', '?')} (Debian) |
| host load average | {meta.get('host_load', '?')} (1, 5, 15 min; the host is shared, look at the spread) |
| wall time | {meta.get('wall_secs', '?')} s |
| repeats | {meta.get('repeats', '?')}; configurations interleaved, order rotated each repeat |
| threads | {meta.get('workers', '?')} scanning threads per scanner, {meta.get('workers', '?')} opener threads |
| signatures | {meta.get('hashes', '?')} random hash signatures (half MD5 `.hdb`, half SHA-256 `.hsb`), {meta.get('bodies', '?')} random body signatures (`.ndb`, one in four with a wildcard: `??`, `{{n-m}}`, `*`, `(aa\\|bb)`), generated at run time (cached in the build directory), plus the test signatures (`tests/scanner/db`: EICAR, one body signature) |
| corpus | {meta.get('corpus_files', '?')} real files of this machine, {mib}, copied to a local ext4 and bind-mounted: {meta.get('corpus_kinds', '?')} (ELF executables, shared libraries, gzip'd docs, scripts, archives: tar.gz/zip made from /usr/share/doc and .jar/.zip found under /usr); {meta.get('corpus_dropped', '0')} dropped because clamscan flagged them; {meta.get('warmup_files', '?')} other files for the warm-up passes |

{table}
- **cold**: every corpus file opened once (fsbench scan, open+close) by
  a scanner started for this repeat, after an untimed warm-up pass over
  other files: none of these files is in any cache of the scanner. For
  clamscan and clamdscan it is one scan of the corpus directory.
- **warm**: the same files again with the same scanner instance: the
  dazuko-clamscan verdict cache, clamd's cache of clean hashes (clamonacc
  still sends every open to clamd), clamscan scans everything again.
- **engine load**: start until ready (dazuko-clamscan's `ready` log line,
  clamd answering PING, clamscan of an empty directory).
- **peak RSS**: VmHWM of dazuko-clamscan, of clamd (`+` clamonacc's own),
  clamscan's maximum resident set.
- The same clamd.conf serves clamd, clamonacc and clamdscan, and
  dazuko-clamscan imports it: MaxFileSize 100M, MaxScanSize 400M,
  MaxRecursion 17, MaxFiles 10000, AlertExceedsMax, AlertEncrypted,
  OnAccessMaxFileSize 100M, HeuristicAlerts yes (dazuko-clamscan's
  heuristics are always on), clamd as user clamav (excluded from on-access
  scanning); clamscan gets the same limits as options. EICAR is not built
  into libclamav: the test database's MD5 signature finds it.
- Checks (a failed check fails the run; speed never does): both on-access
  scanners deny an EICAR copy in every corpus directory (EPERM) before and
  after the passes; every corpus file opens; dazuko-clamscan's statistics
  show every file scanned in the cold pass and a cache hit for every file
  in the warm one; clamd logs every file clean in each pass of clamonacc
  and clamdscan; clamscan reports every file scanned.

| configuration | what |
|---|---|
{cfg_rows}
{NATIVE_END}
"""


def write_native_doc(path, section):
    """Replace the native section of the doc (or put it before the
    hand-written part, or at the end)."""
    try:
        with open(path) as f:
            old = f.read()
    except FileNotFoundError:
        old = "# DazukoFS benchmarks\n\n"
    if NATIVE_BEGIN in old and NATIVE_END in old:
        a = old.index(NATIVE_BEGIN)
        b = old.index(NATIVE_END) + len(NATIVE_END) + 1
        new = old[:a] + section + old[b:]
    elif KEEP_MARK in old:
        a = old.index(KEEP_MARK)
        new = old[:a] + section + "\n" + old[a:]
    else:
        new = old.rstrip("\n") + "\n\n" + section
    with open(path, "w") as f:
        f.write(new)


def native_main(a):
    with open(a.raw, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["fs"] == "native"]
    if not rows:
        print("report.py: no native rows in " + a.raw, file=sys.stderr)
        return 1
    meta = read_meta(a.meta)
    summ = native_summary(rows)
    repeats = int(meta.get("repeats", "0") or 0)
    short = [f"{c}/{w}" for (c, w), s in summ.items() if repeats and s["runs"] != repeats]
    if short:
        print(f"report.py: native rows without {repeats} runs: {', '.join(short)}", file=sys.stderr)
        return 1
    table = native_markdown(summ, meta)
    print(table)
    with open(os.path.join(a.outdir, "native.md"), "w") as f:
        f.write(table + "\n")
    with open(os.path.join(a.outdir, "native-summary.json"), "w") as f:
        json.dump({"meta": meta, "results": list(summ.values())}, f, indent=1)
    if a.doc:
        write_native_doc(a.doc, native_doc(table, meta))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--meta", required=True)
    ap.add_argument("--outdir", required=True)
    ap.add_argument("--doc")
    ap.add_argument("--native", action="store_true",
                    help="the raw CSV is bench/native's: write native.md, "
                         "native-summary.json and the native section of --doc")
    a = ap.parse_args()
    if a.native:
        return native_main(a)
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
              "ratio", "events_per_s", "mb_per_s", "implausible"]
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
            if NATIVE_BEGIN in old and NATIVE_END in old:
                kept = "\n" + old[old.index(NATIVE_BEGIN):old.index(NATIVE_END) + len(NATIVE_END)] + "\n"
            if KEEP_MARK in old:
                kept += "\n" + old[old.index(KEEP_MARK):]
        except FileNotFoundError:
            pass
        with open(a.doc, "w") as f:
            f.write(doc(table, meta, bool(scan)) + kept)
    return 0


if __name__ == "__main__":
    sys.exit(main())
