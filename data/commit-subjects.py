#!/usr/bin/env python3
"""Per-author commit subjects from local git directories, as public per-user text for the demo model.

    python3 data/commit-subjects.py --out data/commits/public-commits.jsonl.gz GITDIR[=NAME] ...

One JSON line per commit, {"user": sha256(author email)[:16], "source": NAME, "subject": ...}, oldest
first within a repository (`git log --no-merges --reverse`), at most --max-per-author (the author's
oldest) and only authors with at least --min-per-author commits. Standard library and git only.
The output is deterministic for the same histories (gzip mtime 0).
"""
import argparse
import collections
import gzip
import hashlib
import json
import os
import subprocess
import sys


def subjects(gitdir):
    out = subprocess.run(["git", "--git-dir", gitdir, "log", "--no-merges", "--reverse", "--format=%ae%x00%s"],
                         check=True, capture_output=True).stdout.decode("utf-8", errors="replace")
    for line in out.splitlines():
        email, _, subject = line.partition("\0")
        subject = subject.strip()
        if email and subject:
            yield email.strip().lower(), subject


def main(argv=None):
    ap = argparse.ArgumentParser(prog="commit-subjects.py")
    ap.add_argument("gitdirs", nargs="+", help="GITDIR or GITDIR=NAME (NAME goes into each line's source)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-per-author", type=int, default=40)
    ap.add_argument("--min-per-author", type=int, default=5)
    a = ap.parse_args(argv)
    lines = []
    for spec in a.gitdirs:
        gitdir, _, name = spec.partition("=")
        if not os.path.isdir(gitdir):
            sys.exit("commit-subjects.py: %s is not a directory" % gitdir)
        by = collections.OrderedDict()
        for email, subject in subjects(gitdir):
            by.setdefault(email, []).append(subject)
        kept = 0
        for email, subs in by.items():
            if len(subs) < a.min_per_author:
                continue
            user = hashlib.sha256(email.encode("utf-8")).hexdigest()[:16]
            for s in subs[: a.max_per_author]:
                lines.append(json.dumps({"user": user, "source": name or os.path.basename(gitdir), "subject": s},
                                        ensure_ascii=False))
            kept += 1
        print("%s: %d authors kept of %d" % (gitdir, kept, len(by)), file=sys.stderr)
    with open(a.out, "wb") as f:
        with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, compresslevel=9) as g:
            g.write(("\n".join(lines) + "\n").encode("utf-8"))
    print("%s: %d subjects" % (a.out, len(lines)), file=sys.stderr)


if __name__ == "__main__":
    main()
