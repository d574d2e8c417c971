"""Does a model read its user? The prompt gain, in nats per token:

    python3 -m hotpate_teacher.promptgain --model DIR --records FILE [--user-field user]
        [--text-field subject] [--authors 300] [--k 4] [--targets 4] [--held-out]

For each author with at least k+1 records (file order, as the worker reads them), the teacher
prompt (the spec's template as the worker fills it) holds the author's first k records — what the
worker gives that author's teacher — and the author's later records, the (k+1)-th up to the
(k+targets)-th, are scored after it and after the first k records of another author (the next
one in a fixed order: a derangement, so no author is paired with itself). The scored tokens are
each record's tokens, the newline that ends a record (the demo's stop) and the end-of-text token.
Prints one JSON line: {authors, k, targets, scored (records scored), tokens, ownNatsPerToken, otherNatsPerToken, gain},
gain = other - own (> 0: the model's guess improves with its user's own records). --targets 1
scores the (k+1)-th record only (the figure before 2026-12-02: one target per author, a noisier
estimate of the same quantity).

--held-out keeps only the authors `held_out` sets aside (what train.py never trains on).
Measuring on a private corpus is operator-only: the figures are about the private records and
are not released through the mechanism; the output then says so (nothing is refused).
"""
import argparse
import hashlib
import json
import os
import sys

import torch

TEMPLATE = "Examples:\n{records}\n\nWrite one more in the same style.\n{prompt}"
MAX_PROMPT_CHARS = 4000  # the worker's default teacher.max-prompt-chars


def held_out(user):
    """One author in five, fixed by a hash of the author: never in training batches."""
    return int(hashlib.sha256(("hotpate/held-out/" + user).encode("utf-8")).hexdigest()[:8], 16) % 5 == 0


def clean(record):
    """A record as one line (the worker's fill puts each record on its own line)."""
    return record.replace("\n", " ").strip()


def example(tok, records, target, template=TEMPLATE):
    """(ids, first scored index): the worker's prompt for these records, then the target record,
    its newline and the end-of-text token. The prompt ids are exactly what the worker encodes."""
    from . import worker
    head = tok.encode(worker.fill(template, records, MAX_PROMPT_CHARS, ""))
    return head + tok.encode(clean(target) + "\n") + [tok.eos], len(head)


def pairs(users, k, authors):
    """[(own author, other author)]: authors with >= k+1 records in a fixed order (by a hash of
    the id), at most `authors`; each is paired with the next (cyclically)."""
    eligible = sorted((u for u, rs in users.items() if len(rs) >= k + 1),
                      key=lambda u: hashlib.sha256(u.encode("utf-8")).hexdigest())[:authors]
    if len(eligible) < 2:
        return []
    return [(u, eligible[(i + 1) % len(eligible)]) for i, u in enumerate(eligible)]


def nats(model, rows, batch=32):
    """Total nats and token count of rows [(ids, first scored index)] under model(ids, pos, mask):
    the logits at position j-1 score token j, for j from the first scored index to the end."""
    total, count = 0.0, 0
    for i in range(0, len(rows), batch):
        part = rows[i:i + batch]
        n = max(len(ids) for ids, _ in part)
        x = torch.zeros(len(part), n, dtype=torch.long)
        for r, (ids, _) in enumerate(part):
            x[r, :len(ids)] = torch.tensor(ids)  # right padding: causal rows never see it
        dev = next((p.device for p in model.parameters()), torch.device("cpu"))  # where its weights are
        with torch.no_grad():
            lp = torch.log_softmax(model(x.to(dev), torch.arange(n, device=dev)[None].expand(len(part), -1),
                                         torch.ones(len(part), n, dtype=torch.bool, device=dev)).double(), -1).cpu()
        for r, (ids, start) in enumerate(part):
            j = torch.arange(start, len(ids))
            total -= lp[r, j - 1, torch.tensor(ids[start:])].sum().item()
            count += len(ids) - start
    return total, count


def measure(model, tok, users, k=4, authors=300, targets=4):
    """The gain over each author's records k+1 .. k+targets (those it has), after its own first k
    records and after another author's."""
    if targets < 1:
        raise ValueError("targets must be >= 1")
    ps = pairs(users, k, authors)
    if not ps:
        raise ValueError("fewer than 2 authors with at least %d records" % (k + 1))
    scored = [(u, v, target) for u, v in ps for target in users[u][k:k + targets]]
    own = [example(tok, users[u][:k], target) for u, _, target in scored]
    other = [example(tok, users[v][:k], target) for _, v, target in scored]
    o, n = nats(model, own)
    x, m = nats(model, other)
    assert n == m
    return {"authors": len(ps), "k": k, "targets": targets, "scored": len(scored), "tokens": n,
            "ownNatsPerToken": round(o / n, 4), "otherNatsPerToken": round(x / n, 4), "gain": round((x - o) / n, 4)}


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m hotpate_teacher.promptgain", description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--records", required=True, help="JSONL(.gz) of per-user records")
    ap.add_argument("--user-field", default="user")
    ap.add_argument("--text-field", default="subject")
    ap.add_argument("--authors", type=int, default=300)
    ap.add_argument("--k", type=int, default=4, help="records in the prompt (the spec's teacher.max-records)")
    ap.add_argument("--targets", type=int, default=4, help="later records scored per author (1: the (k+1)-th only)")
    ap.add_argument("--held-out", action="store_true", help="only the authors train.py holds out")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    a = ap.parse_args(argv)
    from . import bpe, llama, worker
    if a.k < 1 or a.authors < 2 or a.targets < 1:
        sys.exit("hotpate_teacher.promptgain: --k and --targets must be >= 1 and --authors >= 2")
    torch.set_num_threads(a.threads)
    try:
        tok = bpe.Tokenizer(os.path.join(a.model, "tokenizer.json"))
        model = llama.load(a.model, a.device)
        users = worker.read_users(a.records, a.user_field, a.text_field)
    except (OSError, ValueError) as e:
        sys.exit("hotpate_teacher.promptgain: %s" % e)
    if a.held_out:
        users = {u: rs for u, rs in users.items() if held_out(u)}
    try:
        out = measure(model, tok, users, a.k, a.authors, a.targets)
    except ValueError as e:
        sys.exit("hotpate_teacher.promptgain: %s" % e)
    out["records"] = os.path.basename(a.records)
    out["heldOut"] = a.held_out
    if "private" in os.path.basename(a.records):
        out["note"] = "operator-only: measured on private records; not for publication through the mechanism"
    print(json.dumps(out))


if __name__ == "__main__":
    main()
