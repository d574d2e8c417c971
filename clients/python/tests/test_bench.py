import contextlib
import io
import json
import os
import tempfile
import unittest

import torch

from hotpate_teacher import bench, llama


class BenchTest(unittest.TestCase):
    def test_the_bandwidth_bound_reads_the_weights_once_and_each_rows_cache_once(self):
        # 8B in bf16 on a 4.8 TB/s GPU, 512 teachers, 1 MB of K and V each: 16 GB + 0.5 GB a step
        self.assertAlmostEqual(bench.bandwidth_bound(512, 1, 16e9, 1e6, 4.8e12), 512 * 4.8e12 / 16.512e9)
        # two sequences in one forward share the weights: more than twice as many rows per byte
        self.assertGreater(bench.bandwidth_bound(512, 2, 16e9, 1e6, 4.8e12),
                           1.9 * bench.bandwidth_bound(512, 1, 16e9, 1e6, 4.8e12))
        # 2,048 teachers in forwards of 512 read the weights four times a step
        self.assertAlmostEqual(bench.bandwidth_bound(2048, 1, 16e9, 1e6, 4.8e12, forwards=4),
                               2048 * 4.8e12 / (64e9 + 2048e6))

    def test_the_bench_prints_its_rates_and_the_memory_bound_of_its_own_shape(self):
        cfg = {"vocab_size": 64, "hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2,
               "num_attention_heads": 4, "num_key_value_heads": 1, "tie_word_embeddings": True}
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "config.json"), "w") as f:
                json.dump(cfg, f)
            m = llama.Llama(llama.Config(cfg))
            llama.write_safetensors(os.path.join(d, "model.safetensors"),
                                    {k: v for k, v in m.state_dict().items() if k != "lm_head.weight"})
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                bench.main(["--model", d, "--teachers", "8", "--rows", "3", "--prompt-tokens", "6", "--steps", "3",
                            "--threads", "1"])
        out = json.loads(buf.getvalue().strip().splitlines()[-1])
        params = sum(p.numel() for p in m.parameters())
        self.assertEqual(params, out["params"])
        self.assertEqual(4 * params, out["weight_bytes"])
        # 2 layers x 1 KV head x 8 dims x K and V x 4 bytes per position, over a context of 6..13
        # prompt tokens, 8 history tokens and the mean of steps 1..3
        per_position = 2 * 1 * 8 * 2 * 4
        self.assertGreaterEqual(out["kv_bytes_per_teacher_step"], per_position * (6 + 8 + 2))
        self.assertLessEqual(out["kv_bytes_per_teacher_step"], per_position * (13 + 8 + 2))
        bound = bench.bandwidth_bound(8, 1, out["weight_bytes"], out["kv_bytes_per_teacher_step"], out["copy_gbs"] * 1e9,
                                      forwards=3)  # 8 teachers in rows of 3
        self.assertAlmostEqual(out["bandwidth_bound_teacher_steps_per_s"], bound, delta=bound * 0.01)
        for k in ("teacher_steps_per_s", "gemm_gflops", "copy_gbs"):
            self.assertGreater(out[k], 0, k)
        self.assertGreaterEqual(out["cpu_efficiency"], 0)  # a model this small: 0 at 3 decimals
        self.assertAlmostEqual(out["efficiency"], out["teacher_steps_per_s"] * 2 * params / (out["gemm_gflops"] * 1e9),
                               delta=0.01 + 0.02 * out["efficiency"])


if __name__ == "__main__":
    unittest.main()
