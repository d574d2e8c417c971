"""The teacher worker: every teacher of its range answers every step of a run with a causal
language model conditioned on its own user's records (docs/llm-teachers.md).

Per sequence, the teachers' prompts (the spec's template filled with each user's records, then the
step's public prompt and released prefix) are prefilled once into left-padded batched KV caches
(`llama.Batch`, `rows` teachers per forward); each later step feeds only the newly released tokens,
the same for every teacher. Caches of sequences not asked for are evicted (LRU, at most
`max_sequences`). The answer is the coordinated vote drawn from the full next-token distribution
with the step's shared randomness (prf.coordinated_votes, ModelVote payload), or the top-k as a
sparse distribution whose unlisted mass abstains.
"""
import collections
import gzip
import json
import time

import numpy as np
import torch

from . import llama, prf


def read_users(path, user_field, text_field):
    """{user: [texts]} from a JSONL(.gz) file; lines without a string user or non-empty text are skipped."""
    users = collections.OrderedDict()
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    for line in raw.decode("utf-8", errors="strict").splitlines():
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if not isinstance(o, dict):
            continue
        u, t = o.get(user_field), o.get(text_field)
        if isinstance(u, (int, float, bool)) and not isinstance(u, bool):
            u = str(u)
        if not isinstance(u, str) or not u.strip() or not isinstance(t, str) or not t:
            continue
        users.setdefault(u, []).append(t)
    return users


def teacher_of_users(users):
    """Heterogeneous ensembles: teacher id = rank of the user id in the sorted distinct users (as
    the Java UserDirectory sorts: by UTF-16 code units)."""
    return {u: i for i, u in enumerate(sorted(users, key=lambda s: s.encode("utf-16-be")))}


def teacher_of_users_hashed(users, teachers, seed):
    """Homogeneous ensembles: teacher id = HMAC-SHA256(SHA-256("hotpate/user-to-teacher/" + seed),
    user) read as a signed 64-bit big-endian long, floor-mod n (the Java UserDirectory.hashed)."""
    import hashlib
    import hmac
    key = hashlib.sha256(("hotpate/user-to-teacher/%d" % seed).encode("utf-8")).digest()
    out = {}
    for u in users:
        h = int.from_bytes(hmac.new(key, u.encode("utf-8"), hashlib.sha256).digest()[:8], "big", signed=True)
        out[u] = h % teachers  # Python's % is a floor mod, as Math.floorMod
    return out


def fill(template, records, max_chars, label):
    """The template up to {prompt}: {records} one per line cut to max_chars, {label}
    (CompletionProtocol.fill on the Java side)."""
    rs = ""
    for r in records:
        line = r.replace("\n", " ")
        if len(rs) + len(line) + 1 > max_chars:
            rs += line[: max(0, max_chars - len(rs))]
            break
        rs += line + "\n"
    head = template.split("{prompt}")[0]
    return head.replace("{records}", rs.rstrip()).replace("{label}", label or "")


class Teachers:
    def __init__(self, model, tokenizer, heads, device="cpu", rows=64, max_sequences=16, answer="vote", top_k=64,
                 empty=(), temperature=1.0):
        """heads: {teacher_id: prompt ids before the public prompt}; empty: teachers without data
        (they abstain); temperature: the teachers sample from softmax(logits / temperature)."""
        self.temperature = temperature
        self.empty = list(empty)
        self.model, self.tok, self.device = model, tokenizer, device
        self.ids = sorted(heads)
        self.heads = heads
        self.rows, self.max_sequences = rows, max_sequences
        self.answer_kind, self.top_k = answer, top_k
        self.seqs = collections.OrderedDict()  # (run, seq) -> (history, [llama.Batch])
        self.steps_answered = 0

    def _batches(self, key, history):
        entry = self.seqs.get(key)
        if entry is not None and history[: len(entry[0])] == entry[0]:
            self.seqs.move_to_end(key)
            new = history[len(entry[0]):]
            logits = [b.append(new) for b in entry[1]]
            self.seqs[key] = (list(history), entry[1])
            return logits
        pad = self.tok.eos
        batches = []
        for i in range(0, len(self.ids), self.rows):
            chunk = self.ids[i:i + self.rows]
            batches.append(llama.Batch(self.model, [self.heads[t] + list(history) for t in chunk], self.device, pad))
        self.seqs[key] = (list(history), batches)
        while len(self.seqs) > self.max_sequences:  # bounded memory: least recently asked first
            self.seqs.popitem(last=False)
        return [b.last for b in batches]

    def answer(self, step):
        """[(teacher_id, kind, value)] for one step: kind 'vote' (token, -1 = abstain) or 'sparse'."""
        if step["randomnessVersion"] != prf.VERSION:
            raise ValueError("randomness version %d is not %d" % (step["randomnessVersion"], prf.VERSION))
        v = step["vocabularySize"]
        history = list(step["prompt"]) + list(step["prefix"])
        out = []
        if self.ids:
            out = self._model_answers(step, history, v)
        for t in self.empty:
            out.append((t, "vote", -1) if self.answer_kind == "vote" else (t, "sparse", ([], [])))
        self.steps_answered += 1
        return out

    def _model_answers(self, step, history, v):
        out = []
        logits = torch.cat(self._batches((step["runId"], step["sequenceId"]), history), 0)
        if logits.shape[1] >= v:
            logits = logits[:, :v]
        else:  # tokens the model does not have get probability 0
            logits = torch.cat([logits, torch.full((logits.shape[0], v - logits.shape[1]), float("-inf"),
                                                   device=logits.device)], 1)
        probs = torch.softmax(logits.double() / self.temperature, -1).cpu().numpy()
        if self.answer_kind == "vote":
            votes = prf.coordinated_votes(probs, step["publicSeed"], self.ids)
            out = [(t, "vote", votes[i]) for i, t in enumerate(self.ids)]
        else:
            k = min(self.top_k, v)
            idx = np.argsort(-probs, axis=1, kind="stable")[:, :k]
            for i, t in enumerate(self.ids):
                toks = [int(x) for x in idx[i]]
                out.append((t, "sparse", (toks, [float(probs[i, x]) for x in toks])))
        return out

    def cache_bytes(self):
        return sum(b.nbytes() for _, bs in self.seqs.values() for b in bs)


def serve(teachers, bootstrap, steps_topic, distributions_topic, run=None, group=None, log=print,
          stop_after_idle_s=None, verbose=False):
    from confluent_kafka import Consumer, Producer
    from . import wire
    cons = Consumer({"bootstrap.servers": bootstrap, "group.id": group or "hotpate-llm-%d" % id(teachers),
                     "isolation.level": "read_committed",
                     # from the start: a worker may join before the run; steps past their deadline
                     # are skipped below, so old steps cost a decode each, nothing more
                     "auto.offset.reset": "earliest", "enable.auto.commit": True,
                     # the run creates its topics after the worker subscribes: notice them soon
                     "topic.metadata.refresh.interval.ms": 2000, "log_level": 3})
    prod = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 5, "log_level": 3})
    cons.subscribe([steps_topic])
    idle_since = time.time()
    answered = 0
    started = None
    try:
        while True:
            msg = cons.poll(0.5)
            if msg is None or msg.error():
                if stop_after_idle_s and time.time() - idle_since > stop_after_idle_s:
                    break
                continue
            idle_since = time.time()
            try:
                step = wire.decode_step(msg.value())
            except (ValueError, IndexError) as e:
                log("skipping a record: %s" % e)
                continue
            if run and step["runId"] != run:
                continue
            if step["deadlineMs"] < time.time() * 1000:
                continue  # closed already: answering would only land in rejected
            started = started or time.time()
            now = int(time.time() * 1000)
            out = teachers.answer(step)
            for t, kind, value in out:
                if kind == "vote":
                    b = wire.encode_model_vote(step, t, value, step["randomnessVersion"], now)
                else:
                    b = wire.encode_sparse(step, t, value[0], value[1], now)
                prod.produce(distributions_topic, key=str(t).encode(), value=b)
            prod.poll(0)
            answered += len(teachers.ids) + len(teachers.empty)
            if verbose:
                top = collections.Counter(v for _, k, v in out if k == "vote").most_common(1)
                log("step %d/%d/%d: %s" % (step["sequenceId"], step["step"], step["attempt"],
                                           "top vote %d x%d" % top[0] if top else "sparse answers"))
            if teachers.steps_answered % 20 == 0:
                el = time.time() - started
                log("hotpate_teacher: %d steps, %d teacher answers, %.1f teacher-steps/s, cache %.1f MB"
                    % (teachers.steps_answered, answered, answered / max(el, 1e-9), teachers.cache_bytes() / 1e6))
    finally:
        prod.flush()
        cons.close()
    return answered
