"""The teacher worker: every teacher of its range answers every step of a run with a causal
language model conditioned on its own user's records (docs/llm-teachers.md).

Each teacher's head (the spec's template filled with its users' records) is prefilled once into the
prompt KV cache shared by all sequences (`decode.Heads`); per sequence, the history (the step's
public prompt and released prefix, the same for every teacher) goes into a preallocated cache
(`decode.Sequence`), and each later step feeds only the newly released tokens. The steps of several
sequences that arrive together run in one forward (`Teachers.answer_many`). Caches of sequences not
asked for are evicted least recently asked first once they pass `cache_bytes`. The answer is the
coordinated vote drawn from the full next-token distribution with the step's shared randomness
(prf.coordinated_votes_torch, ModelVote payload), or the top-k as a sparse distribution whose
unlisted mass abstains.
"""
import collections
import gzip
import json
import time
from dataclasses import dataclass
from typing import Dict, Iterable, List, Sequence, Tuple, Union

import torch

from . import decode, llama, prf


@dataclass(frozen=True)
class Vote:
    """A ModelVote: the teacher's coordinated vote (-1 = abstain)."""
    teacher: int
    token: int


@dataclass(frozen=True)
class Sparse:
    """SparseProbabilities: probs[i] on tokens[i]; the unlisted mass abstains."""
    teacher: int
    tokens: List[int]
    probs: List[float]


Answer = Union[Vote, Sparse]


def read_users(path, user_field, text_field, every_user=False):
    """{user: [texts]} from a JSONL(.gz) file; lines without a string user or non-empty text are skipped.
    every_user: a user whose lines have no usable text is kept with no texts — the job's n counts
    every user id present, valid records or not (such a teacher abstains)."""
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
        if not isinstance(u, str) or not u.strip():
            continue
        if not isinstance(t, str) or not t:
            if every_user:
                users.setdefault(u, [])
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
    def __init__(self, model: llama.Llama, tokenizer, heads: Dict[int, List[int]], device="cpu", rows: int = 64,
                 cache_bytes: int = 1 << 30, answer: str = "vote", top_k: int = 64, empty: Iterable[int] = (),
                 temperature: float = 1.0):
        """heads: {teacher_id: prompt ids before the public prompt}; empty: teachers without data
        (they abstain); temperature: the teachers sample from softmax(logits / temperature);
        cache_bytes: the sequences' KV caches kept (the prompt cache is extra, and the sequences
        of the step being answered are kept whatever their size)."""
        self.temperature = temperature
        self.empty = list(empty)
        self.model, self.tok, self.device = model, tokenizer, device
        self.ids = sorted(heads)
        self.rows, self.cache_limit = rows, cache_bytes
        self.answer_kind, self.top_k = answer, top_k
        self.engine = decode.Engine(model, device)
        self.prompts = decode.Heads(model, [heads[t] for t in self.ids], device, rows, tokenizer.eos) if self.ids else None
        self.dtype = next(model.parameters()).dtype
        self.seqs: "collections.OrderedDict[Tuple[str, int], decode.Sequence]" = collections.OrderedDict()
        self.steps_answered = 0

    def answer(self, step: dict) -> List[Answer]:
        """One answer per teacher (teachers with data in id order, then those without)."""
        return self.answer_many([step])[0]

    def answer_many(self, steps: Sequence[dict]) -> List[List[Answer]]:
        """The answers of several steps; steps of different sequences share each forward."""
        for st in steps:
            if st["randomnessVersion"] != prf.VERSION:
                raise ValueError("randomness version %d is not %d" % (st["randomnessVersion"], prf.VERSION))
        out: List[List[Answer]] = [[] for _ in steps]
        pending = list(range(len(steps)))
        while pending:  # one step per sequence in a forward; a second step of one waits a round
            now, later, seen = [], [], set()
            for i in pending:
                key = (steps[i]["runId"], steps[i]["sequenceId"])
                (later if key in seen else now).append(i)
                seen.add(key)
            model_answers = self._round([steps[i] for i in now]) if self.ids else [[] for _ in now]
            for i, a in zip(now, model_answers):
                if self.answer_kind == "vote":
                    a.extend(Vote(t, -1) for t in self.empty)
                else:
                    a.extend(Sparse(t, [], []) for t in self.empty)
                out[i] = a
                self.steps_answered += 1
            pending = later
        return out

    def _round(self, steps: List[dict]) -> List[List[Answer]]:
        n = len(self.ids)
        groups, seqs = [], []
        for st in steps:
            key = (st["runId"], st["sequenceId"])
            history = list(st["prompt"]) + list(st["prefix"])
            seq = self.seqs.get(key)
            if seq is None or history[:len(seq.history)] != seq.history:
                seq = decode.Sequence(self.model, n, self.device, self.dtype)
                self.seqs[key] = seq
            self.seqs.move_to_end(key)
            new = history[len(seq.history):]
            if new:
                seq.reserve(seq.length + len(new))
                groups.append((seq, new))
            seqs.append((seq, history))
        self._evict({id(s) for s, _ in seqs})
        if groups:
            hidden = [self.engine.forward(self.prompts, groups, r0, min(n, r0 + self.rows))
                      for r0 in range(0, n, self.rows)]
            for g, (seq, new) in enumerate(groups):
                seq.last_hidden = torch.cat([h[g] for h in hidden]) if len(hidden) > 1 else hidden[0][g]
                seq.length += len(new)
        answers = []
        for st, (seq, history) in zip(steps, seqs):
            seq.history = history
            hidden = seq.last_hidden if history else self.prompts.last_hidden
            answers.append(self._answers(st, hidden))
        return answers

    def _evict(self, keep) -> None:
        """Least recently asked first, down to cache_limit; never a sequence of the current round."""
        total = sum(s.nbytes() for s in self.seqs.values())
        for key in list(self.seqs):
            if total <= self.cache_limit:
                break
            if id(self.seqs[key]) not in keep:
                total -= self.seqs.pop(key).nbytes()

    def _answers(self, step: dict, hidden: torch.Tensor) -> List[Answer]:
        v = step["vocabularySize"]
        out: List[Answer] = []
        inv = None
        for r0 in range(0, len(self.ids), self.rows):  # [rows, V] at a time: bounded memory
            ids = self.ids[r0:r0 + self.rows]
            logits = self.engine.logits(hidden[r0:r0 + self.rows])
            if logits.shape[1] >= v:
                logits = logits[:, :v]
            else:  # tokens the model does not have get probability 0
                logits = torch.cat([logits, torch.full((logits.shape[0], v - logits.shape[1]), float("-inf"),
                                                       device=logits.device)], 1)
            logits = logits.double()
            probs = torch.softmax(logits if self.temperature == 1.0 else logits / self.temperature, -1)
            if self.answer_kind == "vote":
                if inv is None:
                    inv = prf.inverse_exp1_tensor(step["publicSeed"], v, probs.device)
                votes = prf.coordinated_votes_torch(probs, inv, step["publicSeed"], ids)
                out.extend(Vote(t, b) for t, b in zip(ids, votes))
            else:
                top = torch.topk(probs, min(self.top_k, v), dim=1)
                for t, toks, ps in zip(ids, top.indices.tolist(), top.values.tolist()):
                    out.append(Sparse(t, toks, ps))
        return out

    def cache_bytes(self) -> int:
        return sum(s.nbytes() for s in self.seqs.values())


def serve(teachers: Teachers, bootstrap: str, steps_topic: str, distributions_topic: str, run=None, group=None,
          log=print, stop_after_idle_s=None, verbose=False, batch=64) -> int:
    """Answers the steps read from Kafka; the steps that arrive together (up to `batch`, one poll)
    are answered together, so sequences in flight share each forward."""
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
    logged = 0
    try:
        while True:
            msgs = [m for m in cons.consume(batch, 0.5) if not m.error()]
            if not msgs:
                if stop_after_idle_s and time.time() - idle_since > stop_after_idle_s:
                    break
                continue
            idle_since = time.time()
            steps = []
            for msg in msgs:
                try:
                    st = wire.decode_step(msg.value())
                except (ValueError, IndexError) as e:
                    log("skipping a record: %s" % e)
                    continue
                if run and st["runId"] != run:
                    continue
                if st["deadlineMs"] < time.time() * 1000:
                    continue  # closed already: answering would only land in rejected
                steps.append(st)
            if not steps:
                continue
            started = started or time.time()
            now = int(time.time() * 1000)
            for st, out in zip(steps, teachers.answer_many(steps)):
                for a in out:
                    if isinstance(a, Vote):
                        b = wire.encode_model_vote(st, a.teacher, a.token, st["randomnessVersion"], now)
                    else:
                        b = wire.encode_sparse(st, a.teacher, a.tokens, a.probs, now)
                    prod.produce(distributions_topic, key=str(a.teacher).encode(), value=b)
                answered += len(out)
                if verbose:
                    top = collections.Counter(a.token for a in out if isinstance(a, Vote)).most_common(1)
                    log("step %d/%d/%d: %s" % (st["sequenceId"], st["step"], st["attempt"],
                                               "top vote %d x%d" % top[0] if top else "sparse answers"))
            prod.poll(0)
            if teachers.steps_answered - logged >= 20:
                logged = teachers.steps_answered
                el = time.time() - started
                log("hotpate_teacher: %d steps, %d teacher answers, %.1f teacher-steps/s, cache %.1f MB"
                    % (teachers.steps_answered, answered, answered / max(el, 1e-9), teachers.cache_bytes() / 1e6))
    finally:
        prod.flush()
        cons.close()
    return answered
