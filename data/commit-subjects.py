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
       [--min-chars 3] [--users N] [--public]   (--public: write {"subject"} only, no user field)

--users N keeps the N users that come first in user-id order: the id is a hash, so that is a
uniform subsample, and the samples for N1 < N2 are nested (the utility-against-n runs of
docs/performance.md use 2,000 and 5,000 of each corpus).

--per-repo (the demo model's public corpus, data/commits/README.md): REPO=NAME arguments; per
repository, each author's oldest --max-per-author subjects, authors with at least
--min-per-author, in first-commit order, with {"source": NAME}; gzip mtime 0.
"""
import argparse
import collections
import gzip
import hashlib
import json
import os
import subprocess
import sys


def git_dir_args(repo):
    """`git -C` for a work tree, `--git-dir` for a bare repository."""
    bare = subprocess.run(["git", "--git-dir", repo, "rev-parse", "--is-bare-repository"],
                          capture_output=True, text=True)
    if bare.returncode == 0 and bare.stdout.strip() == "true":
        return ["git", "--git-dir", repo]
    return ["git", "-C", repo]


def commits(repo, oldest_first=False):
    """(e-mail, subject) of every non-merge commit reachable from HEAD, newest first unless asked."""
    # %x00 separates fields, %x1e ends a record: subjects may hold any other character.
    cmd = git_dir_args(repo) + ["log", "--no-merges", "--format=%ae%x00%s%x1e", "HEAD"]
    if oldest_first:
        cmd.insert(-2, "--reverse")
    out = subprocess.run(cmd, capture_output=True, check=True).stdout
    for rec in out.split(b"\x1e"):
        rec = rec.strip(b"\n")
        if not rec:
            continue
        email, _, subject = rec.partition(b"\x00")
        yield email.decode("utf-8", "replace"), subject.decode("utf-8", "replace")


def user_of(email):
    return hashlib.sha256(email.strip().lower().encode("utf-8")).hexdigest()[:16]


def per_repo(a):
    """The --per-repo layout: every repository its own authors, oldest subjects first."""
    lines = []
    for spec in a.repos:
        gitdir, _, name = spec.partition("=")
        if not os.path.isdir(gitdir):
            sys.exit("commit-subjects.py: %s is not a directory" % gitdir)
        by = collections.OrderedDict()
        for email, subject in commits(gitdir, oldest_first=True):
            subject = subject.strip()
            if email.strip() and subject:
                by.setdefault(email.strip().lower(), []).append(subject)
        kept = 0
        for email, subs in by.items():
            if len(subs) < a.min_per_author:
                continue
            for s in subs[: a.max_per_author]:
                lines.append(json.dumps({"user": user_of(email), "source": name or os.path.basename(gitdir),
                                         "subject": s}, ensure_ascii=False))
            kept += 1
        print("%s: %d authors kept of %d" % (gitdir, kept, len(by)), file=sys.stderr)
    with open(a.out, "wb") as f:
        with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, compresslevel=9) as g:
            g.write(("\n".join(lines) + "\n").encode("utf-8"))
    print("%s: %d subjects" % (a.out, len(lines)), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repos", nargs="+", help="git repositories (work trees or bare git dirs); REPO=NAME with --per-repo")
    ap.add_argument("--out", default="-", help="output JSONL (.gz compresses; default stdout)")
    ap.add_argument("--max-per-user", type=int, default=1000,
                    help="keep each user's first N subjects in history order (default 1000, "
                         "the records.max-per-user default)")
    ap.add_argument("--min-chars", type=int, default=3, help="drop shorter subjects (default 3)")
    ap.add_argument("--users", type=int, default=0,
                    help="keep N users (the first in hash order: a uniform, nested subsample; default all)")
    ap.add_argument("--public", action="store_true",
                    help="public side: subjects only, no user field")
    ap.add_argument("--per-repo", action="store_true", help="the demo model's public corpus layout (see above)")
    ap.add_argument("--max-per-author", type=int, default=40, help="--per-repo: each author's oldest N")
    ap.add_argument("--min-per-author", type=int, default=5, help="--per-repo: authors with at least N")
    a = ap.parse_args()
    if a.per_repo:
        if a.out == "-":
            sys.exit("commit-subjects.py: --per-repo needs --out FILE.jsonl.gz")
        per_repo(a)
        return
    by_user = collections.OrderedDict()
    for repo in a.repos:
        for email, subject in commits(repo):
            subject = subject.strip()
            if len(subject) < a.min_chars:
                continue
            by_user.setdefault(user_of(email), []).append(subject)
    opener = (lambda p: gzip.open(p, "wt", encoding="utf-8")) if a.out.endswith(".gz") else \
        (lambda p: open(p, "w", encoding="utf-8"))
    out = sys.stdout if a.out == "-" else opener(a.out)
    if a.users < 0:
        sys.exit("commit-subjects.py: --users must be >= 0 (0 keeps every user)")
    users = sorted(by_user)
    if a.users:
        if a.users > len(users):
            sys.exit("commit-subjects.py: --users %d but the history has %d users" % (a.users, len(users)))
        users = users[:a.users]
    records = 0
    for user in users:
        for subject in by_user[user][:a.max_per_user]:
            row = {"subject": subject} if a.public else {"user": user, "subject": subject}
            out.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
            records += 1
    if out is not sys.stdout:
        out.close()
    print(f"commit-subjects: {len(users)} users, {records} records", file=sys.stderr)


if __name__ == "__main__":
    main()
