"""The demo model's training data: the worker's prompt for an author's records then a later record
of the same author, in file order; the held-out authors never reach a training batch."""
import gzip
import json
import os
import random
import shutil
import tempfile
import unittest

import yaml

from hotpate_teacher import bpe, promptgain, train, worker

VEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")


class TrainTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tok = bpe.Tokenizer(os.path.join(VEC, "tokenizer.json"))

    def test_template_is_the_demo_specs(self):
        with open(os.path.join(ROOT, "jobs", "llm-demo.yaml")) as f:
            spec = yaml.safe_load(f)
        self.assertEqual(train.TEMPLATE, spec["teacher"]["prompt-template"])

    def test_prompt_tokens_are_the_workers_then_the_target_newline_and_eos(self):
        records = ["Re: New Sequences Window", "Re: exmh\nbug", "[SAtalk] Compile error"]
        ids, start = promptgain.example(self.tok, records, "Re: more\n")
        # what the worker builds (__main__): the prompt of a teacher whose user has these records
        self.assertEqual(ids[:start], self.tok.encode(worker.fill(train.TEMPLATE, records, 4000, "")))
        self.assertEqual(self.tok.encode("Examples:\nRe: New Sequences Window\nRe: exmh bug\n[SAtalk] Compile error"
                                         "\n\nWrite one more in the same style.\n"), ids[:start])
        self.assertEqual(ids[start:], self.tok.encode("Re: more\n") + [self.tok.eos])

    def test_second_record_starts_where_the_first_ends(self):
        records = ["Re: New Sequences Window", "Re: exmh"]
        ids, _ = promptgain.example(self.tok, records, "x")
        i = train.second_record(self.tok, records)
        self.assertEqual(self.tok.decode(ids[:i]), "Examples:\nRe: New Sequences Window\n")
        self.assertIsNone(train.second_record(self.tok, records[:1]))

    def test_draws_keep_file_order_and_one_author(self):
        corpus = {"u%d" % u: ["u%d-%02d" % (u, i) for i in range(2 + u)] for u in range(6)}
        d = train.draw(corpus, random.Random(3))
        ks = set()
        for _ in range(500):
            records, target = next(d)
            ks.add(len(records))
            self.assertEqual(len({r.split("-")[0] for r in records + [target]}), 1)
            self.assertEqual(records + [target], sorted(records + [target]))
            self.assertEqual(len(set(records + [target])), len(records) + 1)
        self.assertEqual(ks, {1, 2, 3, 4})

    def test_held_out_authors_never_reach_a_training_batch(self):
        d = tempfile.mkdtemp()
        seen = []
        real = train.draw

        def spy(corpus, rnd, max_records=4):
            for records, target in real(corpus, rnd, max_records):
                seen.extend(records + [target])
                yield records, target
        try:
            path = os.path.join(d, "public.jsonl.gz")
            with gzip.open(path, "wt") as f:
                for u in range(40):
                    for i in range(5):
                        f.write(json.dumps({"user": "user%d@x" % u, "subject": "subject of user%d@x no %d" % (u, i)}) + "\n")
            held = {"user%d@x" % u for u in range(40) if promptgain.held_out("user%d@x" % u)}
            self.assertTrue(3 <= len(held) <= 20, held)
            train.draw = spy
            train.main(["--out", os.path.join(d, "m"), "--public", path, "--vocab", "280", "--hidden", "16",
                        "--ffn", "16", "--heads", "2", "--kv-heads", "2", "--steps", "3", "--batch", "40",
                        "--eval-every", "0", "--threads", "1"])
        finally:
            train.draw = real
            shutil.rmtree(d)
        users = {s.split(" ")[2] for s in seen}
        self.assertGreater(len(users), 20)
        self.assertFalse(users & held, users & held)


if __name__ == "__main__":
    unittest.main()
