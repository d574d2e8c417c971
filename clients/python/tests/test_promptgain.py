"""The prompt gain: own and other records in the right places, the target's tokens scored by the
logits one position before them, and the operator-only note on a private file."""
import contextlib
import io
import json
import math
import os
import shutil
import tempfile
import unittest

import torch

from hotpate_teacher import bpe, llama, promptgain

VEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors")
V = 129  # 128 ASCII characters and the end-of-text token
COPY = 3.0


class CharTokenizer:
    eos = 128
    vocabulary_size = V

    def encode(self, s):
        return [ord(c) for c in s]


class CopyModel(torch.nn.Module):
    """Logit COPY for every token already in the row up to and including position t, 0 otherwise:
    a model that reads its prompt, with probabilities known in closed form (no parameters: it
    scores on the CPU)."""

    def forward(self, ids, pos, mask):
        b, t = ids.shape
        seen = torch.zeros(b, t, V)
        for r in range(b):
            for j in range(t):
                seen[r, j:, ids[r, j]] = 1.0
        return seen * COPY


def z(seen):
    return seen * math.exp(COPY) + (V - seen)


class PromptGainTest(unittest.TestCase):
    def test_own_and_other_nats_equal_the_closed_form(self):
        # 'z', 'q', 'j', 'k' are not in the template: only the records bring them into the prompt
        users = {"a": ["zq"] * 5, "b": ["jk"] * 5}
        r = promptgain.measure(CopyModel(), CharTokenizer(), users, k=4, authors=10)
        s = len(set(promptgain.example(CharTokenizer(), ["zq"] * 4, "zq")[0][:-4]))  # tokens in one prompt
        # own: z, q, newline seen in the prompt; end-of-text never seen
        own = (3 * (math.log(z(s)) - COPY) + math.log(z(s))) / 4
        # other: z unseen, q unseen (z now seen), newline seen, end-of-text unseen
        other = (math.log(z(s)) + math.log(z(s + 1)) + (math.log(z(s + 2)) - COPY) + math.log(z(s + 2))) / 4
        self.assertEqual(r["authors"], 2)
        self.assertEqual(r["tokens"], 8)
        self.assertAlmostEqual(r["ownNatsPerToken"], own, places=3)
        self.assertAlmostEqual(r["otherNatsPerToken"], other, places=3)
        self.assertAlmostEqual(r["gain"], other - own, places=3)
        self.assertGreater(r["gain"], 1.0)

    def test_later_records_are_scored_after_the_same_first_k(self):
        # records 5 and 6 of each author are the targets; the prompts stay the first 4 records
        users = {"a": ["zq"] * 5 + ["zz", "never"], "b": ["jk"] * 5 + ["jj", "never"]}
        r = promptgain.measure(CopyModel(), CharTokenizer(), users, k=4, authors=10, targets=2)
        s = len(set(promptgain.example(CharTokenizer(), ["zq"] * 4, "zq")[0][:-4]))
        own = (3 * (math.log(z(s)) - COPY) + math.log(z(s))) / 4  # either target: every record token seen
        other_zq = (math.log(z(s)) + math.log(z(s + 1)) + (math.log(z(s + 2)) - COPY) + math.log(z(s + 2))) / 4
        # "zz": z unseen, then z and the newline seen, end-of-text unseen (one new token only)
        other_zz = (math.log(z(s)) + 2 * (math.log(z(s + 1)) - COPY) + math.log(z(s + 1))) / 4
        self.assertEqual((r["authors"], r["targets"], r["scored"], r["tokens"]), (2, 2, 4, 16))
        self.assertAlmostEqual(r["ownNatsPerToken"], own, places=3)
        self.assertAlmostEqual(r["otherNatsPerToken"], (other_zq + other_zz) / 2, places=3)
        one = promptgain.measure(CopyModel(), CharTokenizer(), users, k=4, authors=10, targets=1)
        self.assertEqual((one["scored"], one["tokens"]), (2, 8))
        self.assertAlmostEqual(one["otherNatsPerToken"], other_zq, places=3)
        with self.assertRaises(ValueError):
            promptgain.measure(CopyModel(), CharTokenizer(), users, k=4, authors=10, targets=0)

    def test_authors_are_paired_with_another_author_and_need_k_plus_one_records(self):
        users = {"u%d" % i: ["r"] * (5 if i % 3 else 4) for i in range(30)}
        ps = promptgain.pairs(users, 4, 300)
        self.assertEqual(len(ps), 20)
        self.assertTrue(all(u != v for u, v in ps))
        self.assertEqual(sorted(u for u, _ in ps), sorted(v for _, v in ps))
        self.assertEqual(len(promptgain.pairs(users, 4, 7)), 7)

    def test_private_file_output_says_operator_only(self):
        d = tempfile.mkdtemp()
        try:
            shutil.copy(os.path.join(VEC, "tokenizer.json"), d)
            cfg = {"vocab_size": bpe.Tokenizer(os.path.join(d, "tokenizer.json")).vocabulary_size, "hidden_size": 16, "intermediate_size": 16, "num_hidden_layers": 1,
                   "num_attention_heads": 2, "num_key_value_heads": 2, "tie_word_embeddings": True}
            with open(os.path.join(d, "config.json"), "w") as f:
                json.dump(cfg, f)
            torch.manual_seed(1)
            m = llama.Llama(llama.Config(cfg))
            llama.write_safetensors(os.path.join(d, "model.safetensors"),
                                    {k: v for k, v in m.state_dict().items() if k != "lm_head.weight"})
            lines = "".join(json.dumps({"user": "u%d" % (i % 3), "subject": "Re: item %d" % i}) + "\n" for i in range(15))
            outs = {}
            for name in ("private.jsonl", "public.jsonl"):
                with open(os.path.join(d, name), "w") as f:
                    f.write(lines)
                buf = io.StringIO()
                with contextlib.redirect_stdout(buf):
                    promptgain.main(["--model", d, "--records", os.path.join(d, name), "--threads", "1"])
                outs[name] = json.loads(buf.getvalue())
            self.assertIn("operator-only", outs["private.jsonl"]["note"])
            self.assertNotIn("note", outs["public.jsonl"])
            self.assertEqual(outs["private.jsonl"]["authors"], 3)
            self.assertEqual(outs["private.jsonl"]["gain"], outs["public.jsonl"]["gain"])
        finally:
            shutil.rmtree(d)


if __name__ == "__main__":
    unittest.main()
