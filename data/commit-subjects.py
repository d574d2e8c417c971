#!/usr/bin/env python3
"""Commit subjects by author, as per-user JSONL records: {"user": <hash>, "subject": <first line>}.

Turns the history of any local git repository (a work tree or a bare git dir; several may be
given, and an author who committed to two of them is one user) into a records file for
`records.file` with `records.user-field: user` and `records.text-field: subject`. The user is the
first 16 hex digits of SHA-256(lower-cased author e-mail) — no e-mail or name leaves the script;
the subjects themselves are kept as written, so the output of a private repository is private
data (keep it out of any public place). Merge commits are skipped (their subjects are made by the
tool, not the author). Records are written sorted by (user, subject order in history) so that
the same history always gives the same bytes. docs/records.md §"Corpora at 10^4 users" shows
how the corpora measured in docs/performance.md were rebuilt.

usage: data/commit-subjects.py REPO [REPO ...] [--out FILE.jsonl[.gz]] [--max-per-user N]
       [--min-chars 3] [--public]   (--public: write {"subject"} only, no user field)
"""
import argparse
import collections
import gzip
import hashlib
import subprocess
import sys
import json


def git_dir_args(repo):
    """`git -C` for a work tree, `--git-dir` for a bare repository."""
    bare = subprocess.run(["git", "--git-dir", repo, "rev-parse", "--is-bare-repository"],
                          capture_output=True, text=True)
    if bare.returncode == 0 and bare.stdout.strip() == "true":
        return ["git", "--git-dir", repo]
    return ["git", "-C", repo]


def commits(repo):
    # %x00 separates fields, %x1e ends a record: subjects may hold any other character.
    cmd = git_dir_args(repo) + ["log", "--no-merges", "--format=%ae%x00%s%x1e", "HEAD"]
    out = subprocess.run(cmd, capture_output=True, check=True).stdout
    for rec in out.split(b"\x1e"):
        rec = rec.strip(b"\n")
        if not rec:
            continue
        email, _, subject = rec.partition(b"\x00")
        yield email.decode("utf-8", "replace"), subject.decode("utf-8", "replace")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repos", nargs="+", help="git repositories (work trees or bare git dirs)")
    ap.add_argument("--out", default="-", help="output JSONL (.gz compresses; default stdout)")
    ap.add_argument("--max-per-user", type=int, default=1000,
                    help="keep each user's first N subjects in history order (default 1000, "
                         "the records.max-per-user default)")
    ap.add_argument("--min-chars", type=int, default=3, help="drop shorter subjects (default 3)")
    ap.add_argument("--public", action="store_true",
                    help="public side: subjects only, no user field")
    a = ap.parse_args()
    by_user = collections.OrderedDict()
    for repo in a.repos:
        for email, subject in commits(repo):
            subject = subject.strip()
            if len(subject) < a.min_chars:
                continue
            user = hashlib.sha256(email.strip().lower().encode("utf-8")).hexdigest()[:16]
            by_user.setdefault(user, []).append(subject)
    opener = (lambda p: gzip.open(p, "wt", encoding="utf-8")) if a.out.endswith(".gz") else \
        (lambda p: open(p, "w", encoding="utf-8"))
    out = sys.stdout if a.out == "-" else opener(a.out)
    records = 0
    for user in sorted(by_user):
        for subject in by_user[user][:a.max_per_user]:
            row = {"subject": subject} if a.public else {"user": user, "subject": subject}
            out.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
            records += 1
    if out is not sys.stdout:
        out.close()
    print(f"commit-subjects: {len(by_user)} users, {records} records", file=sys.stderr)


if __name__ == "__main__":
    main()
