"""The worker's tokenizer.json encoder gives Hugging Face's ids (written by the Java side, which
encodes with Hugging Face's own library: TokenizerFileTest.sharedVectorsAreHuggingFacesIds)."""
import json
import os
import unittest

from hotpate_teacher import bpe

VEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors")


class BpeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tok = bpe.Tokenizer(os.path.join(VEC, "tokenizer.json"))
        with open(os.path.join(VEC, "tokenizer_vectors.json"), encoding="utf-8") as f:
            cls.cases = json.load(f)

    def test_ids_equal_hugging_faces(self):
        self.assertGreaterEqual(len(self.cases), 10)
        for c in self.cases:
            self.assertEqual(self.tok.encode(c["text"]), c["ids"], c["text"])
            self.assertEqual(self.tok.decode(c["ids"]), c["text"])

    def test_vocabulary_and_end_of_text(self):
        self.assertEqual(self.tok.vocabulary_size, 600)
        self.assertEqual(self.tok.eos, 599)
        self.assertNotIn(599, self.tok.encode("a <|endoftext|> b"))
        self.assertEqual(self.tok.decode([599]), "")

    def test_merges_are_applied(self):
        """Can fail: without merges every byte is its own token."""
        ids = self.tok.encode("Re: Re: Re:")
        self.assertLess(len(ids), len("Re: Re: Re:"))


if __name__ == "__main__":
    unittest.main()
