"""Bad worker arguments: exit 2 with exactly one line on stderr that names the problem (the
worker is run as `python3 -m hotpate_teacher`, as the README says)."""
import os
import subprocess
import sys
import tempfile
import unittest

import torch

from hotpate_teacher import blas, llama

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.dirname(HERE)


def run(*args):
    env = dict(os.environ, PYTHONPATH=PKG)
    p = subprocess.run([sys.executable, "-m", "hotpate_teacher", *args], env=env, capture_output=True, text=True,
                       timeout=120)
    return p.returncode, p.stderr.strip().splitlines()


class MainTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        d = cls.dir.name
        cls.model = os.path.join(d, "model")
        os.makedirs(cls.model)
        import json
        import shutil
        with open(os.path.join(cls.model, "config.json"), "w") as f:
            json.dump({"vocab_size": 600, "hidden_size": 16, "intermediate_size": 16, "num_hidden_layers": 1,
                       "num_attention_heads": 2, "num_key_value_heads": 1}, f)
        shutil.copy(os.path.join(HERE, "vectors", "tokenizer.json"), cls.model)
        cls.records = os.path.join(d, "users.jsonl")
        with open(cls.records, "w") as f:
            f.write('{"user": "a", "text": "x"}\n{"user": "b", "text": "y"}\n')
        cls.spec = os.path.join(d, "spec.yaml")
        with open(cls.spec, "w") as f:
            f.write("ensemble: {source: external, kind: heterogeneous, teachers: 2}\nrecords: {file: %s}\n" % cls.records)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def args(self, **over):
        a = {"--model": self.model, "--bootstrap": "127.0.0.1:9092", "--teachers": "0-1", "--spec": self.spec}
        a.update(over)
        return [x for k, v in a.items() if v is not None for x in (k, v)]

    def bad(self, expected, *extra, **over):
        code, err = run(*self.args(**over), *extra)
        self.assertEqual(code, 2, err)
        self.assertEqual(len(err), 1, err)
        self.assertIn(expected, err[0])
        self.assertTrue(err[0].startswith("hotpate_teacher: "), err)

    def test_each_bad_argument_gives_one_line_and_exit_2(self):
        self.bad("--teachers must be A-B", **{"--teachers": "0-"})
        self.bad("--teachers: expected one argument", **{"--teachers": "-1-3"})
        self.bad("--teachers must be A-B", **{"--teachers": "1-x"})
        self.bad("A <= B", **{"--teachers": "5-2"})
        self.bad("ids go up to 1", **{"--teachers": "0-2"})
        self.bad("more than --max-teachers", "--max-teachers", "1")
        self.bad("--bootstrap must be HOST:PORT", **{"--bootstrap": "localhost"})
        self.bad("--bootstrap must be HOST:PORT", **{"--bootstrap": "a:1, b:2"})
        self.bad("is not a directory", **{"--model": os.path.join(self.dir.name, "nope")})
        self.bad("has no config.json", **{"--model": self.dir.name})
        self.bad("cannot read spec", **{"--spec": os.path.join(self.dir.name, "nope.yaml")})
        self.bad("--rows must be > 0", "--rows", "0")
        self.bad("--cache-mb must be > 0", "--cache-mb", "0")
        self.bad("--temperature must be", "--temperature", "nan")
        self.bad("invalid int value", "--rows", "many")
        self.bad("the following arguments are required: --spec", **{"--spec": None})
        self.bad("cannot load the model", )  # config.json without tokenizer-compatible weights

    def test_a_spec_that_is_not_a_mapping_or_misses_records_is_refused(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write("- a list\n")
        try:
            self.bad("is not a YAML mapping", **{"--spec": f.name})
        finally:
            os.remove(f.name)
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write("ensemble: {source: external, teachers: 2}\nrecords: {file: /nonexistent.jsonl}\n")
        try:
            self.bad("records.file must name", **{"--spec": f.name})
        finally:
            os.remove(f.name)


class BlasTest(unittest.TestCase):
    def test_the_reference_blas_is_told_from_optimised_ones(self):
        self.assertTrue(blas.is_reference("/usr/lib/x86_64-linux-gnu/blas/libblas.so.3"))
        self.assertFalse(blas.is_reference("/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3"))
        self.assertFalse(blas.is_reference(None))
        pthread = "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so"
        self.assertTrue(blas.is_pthread_openblas(pthread))
        self.assertFalse(blas.is_pthread_openblas("/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblasp-r0.3.21.so"))
        self.assertFalse(blas.is_pthread_openblas(None))
        self.assertEqual("x86_64-linux-gnu", blas._triplet("/usr/lib/x86_64-linux-gnu/openblas-pthread/x.so"))
        self.assertEqual("aarch64-linux-gnu", blas._triplet("/usr/lib/aarch64-linux-gnu/openblas-pthread/x.so"))
        self.assertEqual("/usr/lib/aarch64-linux-gnu/openblas-openmp/libopenblas.so.0",
                         blas._openmp_path("/usr/lib/aarch64-linux-gnu/openblas-pthread/x.so"))
        torch.ones(2, 2) @ torch.ones(2, 2)
        if os.path.exists("/proc/self/maps") and "BLAS_INFO=generic" in torch.__config__.show():
            self.assertIsNotNone(blas.loaded_blas())  # the library torch calls is found


if __name__ == "__main__":
    unittest.main()
