"""The worker's shared randomness against docs/shared-randomness.md §6 and the Java sampler's votes."""
import json
import os
import unittest

import numpy as np

from hotpate_teacher import prf

HERE = os.path.dirname(os.path.abspath(__file__))


class PrfTest(unittest.TestCase):
    def test_step_seeds_and_teacher_keys_match_the_documented_vectors(self):
        self.assertEqual(prf.step_seed(42, "seq-0", 0, 0), 0x7c1fdb0c3099035b)
        self.assertEqual(prf.step_seed(42, "seq-0", 1, 0), 0xac0517bc1c9d9588)
        self.assertEqual(prf.step_seed(-1, "Ω-ü", 7, 3), 0x9d67eba534b4d33e)
        self.assertEqual(prf.teacher_key("t1"), 0x151a92b22ebbad4b)
        self.assertEqual(prf.teacher_key(0), 0xb9db33eb47d6736a)

    def test_vectorised_words_equal_the_reference_and_the_documented_words(self):
        documented = {(0, 0): 0x16554d9eca36314c, (0, 5): 0x3dd62b0b9ca8c5b2, (0, 127): 0xccb2f652b9b1347a,
                      (0, 128255): 0x997321dc02a1bf7e, (0x0123456789abcdef, 3): 0xa8ee5c5b8978b697,
                      (0x7c1fdb0c3099035b, 128255): 0x59119888215c4a45}
        for (seed, token), word in documented.items():
            self.assertEqual(prf.token_word(seed, token), word)
            self.assertEqual(int(prf.token_words(seed, token + 1)[token]), word)
        table = prf.exp1_table(0x7c1fdb0c3099035b, 1000)
        for t in (0, 1, 2, 3, 4, 5, 127, 998, 999):
            self.assertEqual(table[t], prf.to_exp1(prf.token_word(0x7c1fdb0c3099035b, t)))
        self.assertAlmostEqual(table[0], 0.28516459423955615, places=15)
        # a negative (signed Java long) seed is the same 64 bits
        neg = -7104450792367271106
        self.assertEqual(int(prf.token_words(neg, 9)[8]), prf.token_word(neg & prf.MASK, 8))

    def test_reference_votes_match_the_documented_ones(self):
        s = prf.step_seed(42, "seq-0", 0, 0)
        self.assertEqual(prf.vote({12: 0.41, 873: 0.2}, s, prf.teacher_key("t1")), 12)
        self.assertEqual(prf.vote({5: 0.5, 6: 0.5}, s, prf.teacher_key("t2")), 5)

    def test_votes_on_full_distributions_are_the_java_samplers(self):
        with open(os.path.join(HERE, "vectors", "coordinated_votes.json")) as f:
            cases = json.load(f)
        self.assertGreaterEqual(len(cases), 8)
        for c in cases:
            got = prf.coordinated_votes(np.array([c["probs"]]), c["seed"], [c["teacher"]])[0]
            self.assertEqual(got, c["vote"], c["name"])
            # and the scalar reference agrees on the same dense row
            ref = prf.vote(dict(enumerate(c["probs"])), c["seed"] & prf.MASK, prf.teacher_key(c["teacher"]))
            self.assertEqual(got, -1 if ref is None else ref, c["name"])

    def test_votes_in_torch_are_the_java_samplers_and_break_ties_to_the_smallest_token(self):
        import torch
        with open(os.path.join(HERE, "vectors", "coordinated_votes.json")) as f:
            cases = json.load(f)
        for c in cases:
            p = torch.tensor([c["probs"]], dtype=torch.float64)
            inv = prf.inverse_exp1_tensor(c["seed"], p.shape[1])
            self.assertEqual(prf.coordinated_votes_torch(p, inv, c["seed"], [c["teacher"]]), [c["vote"]], c["name"])
        # a tie of scores: the smallest token wins, whatever the position of the maxima
        inv = torch.tensor([1.0, 2.0, 1.0, 2.0], dtype=torch.float64)
        p = torch.tensor([[0.0, 0.25, 0.5, 0.25], [0.4, 0.2, 0.2, 0.2], [0.0, 0.0, 0.0, 0.0]], dtype=torch.float64)
        votes = prf.coordinated_votes_torch(p, inv, 1, [0, 1, 2])
        self.assertEqual(votes[:2], [1, 0])  # scores 0, .5, .5, .5 and .4, .4, .2, .4
        self.assertEqual(votes[2], -1)  # nothing listed: the residual abstains

    def test_a_broken_vote_rule_is_caught_by_the_vectors(self):
        """The vectors can fail: drawing with independent (uncoordinated) noise changes votes."""
        with open(os.path.join(HERE, "vectors", "coordinated_votes.json")) as f:
            cases = [c for c in json.load(f) if c["vote"] >= 0]
        wrong = 0
        for c in cases:
            p = np.array(c["probs"])
            broken = int(np.argmax(p / prf.exp1_table(c["seed"] + 1, len(p))))
            wrong += broken != c["vote"]
        self.assertGreater(wrong, len(cases) // 2)


if __name__ == "__main__":
    unittest.main()
