#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Inputs of bench/native: a signature database of realistic size and a
corpus of real files from this machine.

  native-prep.py db DIR --hashes N --bodies N [--test-db DIR]
  native-prep.py corpus DIR --files N [--max-kb K] [--warmup N]

db: DIR/bench-random.hdb (MD5) and .hsb (SHA-256), N hash signatures in
all (half each), and DIR/bench-random.ndb, N body signatures of 12-40
random bytes, one in four with a wildcard (??, {n-m}, *, (aa|bb)); plus
the test signatures (--test-db, tests/scanner/db: EICAR's MD5 and one body
signature).  Random signatures match nothing real.  Seeded: the same
arguments give the same files.  Written once: if DIR/.complete says the
same arguments, nothing is done (the runner caches DIR in the build dir).

corpus: copies N real files of this machine, at most K KiB each (default
4096), into DIR/data/{elf,lib,doc,script,archive}/ (about a fifth each):
ELF executables (/usr/bin, /usr/sbin), shared libraries
(/usr/lib/x86_64-linux-gnu), gzip'd documentation (/usr/share/doc),
scripts (#! files, Python, Perl modules) and archives (tar.gz and zip of
/usr/share/doc package directories, made here from the machine's files,
plus .jar/.zip/.whl found under /usr).  Chosen evenly over the sorted
candidates, so the same machine gives the same corpus.  --warmup N more
files (other ones) go to DIR/warmup/ for the untimed warm-up passes.
Prints "files=N bytes=B".
"""
import argparse
import hashlib
import io
import os
import random
import shutil
import sys
import tarfile
import zipfile

HEX = "0123456789abcdef"


def db(a):
    key = f"hashes={a.hashes} bodies={a.bodies} seed=18\n"
    done = os.path.join(a.dir, ".complete")
    if os.path.exists(done) and open(done).read() == key:
        return 0
    os.makedirs(a.dir, exist_ok=True)
    for f in os.listdir(a.dir):
        os.unlink(os.path.join(a.dir, f))
    rnd = random.Random(18)
    nmd5 = a.hashes // 2
    with open(os.path.join(a.dir, "bench-random.hdb"), "w") as f:
        for i in range(nmd5):
            f.write(f"{rnd.getrandbits(128):032x}:{rnd.randint(64, 8 << 20)}:Dzbench.Hash.Md5-{i}\n")
    with open(os.path.join(a.dir, "bench-random.hsb"), "w") as f:
        for i in range(a.hashes - nmd5):
            f.write(f"{rnd.getrandbits(256):064x}:{rnd.randint(64, 8 << 20)}:Dzbench.Hash.Sha256-{i}\n")

    def hexbytes(n):
        return f"{rnd.getrandbits(8 * n):0{2 * n}x}"

    with open(os.path.join(a.dir, "bench-random.ndb"), "w") as f:
        for i in range(a.bodies):
            target = rnd.choice((0, 0, 0, 1, 6, 7))
            if i % 4:
                sig = hexbytes(rnd.randint(12, 40))
            else:
                kind = (i // 4) % 4
                left, right = hexbytes(rnd.randint(6, 16)), hexbytes(rnd.randint(6, 16))
                if kind == 0:
                    mid = "??" * rnd.randint(1, 4)
                elif kind == 1:
                    lo = rnd.randint(0, 8)
                    mid = f"{{{lo}-{lo + rnd.randint(1, 32)}}}"
                elif kind == 2:
                    mid = "*"
                else:
                    mid = f"({hexbytes(1)}|{hexbytes(1)})"
                sig = left + mid + right
            f.write(f"Dzbench.Body.Rand-{i}:{target}:*:{sig}\n")
    if a.test_db:
        for n in sorted(os.listdir(a.test_db)):
            shutil.copy(os.path.join(a.test_db, n), a.dir)
    with open(done, "w") as f:
        f.write(key)
    return 0


def candidates(maxb):
    """(kind, path) of every real file that may go into the corpus, sorted."""
    out = {k: [] for k in ("elf", "lib", "doc", "script", "archive")}

    def ok(p):
        try:
            st = os.stat(p, follow_symlinks=False)
        except OSError:
            return False
        import stat as S
        return S.S_ISREG(st.st_mode) and 0 < st.st_size <= maxb and os.access(p, os.R_OK)

    def head(p, n=4):
        try:
            with open(p, "rb") as f:
                return f.read(n)
        except OSError:
            return b""

    for d in ("/usr/bin", "/usr/sbin"):
        for n in sorted(os.listdir(d)):
            p = os.path.join(d, n)
            if ok(p):
                h = head(p)
                if h == b"\x7fELF":
                    out["elf"].append(p)
                elif h[:2] == b"#!":
                    out["script"].append(p)
    libdir = "/usr/lib/x86_64-linux-gnu"
    for n in sorted(os.listdir(libdir)):
        p = os.path.join(libdir, n)
        if ".so" in n and ok(p) and head(p) == b"\x7fELF":
            out["lib"].append(p)
    for root, dirs, files in os.walk("/usr/share/doc"):
        dirs.sort()
        for n in sorted(files):
            p = os.path.join(root, n)
            if n.endswith(".gz") and ok(p):
                out["doc"].append(p)
    for top, ext in (("/usr/lib/python3/dist-packages", ".py"), ("/usr/share/perl5", ".pm"),
                     ("/usr/share/perl", ".pm")):
        for root, dirs, files in os.walk(top):
            dirs.sort()
            for n in sorted(files):
                p = os.path.join(root, n)
                if n.endswith(ext) and ok(p) and os.path.getsize(p) >= 512:
                    out["script"].append(p)
    for root, dirs, files in os.walk("/usr"):
        dirs.sort()
        for n in sorted(files):
            if n.endswith((".jar", ".zip", ".whl")):
                p = os.path.join(root, n)
                if ok(p):
                    out["archive"].append(p)
    return out


def pick(lst, n):
    if n >= len(lst):
        return list(lst)
    return [lst[(i * len(lst)) // n] for i in range(n)]


def make_archives(n, maxb, start):
    """n archives (bytes) of /usr/share/doc package directories, tar.gz and zip."""
    pkgs = sorted(d for d in os.listdir("/usr/share/doc")
                  if os.path.isdir(os.path.join("/usr/share/doc", d)))
    out = []
    for i, pkg in enumerate(pick(pkgs[start::2], n)):
        d = os.path.join("/usr/share/doc", pkg)
        buf = io.BytesIO()
        if i % 2:
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
                for root, dirs, files in os.walk(d):
                    dirs.sort()
                    for f in sorted(files):
                        p = os.path.join(root, f)
                        if os.path.isfile(p) and os.access(p, os.R_OK):
                            z.write(p, os.path.relpath(p, "/usr/share/doc"))
            name = pkg + ".zip"
        else:
            with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.GNU_FORMAT) as t:
                t.add(d, arcname=pkg, filter=lambda ti: ti if ti.isreg() or ti.isdir() else None)
            name = pkg + ".tar.gz"
        data = buf.getvalue()
        if 0 < len(data) <= maxb:
            out.append((name, data))
    return out


def corpus(a):
    maxb = a.max_kb * 1024
    cands = candidates(maxb)
    kinds = list(cands)
    total = a.files + a.warmup
    per = {k: total // len(kinds) + (1 if i < total % len(kinds) else 0) for i, k in enumerate(kinds)}
    nbytes = nfiles = 0
    for k in kinds:
        want = per[k]
        if k == "archive":
            found = pick(cands[k], want // 3)
            made = make_archives(want - len(found), maxb, 0)
            items = [(os.path.basename(p), p) for p in found] + made
        else:
            items = [(os.path.basename(p), p) for p in pick(cands[k], want)]
        for i, (name, src) in enumerate(items):
            # every (len/warmup)-th file goes to the warm-up set
            warm = a.warmup and i % max(total // max(a.warmup, 1), 2) == 1
            sub = "warmup" if warm else "data"
            d = os.path.join(a.dir, sub, k)
            os.makedirs(d, exist_ok=True)
            dst = os.path.join(d, f"{i:05d}-{name}")
            if isinstance(src, bytes):
                with open(dst, "wb") as f:
                    f.write(src)
            else:
                shutil.copyfile(src, dst)
            if not warm:
                nfiles += 1
                nbytes += os.path.getsize(dst)
    print(f"files={nfiles} bytes={nbytes}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("db")
    d.add_argument("dir")
    d.add_argument("--hashes", type=int, default=1000000)
    d.add_argument("--bodies", type=int, default=100000)
    d.add_argument("--test-db")
    c = sub.add_parser("corpus")
    c.add_argument("dir")
    c.add_argument("--files", type=int, default=2000)
    c.add_argument("--max-kb", type=int, default=4096)
    c.add_argument("--warmup", type=int, default=100)
    a = ap.parse_args()
    return db(a) if a.cmd == "db" else corpus(a)


if __name__ == "__main__":
    sys.exit(main())
