"""The worker's teachers: prompts from records, cached steps, votes equal to the reference rule
on the same distributions, bounded caches, the user→teacher maps of the Java UserDirectory."""
import os
import tempfile
import unittest

import numpy as np
import torch

from hotpate_teacher import bpe, llama, prf, train, worker

VEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors")


def tiny_model(vocab):
    torch.manual_seed(5)
    m = llama.Llama(llama.Config({"vocab_size": vocab, "hidden_size": 32, "intermediate_size": 48,
                                  "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                                  "tie_word_embeddings": True}))
    for p in m.parameters():
        torch.nn.init.normal_(p, std=0.3)
    return m.eval()


def step(seq, prefix, seed, vocab=600, prompt=(10, 11)):
    return {"runId": "r", "sequenceId": seq, "step": len(prefix), "attempt": 0, "prefix": list(prefix),
            "prompt": list(prompt), "publicSeed": seed, "randomnessVersion": 1, "vocabularySize": vocab,
            "deadlineMs": 0, "label": None}


class WorkerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tok = bpe.Tokenizer(os.path.join(VEC, "tokenizer.json"))
        cls.model = tiny_model(cls.tok.vocabulary_size)
        users = {"a@x": ["Re: New Sequences Window", "Re: exmh"], "b@y": ["[SAtalk] Compile error"],
                 "c@z": ["Re: New Sequences Window"]}
        tpl = train.TEMPLATE
        cls.heads = {t: cls.tok.encode(worker.fill(tpl, users[u], 4000, ""))
                     for u, t in worker.teacher_of_users(users).items()}

    def test_votes_are_the_reference_votes_of_each_teachers_distribution(self):
        ts = worker.Teachers(self.model, self.tok, self.heads, rows=2)
        seed = prf.step_seed(7, "r/0", 0, 0)
        answers = ts.answer(step(0, [], seed))
        self.assertEqual([a[0] for a in answers], [0, 1, 2])
        for t, kind, v in answers:
            ids = self.heads[t] + [10, 11]
            with torch.no_grad():
                logits = self.model(torch.tensor([ids]), torch.arange(len(ids))[None],
                                    torch.ones(1, len(ids), dtype=torch.bool))[0, -1]
            p = torch.softmax(logits.double(), -1).numpy()
            ref = prf.vote(dict(enumerate(p)), seed, prf.teacher_key(t))
            self.assertEqual(v, ref)

    def test_later_steps_use_the_cache_and_equal_a_fresh_prefill(self):
        seed = 12345
        cached = worker.Teachers(self.model, self.tok, self.heads, rows=3)
        cached.answer(step(0, [], 1))
        cached.answer(step(0, [40], 2))
        a = cached.answer(step(0, [40, 41, 42], seed))
        fresh = worker.Teachers(self.model, self.tok, self.heads, rows=1).answer(step(0, [40, 41, 42], seed))
        self.assertEqual(a, fresh)
        self.assertEqual(cached.seqs[("r", 0)][0], [10, 11, 40, 41, 42])

    def test_topk_answers_list_the_most_likely_tokens_and_leave_the_rest_unlisted(self):
        ts = worker.Teachers(self.model, self.tok, self.heads, answer="topk", top_k=5)
        (t, kind, (toks, probs)), *_ = ts.answer(step(0, [], 9))
        self.assertEqual(kind, "sparse")
        self.assertEqual(len(toks), 5)
        self.assertEqual(probs, sorted(probs, reverse=True))
        self.assertLess(sum(probs), 1.0)

    def test_caches_are_bounded_and_teachers_without_users_abstain(self):
        ts = worker.Teachers(self.model, self.tok, self.heads, max_sequences=2, empty=[3, 4])
        for s in range(5):
            out = ts.answer(step(s, [], s))
        self.assertEqual(list(ts.seqs), [("r", 3), ("r", 4)])
        self.assertEqual([(t, v) for t, _, v in out if t >= 3], [(3, -1), (4, -1)])
        self.assertGreater(ts.cache_bytes(), 0)

    def test_user_maps_follow_the_java_user_directory(self):
        users = {"b": [], "a": [], "ü": [], "Z": []}
        self.assertEqual(worker.teacher_of_users(users), {"Z": 0, "a": 1, "b": 2, "ü": 3})
        hashed = worker.teacher_of_users_hashed(users, 5, 1)
        self.assertTrue(all(0 <= t < 5 for t in hashed.values()))
        # the same users hash the same way whatever the order
        self.assertEqual(hashed, worker.teacher_of_users_hashed(dict(reversed(list(users.items()))), 5, 1))

    def test_a_vocabulary_larger_than_the_model_gives_zero_probability_past_it(self):
        ts = worker.Teachers(self.model, self.tok, self.heads, answer="topk", top_k=3)
        out = ts.answer(step(0, [], 1, vocab=700))
        for _, _, (toks, _) in out:
            self.assertTrue(all(t < 600 for t in toks))

    def test_read_users_skips_bad_lines(self):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            f.write('{"user": "a", "text": "x"}\nnot json\n{"user": "", "text": "y"}\n{"user": 5, "text": "z"}\n'
                    '{"user": "a", "text": ""}\n')
        try:
            self.assertEqual(dict(worker.read_users(f.name, "user", "text")), {"a": ["x"], "5": ["z"]})
        finally:
            os.remove(f.name)


if __name__ == "__main__":
    unittest.main()
