"""The worker's teachers: every teacher's distribution equals an independent reference forward of
its own prompt (peaked distributions that differ per teacher, so a swap, a wrong head grouping, a
cache that missed a token or a wrong temperature shows); votes equal the reference rule; several
sequences answered together equal each alone; caches bounded in bytes; the user→teacher maps
equal the Java UserDirectory's on shared vectors."""
import json
import os
import tempfile
import unittest

import numpy as np
import torch

from hotpate_teacher import bpe, llama, prf, train, worker
from tests.reference import reference_logits, softmax

VEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors")


def peaked_model(vocab, kv_heads=2):
    """Untied, large weights: sharp attention and logits, so each teacher's prompt matters."""
    torch.manual_seed(5)
    m = llama.Llama(llama.Config({"vocab_size": vocab, "hidden_size": 32, "intermediate_size": 48,
                                  "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": kv_heads,
                                  "tie_word_embeddings": False}))
    for n, p in m.named_parameters():
        torch.nn.init.normal_(p, std=2.0 if "lm_head" in n else 1.0 if "embed" in n else 0.8)
    return m.eval()


def step(seq, prefix, seed, vocab=600, prompt=(10, 11), run="r"):
    return {"runId": run, "sequenceId": seq, "step": len(prefix), "attempt": 0, "prefix": list(prefix),
            "prompt": list(prompt), "publicSeed": seed, "randomnessVersion": 1, "vocabularySize": vocab,
            "deadlineMs": 0, "label": None}


class WorkerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tok = bpe.Tokenizer(os.path.join(VEC, "tokenizer.json"))
        cls.model = peaked_model(cls.tok.vocabulary_size)
        users = {"a@x": ["Re: New Sequences Window", "Re: exmh"], "b@y": ["[SAtalk] Compile error"],
                 "c@z": ["Re: New Sequences Window"], "d@w": ["Re: hello"]}
        cls.heads = {t: cls.tok.encode(worker.fill(train.TEMPLATE, users[u], 4000, ""))
                     for u, t in worker.teacher_of_users(users).items()}

    def reference(self, t, history, temperature=1.0):
        return softmax(reference_logits(self.model, self.heads[t] + list(history))[-1], temperature)

    def full_distributions(self, ts, st):
        out = {}
        for a in ts.answer(st):
            p = np.zeros(st["vocabularySize"])
            p[a.tokens] = a.probs
            out[a.teacher] = p
        return out

    def test_each_teachers_distribution_is_the_reference_forward_of_its_own_prompt(self):
        for temperature in (1.0, 0.6):
            ts = worker.Teachers(self.model, self.tok, self.heads, rows=3, answer="topk", top_k=600,
                                 temperature=temperature)
            # a first step, three tokens at once, then one: the cache must hold every released token
            for prefix in ([], [40, 41, 42], [40, 41, 42, 43]):
                got = self.full_distributions(ts, step(0, prefix, 1))
                self.assertEqual(sorted(got), [0, 1, 2, 3])
                for t, p in got.items():
                    ref = self.reference(t, [10, 11] + prefix, temperature)
                    self.assertLess(np.abs(p - ref).max(), 1e-3, (temperature, prefix, t))
        # the guard: the teachers' distributions are peaked and differ, so a swap of rows shows
        refs = [self.reference(t, [10, 11]) for t in range(4)]
        self.assertGreater(min(r.max() for r in refs), 0.3)
        for i in range(4):
            for j in range(i):
                self.assertGreater(np.abs(refs[i] - refs[j]).max(), 0.03)

    def test_a_multi_query_model_like_the_demo_models_is_the_reference_forward(self):
        # one KV head for 4 query heads: a decode step has 4 query rows per KV head, which take the
        # matrix products rather than the broadcast (decode._FEW); multi-token steps as well
        model = peaked_model(self.tok.vocabulary_size, kv_heads=1)
        ts = worker.Teachers(model, self.tok, self.heads, rows=3, answer="topk", top_k=600)
        for prefix in ([], [40], [40, 41, 42], [40, 41, 42, 43]):
            got = self.full_distributions(ts, step(0, prefix, 1))
            for t, p in got.items():
                ref = softmax(reference_logits(model, self.heads[t] + [10, 11] + prefix)[-1], 1.0)
                self.assertLess(np.abs(p - ref).max(), 1e-3, (prefix, t))
        # the guard: peaked, and each teacher's distribution its own
        refs = [softmax(reference_logits(model, self.heads[t] + [10, 11])[-1], 1.0) for t in range(4)]
        self.assertGreater(min(r.max() for r in refs), 0.1)
        for i in range(4):
            for j in range(i):
                self.assertGreater(np.abs(refs[i] - refs[j]).max(), 0.03)

    def test_votes_are_the_reference_votes_of_each_teachers_distribution(self):
        ts = worker.Teachers(self.model, self.tok, self.heads, rows=2)
        votes = set()
        for s in range(4):
            seed = prf.step_seed(7, "r/0", s, 0)
            prefix = [40 + i for i in range(s)]
            answers = ts.answer(step(0, prefix, seed))
            self.assertEqual([a.teacher for a in answers], [0, 1, 2, 3])
            for a in answers:
                p = self.reference(a.teacher, [10, 11] + prefix)
                ref = prf.vote(dict(enumerate(p)), seed, prf.teacher_key(a.teacher))
                self.assertEqual(a, worker.Vote(a.teacher, ref))
                votes.add(a.token)
        self.assertGreater(len(votes), 3, "the teachers vote differently")

    def test_sequences_answered_together_equal_each_alone_and_a_fresh_prefill(self):
        together = worker.Teachers(self.model, self.tok, self.heads, rows=3, answer="topk", top_k=5)
        alone = worker.Teachers(self.model, self.tok, self.heads, rows=4, answer="topk", top_k=5)
        steps = [step(0, [], 1), step(1, [50], 2, prompt=(12,)), step(0, [40], 3), step(1, [50, 51, 52], 4, prompt=(12,)),
                 step(2, [], 5, prompt=())]
        got = together.answer_many(steps)  # two steps of sequence 0: answered in two rounds
        for st, g in zip(steps, got):
            for x, y in zip(g, alone.answer(st)):
                self.assertEqual(x.teacher, y.teacher)
                self.assertEqual(x.tokens, y.tokens)
                np.testing.assert_allclose(x.probs, y.probs, rtol=1e-4, atol=1e-6)
        fresh = worker.Teachers(self.model, self.tok, self.heads, rows=1, answer="topk", top_k=5)
        for x, y in zip(got[3], fresh.answer(steps[3])):
            self.assertEqual(x.tokens, y.tokens)
        self.assertEqual(together.seqs[("r", 0)].history, [10, 11, 40])
        self.assertEqual(together.seqs[("r", 2)].history, [])

    def test_topk_answers_list_the_most_likely_tokens_and_leave_the_rest_unlisted(self):
        ts = worker.Teachers(self.model, self.tok, self.heads, answer="topk", top_k=5)
        a = ts.answer(step(0, [], 9))[0]
        self.assertIsInstance(a, worker.Sparse)
        self.assertEqual(len(a.tokens), 5)
        self.assertEqual(a.probs, sorted(a.probs, reverse=True))
        self.assertLess(sum(a.probs), 1.0)

    def test_caches_are_bounded_in_bytes_and_teachers_without_users_abstain(self):
        one = worker.Teachers(self.model, self.tok, self.heads, empty=[4, 5])
        one.answer(step(0, [], 0))
        per_seq = one.cache_bytes()
        ts = worker.Teachers(self.model, self.tok, self.heads, cache_bytes=2 * per_seq, empty=[4, 5])
        for s in range(5):
            out = ts.answer(step(s, [], s))
        self.assertEqual(list(ts.seqs), [("r", 3), ("r", 4)])
        self.assertEqual(ts.cache_bytes(), 2 * per_seq)
        self.assertEqual([a for a in out if a.teacher >= 4], [worker.Vote(4, -1), worker.Vote(5, -1)])

    def test_user_maps_are_the_java_user_directorys_on_the_shared_vectors(self):
        with open(os.path.join(VEC, "user_to_teacher.json"), encoding="utf-8") as f:
            v = json.load(f)
        for c in v["hashed"]:
            self.assertEqual(worker.teacher_of_users_hashed([c["user"]], c["teachers"], c["seed"]),
                             {c["user"]: c["teacher"]}, c)
        ranks = worker.teacher_of_users(v["perUser"]["users"])
        self.assertEqual([u for u, _ in sorted(ranks.items(), key=lambda kv: kv[1])], v["perUser"]["byRank"])

    def test_a_vocabulary_larger_than_the_model_gives_zero_probability_past_it(self):
        ts = worker.Teachers(self.model, self.tok, self.heads, answer="topk", top_k=700)
        for a in ts.answer(step(0, [], 1, vocab=700)):
            self.assertEqual(a.probs[600:], [0.0] * 100)
            self.assertTrue(all(t < 600 for t, p in zip(a.tokens, a.probs) if p > 0))

    def test_read_users_skips_bad_lines(self):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            f.write('{"user": "a", "text": "x"}\nnot json\n{"user": "", "text": "y"}\n{"user": 5, "text": "z"}\n'
                    '{"user": "a", "text": ""}\n')
        try:
            self.assertEqual(dict(worker.read_users(f.name, "user", "text")), {"a": ["x"], "5": ["z"]})
        finally:
            os.remove(f.name)

    def test_every_user_counts_users_without_text_as_the_job_does(self):
        # the job's n is every user id present, valid records or not; such a teacher abstains
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            f.write('{"user": "a", "text": "x"}\n{"user": "b", "text": ""}\n{"user": "c"}\n{"text": "y"}\n')
        try:
            users = worker.read_users(f.name, "user", "text", every_user=True)
            self.assertEqual(dict(users), {"a": ["x"], "b": [], "c": []})
            self.assertEqual(worker.teacher_of_users(users), {"a": 0, "b": 1, "c": 2})
        finally:
            os.remove(f.name)


if __name__ == "__main__":
    unittest.main()
