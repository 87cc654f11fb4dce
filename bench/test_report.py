#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-only test of bench/report.py (ctest bench-report): small fixture raw
CSVs, one as an older run wrote it (no scanner rows, no configs_ext4) and one
with the scanner rows; report.py must report both, put the scanner section
only in the second, compute its ratios, flag pass-through ratios that cannot
be real, report bench/native's rows into the doc's native section (kept by
the VM report), and refuse a run with missing rows."""
import csv
import json
import os
import subprocess
import sys
import tempfile

REPORT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "report.py")
HEADER = "fs,config,workload,rep,value,unit,ops,opens,events,secs\n"


def fs_rows(configs_by_fs, workloads, repeats):
    rows = []
    for fs, cfgs in configs_by_fs.items():
        for i, c in enumerate(cfgs):
            for w in workloads:
                for r in range(1, repeats + 1):
                    v = 1000.0 / (i + 1) + r
                    rows.append(f"{fs},{c},{w},{r},{v:.3f},ops/s,100,100,,0.1\n")
    return rows


def scanner_rows(repeats):
    rows = []
    for r in range(1, repeats + 1):
        rows.append(f"scanner,clamscan,engine,{r},2.000,s,0,0,,2.0\n")
        rows.append(f"scanner,clamscan,scan,{r},{40 + r}.000,files/s,100,0,,2.5\n")
        rows.append(f"scanner,clamscan+load,scan,{r},{20 + r}.000,files/s,100,0,,4.5\n")
        for c, v in (("dazuko-clamscan-w1", 20), ("dazuko-clamscan-w2", 30)):
            rows.append(f"scanner,{c},scan,{r},{v + r}.000,files/s,100,100,100,3.0\n")
        # the store: restarted ÷ first is 10, 20, 30 by repeat (median 20)
        rows.append(f"scanner,dazuko-clamscan-store,scan,{r},10.000,files/s,100,100,100,3.0\n")
        rows.append(f"scanner,dazuko-clamscan-stored,scan,{r},{100 * r}.000,files/s,100,100,100,3.0\n")
        for c, v, ev in (("dazukofs", 5000, ""), ("dz-g1", 2500, "250"),
                         ("dazuko-clamscan-cache", 1000 + r, "100")):
            rows.append(f"scanner,{c},reopen,{r},{v}.000,ops/s,{ev or 500},{ev or 500},{ev},0.1\n")
    return rows


def run(tmp, name, rows, meta):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    with open(os.path.join(d, "raw.csv"), "w") as f:
        f.write(HEADER + "".join(rows))
    with open(os.path.join(d, "meta.env"), "w") as f:
        f.write("".join(f"{k}={v}\n" for k, v in meta.items()))
    p = subprocess.run([sys.executable, REPORT, "--raw", os.path.join(d, "raw.csv"),
                        "--meta", os.path.join(d, "meta.env"), "--outdir", d,
                        "--doc", os.path.join(d, "doc.md")],
                       capture_output=True, text=True)
    return p, d


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}")
        sys.exit(1)
    print(f"ok: {what}")


def main():
    wls = ["open", "stat"]
    base = {"kernel": "6.12.0-test", "mode": "quick", "repeats": "3",
            "lowerfs": '"tmpfs ext4"', "configs": '"lower dazukofs dz-g1"',
            "workloads": '"open stat"'}
    with tempfile.TemporaryDirectory() as tmp:
        # an older run: no scanner rows, every configuration on both filesystems
        rows = fs_rows({"tmpfs": ["lower", "dazukofs", "dz-g1"],
                        "ext4": ["lower", "dazukofs", "dz-g1"]}, wls, 3)
        p, d = run(tmp, "old", rows, base)
        check(p.returncode == 0, f"old raw CSV reports (stderr: {p.stderr.strip()})")
        check("### Scanner" not in p.stdout, "no scanner section without scanner rows")
        check("| dazukofs | 0.50 | 0.50 |" in p.stdout, "filesystem ratios")
        doc = open(os.path.join(d, "doc.md")).read()
        check("## The scanner numbers" not in doc, "doc without the scanner text")

        # a current run: fewer configurations on ext4, scanner rows
        meta = dict(base, configs_ext4='"lower dazukofs"', corpus_files="100",
                    corpus_bytes=str(100 * 1048576), scanj="2", corpuskb="512")
        rows = fs_rows({"tmpfs": ["lower", "dazukofs", "dz-g1"],
                        "ext4": ["lower", "dazukofs"]}, wls, 3) + scanner_rows(3)
        p, d = run(tmp, "new", rows, meta)
        check(p.returncode == 0, f"raw CSV with scanner rows reports (stderr: {p.stderr.strip()})")
        out = p.stdout
        check("### Scanner" in out, "scanner section")
        check("| dazuko-clamscan-w1 | 22.0 | 21.0–23.0 | 22.0 | 0.52 |" in out,
              "scanner files/s, spread, MB/s (1 MiB files) and ratio to clamscan")
        check("| clamscan | 42.0 | 41.0–43.0 | 42.0 | 1.00 |" in out, "clamscan is the baseline")
        check("engine load" in out and "2.00 s" in out, "clamscan engine load")
        check("per repeat (median): 20.00." in out,
              "the store's restarted ÷ first pass, the median of per-repeat ratios")
        check("| dazuko-clamscan-cache | 1,002 | 1,001–1,003 | 0.20 |" in out,
              "re-open ops/s and ratio to dazukofs")
        with open(os.path.join(d, "bench-summary.csv")) as f:
            summ = list(csv.DictReader(f))
        check(any(r["fs"] == "scanner" and r["mb_per_s"] for r in summ), "summary CSV has scanner rows")
        with open(os.path.join(d, "bench-summary.json")) as f:
            js = json.load(f)
        check(len(js["scanner"]) == 10, "summary JSON has the scanner section")
        doc = open(os.path.join(d, "doc.md")).read()
        check("## The scanner numbers" in doc and "### Scanner" in doc, "doc explains the scanner numbers")
        check("(ext4: lower, dazukofs)" in doc, "doc names the ext4 subset")

        # the hand-written part after the marker survives a new doc
        mark = "<!-- Hand-written from here on: bench/run --update-doc keeps it. -->"
        with open(os.path.join(d, "doc.md"), "a") as f:
            f.write("\n" + mark + "\n\n## History\n\nkept text\n")
        p = subprocess.run([sys.executable, REPORT, "--raw", os.path.join(d, "raw.csv"),
                            "--meta", os.path.join(d, "meta.env"), "--outdir", d,
                            "--doc", os.path.join(d, "doc.md")],
                           capture_output=True, text=True)
        doc2 = open(os.path.join(d, "doc.md")).read()
        check(p.returncode == 0 and doc2.count(mark) == 1 and doc2.endswith("kept text\n")
              and doc2.startswith(doc), "the hand-written part is kept, once, at the end")

        # events/s of the dz-g* configurations over fanotify's
        fan = []
        for r in range(1, 4):
            for c, ev in (("lower", ""), ("dz-g1", "100"), ("dz-g1-bp", "300"),
                          ("fanotify", "200")):
                fan.append(f"tmpfs,{c},open,{r},1000.000,ops/s,1000,1000,{ev},1.0\n")
        fmeta = dict(base, lowerfs="tmpfs", configs='"lower dz-g1 dz-g1-bp fanotify"',
                     workloads="open", busy_poll_us="300")
        p, d = run(tmp, "fanotify", fan, fmeta)
        check(p.returncode == 0, f"fanotify comparison reports (stderr: {p.stderr.strip()})")
        check("### Events/s against fanotify" in p.stdout
              and "| lower | workload | dz-g1 | dz-g1-bp |" in p.stdout
              and "| tmpfs | open | 0.50 | 1.50 |" in p.stdout,
              "dz-g* events/s over fanotify's")
        doc = open(os.path.join(d, "doc.md")).read()
        check("`busy_poll_us` to 300 µs" in doc, "doc names the busy poll setting")
        check("### Events/s against fanotify" not in run(tmp, "nofan", rows, meta)[0].stdout,
              "no fanotify table without fanotify rows")

        # pass-through ratios that cannot be real are flagged: dazukofs
        # faster than its lower beyond the noise (ranges apart), but not
        # overlay within the noise or bindfs with overlapping ranges
        imp = []
        for r in range(1, 4):
            for c, v in (("lower", 100 + r), ("dazukofs", 184 + r), ("overlay", 105 + r),
                         ("bindfs", (95, 140, 180)[r - 1])):
                imp.append(f"tmpfs,{c},mmapread,{r},{v}.000,MB/s,4,1,,0.1\n")
        imeta = dict(base, lowerfs="tmpfs", configs='"lower dazukofs overlay bindfs"',
                     workloads="mmapread")
        p, d = run(tmp, "implausible", imp, imeta)
        check(p.returncode == 0, f"implausible ratios still report (stderr: {p.stderr.strip()})")
        check("| dazukofs | 1.82 (!) |" in p.stdout, "dazukofs 1.82x its lower is flagged")
        check("| overlay | 1.05 |" in p.stdout, "overlay within the noise is not flagged")
        check("| bindfs | 1.37 |" in p.stdout, "bindfs with overlapping ranges is not flagged")
        check("**(!) Implausible:**" in p.stdout and "tmpfs `dazukofs` mmapread: 1.82×" in p.stdout
              and "`overlay` mmapread" not in p.stdout, "the note lists only the implausible one")
        check("| mmapread | dazukofs | 186 | MB/s | 185–187 | 1.82 (!) |" in p.stdout,
              "details table flags it too")
        with open(os.path.join(d, "bench-summary.json")) as f:
            js = json.load(f)
        check([r["config"] for r in js["results"] if r["implausible"]] == ["dazukofs"],
              "summary JSON marks it")
        p, d = run(tmp, "plausible", rows, meta)
        check("(!)" not in p.stdout, "no flag when nothing beats the lower")

        # bench/native's rows: per-repeat ratios, the doc's native section
        nat = []
        for r in range(1, 4):
            for c, cold, warm, load, rss in (("dazuko-clamscan", 60 + r, 9000, 4.0, 400),
                                             ("clamonacc", 30 + r, 900, 5.0, 420),
                                             ("clamscan", 30, 30, 3.0, 380),
                                             ("clamdscan", 40, 1200, 5.0, 410)):
                nat.append(f"native,{c},load,{r},{load},s,0,0,,0\n")
                nat.append(f"native,{c},cold,{r},{cold},files/s,100,0,,1\n")
                nat.append(f"native,{c},warm,{r},{warm},files/s,100,0,,1\n")
                nat.append(f"native,{c},rss,{r},{rss},MiB,0,0,,0\n")
            nat.append(f"native,clamonacc,rss-client,{r},14,MiB,0,0,,0\n")
            nat.append(f"native,none,cold,{r},50000,files/s,100,0,,0\n")
        nmeta = {"repeats": "3", "mode": "full", "corpus_files": "100",
                 "corpus_bytes": str(100 << 20), "hashes": "1000000", "bodies": "100000"}
        nd = os.path.join(tmp, "native")
        os.makedirs(nd)
        with open(os.path.join(nd, "raw.csv"), "w") as f:
            f.write(HEADER + "".join(nat))
        with open(os.path.join(nd, "meta.env"), "w") as f:
            f.write("".join(f"{k}={v}\n" for k, v in nmeta.items()))
        vmdoc = os.path.join(d, "doc.md")   # the "plausible" run's doc
        nargs = [sys.executable, REPORT, "--native", "--raw", os.path.join(nd, "raw.csv"),
                 "--meta", os.path.join(nd, "meta.env"), "--outdir", nd, "--doc", vmdoc]
        p = subprocess.run(nargs, capture_output=True, text=True)
        check(p.returncode == 0, f"native rows report (stderr: {p.stderr.strip()})")
        check("| dazuko-clamscan | 62.0 | 61.0–63.0 | 2.07 | 1.94 | 9,000 | 9,000–9,000 | 10.00 | 4.00 | 400 |"
              in p.stdout, "native: medians, spread, per-repeat ratios, load, RSS")
        check("| clamonacc | 32.0 | 31.0–33.0 | 1.07 | 1.00 |" in p.stdout and "| 420 + 14.0 |" in p.stdout,
              "native: clamonacc is the on-access baseline; clamd + clamonacc RSS")
        check("| none | 50,000 | 50,000–50,000 | - | - |" in p.stdout, "native: no ratio for no scanner")
        doc1 = open(vmdoc).read()
        check(doc1.count("## Natively on the host") == 1 and doc1.startswith("# DazukoFS benchmarks"),
              "native section added to the doc")
        p = subprocess.run(nargs, capture_output=True, text=True)
        check(open(vmdoc).read() == doc1, "rewriting the native section is idempotent")
        p = subprocess.run([sys.executable, REPORT, "--raw", os.path.join(d, "raw.csv"),
                            "--meta", os.path.join(d, "meta.env"), "--outdir", d, "--doc", vmdoc],
                           capture_output=True, text=True)
        doc2 = open(vmdoc).read()
        check(p.returncode == 0 and doc2.count("## Natively on the host") == 1
              and "| dazuko-clamscan | 62.0 |" in doc2, "the VM report keeps the native section")
        short = [r for r in nat if not r.startswith("native,clamdscan,warm,2,")]
        with open(os.path.join(nd, "raw.csv"), "w") as f:
            f.write(HEADER + "".join(short))
        p = subprocess.run(nargs, capture_output=True, text=True)
        check(p.returncode == 1, "a missing native row fails")

        # missing rows fail the report
        p, _ = run(tmp, "short-fs", rows[1:], meta)
        check(p.returncode == 1, "a missing filesystem row fails")
        short = [r for r in rows if "dazuko-clamscan-w2,scan,3," not in r]
        p, _ = run(tmp, "short-scan", short, meta)
        check(p.returncode == 1, "a missing scanner row fails")
    print("bench-report: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
