"""The built-in Llama: KV-cached and left-padded batched decoding equal a plain full forward;
safetensors round trip; the Hugging Face layout loads."""
import os
import tempfile
import unittest

import torch

from hotpate_teacher import llama
from tests.reference import reference_logits

CFG = {"vocab_size": 97, "hidden_size": 48, "intermediate_size": 64, "num_hidden_layers": 2,
       "num_attention_heads": 6, "num_key_value_heads": 2, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
       "tie_word_embeddings": True}


def tiny():
    torch.manual_seed(3)
    m = llama.Llama(llama.Config(CFG))
    for p in m.parameters():
        torch.nn.init.normal_(p, std=0.2)
    return m.eval()


def full_logits(m, ids):
    t = len(ids)
    with torch.no_grad():
        return m(torch.tensor([ids]), torch.arange(t)[None], torch.ones(1, t, dtype=torch.bool))[0]


class LlamaTest(unittest.TestCase):
    def test_cached_padded_batches_equal_full_forwards(self):
        m = tiny()
        prompts = [[1, 2, 3, 4, 5, 6, 7], [9, 8], [5, 5, 5, 60]]
        b = llama.Batch(m, prompts, "cpu", pad_id=0)
        for i, p in enumerate(prompts):
            torch.testing.assert_close(b.last[i], full_logits(m, p)[-1], rtol=1e-4, atol=1e-4)
        new = [11, 12, 13]
        out = b.append(new)
        out2 = b.append([14])
        for i, p in enumerate(prompts):
            torch.testing.assert_close(out[i], full_logits(m, p + new)[-1], rtol=1e-4, atol=1e-4)
            torch.testing.assert_close(out2[i], full_logits(m, p + new + [14])[-1], rtol=1e-4, atol=1e-4)
        self.assertFalse(torch.isnan(out2).any())

    def test_the_full_forward_is_the_independent_reference(self):
        """Against a loop-based float64 Llama (tests/reference.py): RoPE, the GQA head grouping
        (query head h reads KV head h // rep), RMSNorm and SwiGLU as Hugging Face defines them."""
        m = tiny()
        ids = [5, 17, 3, 3, 90, 41, 8, 60, 2]
        ref = torch.tensor(reference_logits(m, ids), dtype=torch.float32)
        torch.testing.assert_close(full_logits(m, ids), ref, rtol=1e-4, atol=1e-4)
        with torch.no_grad():  # last_only: the same last row
            last = m(torch.tensor([ids]), torch.arange(len(ids))[None], torch.ones(1, len(ids), dtype=torch.bool),
                     last_only=True)[0]
        torch.testing.assert_close(last, ref[-1], rtol=1e-4, atol=1e-4)

    def test_gqa_and_rope_change_the_output(self):
        """Guards against a test that cannot fail: positions matter (RoPE), so a shifted prompt differs."""
        m = tiny()
        a = full_logits(m, [1, 2, 3])[-1]
        b = full_logits(m, [3, 2, 1])[-1]
        self.assertGreater((a - b).abs().max().item(), 1e-3)

    def test_safetensors_round_trip_and_hf_layout_load(self):
        m = tiny()
        with tempfile.TemporaryDirectory() as d:
            import json
            with open(os.path.join(d, "config.json"), "w") as f:
                json.dump(CFG, f)
            state = {k: v for k, v in m.state_dict().items() if k != "lm_head.weight"}
            llama.write_safetensors(os.path.join(d, "model.safetensors"), state)
            back = llama.read_safetensors(os.path.join(d, "model.safetensors"))
            self.assertEqual(set(back), set(state))
            for k in state:
                self.assertTrue(torch.equal(back[k], state[k]), k)
            m2 = llama.load(d)
            torch.testing.assert_close(full_logits(m2, [4, 5, 6]), full_logits(m, [4, 5, 6]))
            os.remove(os.path.join(d, "model.safetensors"))
            torch.save(m.state_dict(), os.path.join(d, "pytorch_model.bin"))
            torch.testing.assert_close(full_logits(llama.load(d), [4, 5]), full_logits(m, [4, 5]))
            state.pop("model.norm.weight")
            os.remove(os.path.join(d, "pytorch_model.bin"))
            llama.write_safetensors(os.path.join(d, "model.safetensors"), state)
            with self.assertRaisesRegex(ValueError, "missing weights"):
                llama.load(d)


if __name__ == "__main__":
    unittest.main()
