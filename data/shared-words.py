#!/usr/bin/env python3
"""How much text a per-user corpus shares: the words and word pairs written by at least a given
share of its users (a user counts once per word). docs/privacy-efficiency.md §0 ("The ceiling")
sets these counts against the threshold a run's budget affords.

usage: data/shared-words.py FILE.jsonl[.gz] [--user-field user] [--text-field subject]
"""
import argparse
import collections
import gzip
import json


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--user-field", default="user")
    ap.add_argument("--text-field", default="subject")
    ap.add_argument("--show", type=int, default=20, help="words and pairs to list (default 20)")
    a = ap.parse_args()
    opener = gzip.open if a.file.endswith(".gz") else open
    texts = collections.defaultdict(list)
    with opener(a.file, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                texts[str(r[a.user_field])].append(str(r[a.text_field]))
    users = len(texts)
    words = collections.Counter()
    pairs = collections.Counter()
    for recs in texts.values():
        ws, ps = set(), set()
        for t in recs:
            w = t.split()
            ws.update(w)
            ps.update(zip(w, w[1:]))
        words.update(ws)
        pairs.update(ps)
    print(f"{users} users")
    print("share of users  words  word pairs")
    for share in (0.25, 0.10, 0.05, 0.02):
        t = share * users
        nw = sum(1 for c in words.values() if c >= t)
        np_ = sum(1 for c in pairs.values() if c >= t)
        print(f"  >= {share:4.0%} ({t:6.0f})  {nw:5d}  {np_:5d}")
    print("words by >= 10%:", [w for w, c in words.most_common(a.show) if c >= 0.10 * users])
    print("pairs by >= 5%:", [" ".join(p) for p, c in pairs.most_common(a.show) if c >= 0.05 * users])


if __name__ == "__main__":
    main()
