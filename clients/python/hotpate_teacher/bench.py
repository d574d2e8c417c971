"""Teacher-steps/s of the worker's model path, without Kafka:

  python3 -m hotpate_teacher.bench --model DIR --teachers 512 --steps 16 [--device cuda]
  python3 -m hotpate_teacher.bench --shape 8b --teachers 512 --device cuda --dtype bfloat16 [--hf]

A step is what the worker does for one step of one sequence: every teacher's next-token
distribution and its coordinated vote. The first step of a sequence prefills every teacher's
prompt (--prompt-tokens of random ids); later steps feed one token to the cached batch. Prints one
JSON line: prefill s, decode teacher-steps/s (distributions/s), efficiency (teacher-steps/s x 2 x
parameters over the GEMM rate, timed between the decode steps of the same run so that both see the
same machine: a VM's GEMM rate here moves between 86 and 170 GFLOP/s from one minute to the next;
cpu_efficiency: the same per CPU-second of the process, decode and GEMM alike) and, with --hf and
`transformers` installed,
eager Hugging Face LlamaForCausalLM on the same shapes and weights in the same run.
--shape 8b builds Llama-3-8B's shape (32 layers, d 4096, GQA 32/8, SwiGLU 14336, |V| 128256) with
random weights (speed only).
"""
import argparse
import json
import os
import time
import types

# as in the worker (__main__.py): waiting threads sleep instead of spinning on a shared machine
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np
import torch

from . import blas, llama, prf, worker

HISTORY = 8  # public tokens (prompt and prefix) every sequence starts with

SHAPES = {"8b": {"vocab_size": 128256, "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                 "num_attention_heads": 32, "num_key_value_heads": 8, "rope_theta": 500000.0},
          "1b": {"vocab_size": 128256, "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16,
                 "num_attention_heads": 32, "num_key_value_heads": 8, "rope_theta": 500000.0,
                 "tie_word_embeddings": True}}


def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


class PairedGemm:
    """The GEMM rate sampled between decode steps: `sample()` after each step times `reps`
    [m, k] x [k, n] matmuls, wall-clock and CPU seconds, so that the rate the decode is divided by
    comes from the same minutes as the decode (a rate measured before and after it moved with the
    machine's state, not with the decode)."""

    def __init__(self, device="cpu", dtype=torch.float32, m=2048, n=512, k=512, reps=2):
        self.a = torch.randn(m, k, device=device).to(dtype)
        self.b = torch.randn(k, n, device=device).to(dtype)
        self.device, self.reps, self.flops = device, reps, 2.0 * m * n * k
        self.a @ self.b  # warm
        self.count, self.wall, self.cpu = 0, 0.0, 0.0

    def sample(self):
        sync(self.device)
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(self.reps):
            self.a @ self.b
        sync(self.device)
        self.wall += time.perf_counter() - t0
        self.cpu += time.process_time() - c0
        self.count += self.reps

    def rate(self, cpu=False):
        return self.count * self.flops / (self.cpu if cpu else self.wall)


def copy_bandwidth(device="cpu", dtype=torch.float32, nbytes=1 << 28, reps=5):
    """Bytes/s of one device-to-device copy of `nbytes` (read and write both counted): the median of
    `reps`, as a stand-in for the memory bandwidth that bounds a decode reading every weight once a
    step and each teacher's keys and values."""
    n = nbytes // torch.empty(0, dtype=dtype).element_size()
    a = torch.ones(n, device=device, dtype=dtype)
    b = torch.empty_like(a)
    b.copy_(a)
    times = []
    for _ in range(reps):
        sync(device)
        t0 = time.perf_counter()
        b.copy_(a)
        sync(device)
        times.append(time.perf_counter() - t0)
    return 2.0 * nbytes / sorted(times)[len(times) // 2]


def bandwidth_bound(teachers, sequences, weight_bytes, kv_bytes_per_teacher_step, bytes_per_s, forwards=1):
    """Teacher-steps/s if a decode step did nothing but read every weight once per forward (a
    forward serves `rows` teachers and every sequence in flight; `forwards` = teachers / rows,
    rounded up) and each (teacher, sequence)'s keys and values once."""
    n = teachers * sequences
    return n * bytes_per_s / (forwards * weight_bytes + n * kv_bytes_per_teacher_step)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m hotpate_teacher.bench")
    ap.add_argument("--model", help="Hugging Face-layout dir (else --shape with random weights)")
    ap.add_argument("--shape", choices=sorted(SHAPES))
    ap.add_argument("--teachers", type=int, default=64)
    ap.add_argument("--rows", type=int, default=0, help="teachers per forward (0 = all)")
    ap.add_argument("--prompt-tokens", type=int, default=64)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--sequences", type=int, default=1, help="sequences in flight, answered together")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--hf", action="store_true", help="also time eager transformers.LlamaForCausalLM")
    a = ap.parse_args(argv)
    if a.threads:
        torch.set_num_threads(a.threads)
    dtype = getattr(torch, a.dtype)
    torch.manual_seed(0)
    if a.model:
        model = llama.load(a.model, a.device, dtype)
    else:
        model = llama.Llama(llama.Config(SHAPES[a.shape or "1b"])).to(a.device, dtype).eval()
    c = model.config
    rows = a.rows or a.teachers
    rnd = np.random.default_rng(0)
    prompts = [[int(x) for x in rnd.integers(0, c.vocab_size, a.prompt_tokens + int(rnd.integers(0, 8)))]
               for _ in range(a.teachers)]
    t0 = time.time()
    ts = worker.Teachers(model, types.SimpleNamespace(eos=0), dict(enumerate(prompts)), a.device, rows,
                         cache_bytes=1 << 40)
    history = [[int(x) for x in rnd.integers(0, c.vocab_size, HISTORY)] for _ in range(a.sequences)]

    def steps(k):
        return [{"runId": "bench", "sequenceId": q, "step": k, "attempt": 0, "prompt": history[q][:4],
                 "prefix": history[q][4:], "publicSeed": 1000 * q + k, "randomnessVersion": prf.VERSION,
                 "vocabularySize": c.vocab_size} for q in range(a.sequences)]

    ts.answer_many(steps(0))
    sync(a.device)
    prefill = time.time() - t0
    timed = {"forward": 0.0, "answers": 0.0}
    for name in timed:  # a breakdown of the decode time: the model's forward, the logits and votes
        fn = getattr(ts.engine, name) if name == "forward" else ts._answers

        def wrap(*args, _fn=fn, _name=name):
            t1 = time.time()
            r = _fn(*args)
            sync(a.device)
            timed[_name] += time.time() - t1
            return r
        if name == "forward":
            ts.engine.forward = wrap
        else:
            ts._answers = wrap
    gemm = PairedGemm(a.device, dtype)
    decode = decode_cpu = 0.0
    for s in range(a.steps):
        for h in history:
            h.append(int(rnd.integers(0, c.vocab_size)))
        t0, c0 = time.perf_counter(), time.process_time()
        ts.answer_many(steps(s + 1))
        sync(a.device)
        decode += time.perf_counter() - t0
        decode_cpu += time.process_time() - c0
        gemm.sample()
    out = {"teachers": a.teachers, "rows": rows, "sequences": a.sequences,
           "params": sum(p.numel() for p in model.parameters()),
           "vocab": c.vocab_size, "device": a.device, "blas": blas.build() if a.device == "cpu" else None,
           "dtype": a.dtype, "threads": torch.get_num_threads(),
           "prompt_tokens": a.prompt_tokens, "prefill_s": round(prefill, 3),
           "teacher_steps_per_s": round(a.teachers * a.sequences * a.steps / decode, 1),
           "forward_share": round(timed["forward"] / decode, 3),
           "logits_and_vote_share": round(timed["answers"] / decode, 3)}
    if a.hf:
        out["hf_teacher_steps_per_s"] = hf_rate(model, prompts, a)
    # the memory bound: weights once a step, and each teacher's K and V over its mean context
    esize = torch.empty(0, dtype=dtype).element_size()
    context = sum(len(p) for p in prompts) / len(prompts) + HISTORY + (a.steps + 1) / 2
    kv_bytes = c.num_hidden_layers * context * c.num_key_value_heads * c.head_dim * 2 * esize
    bw = copy_bandwidth(a.device, dtype, 1 << (30 if a.device == "cuda" else 28))
    out["weight_bytes"] = out["params"] * esize
    out["kv_bytes_per_teacher_step"] = int(kv_bytes)
    out["copy_gbs"] = round(bw / 1e9, 1)
    forwards = -(-a.teachers // rows)
    out["bandwidth_bound_teacher_steps_per_s"] = round(bandwidth_bound(a.teachers, a.sequences, out["weight_bytes"],
                                                                       kv_bytes, bw, forwards), 1)
    out["bandwidth_share"] = round(out["teacher_steps_per_s"] / out["bandwidth_bound_teacher_steps_per_s"], 3)
    out["gemm_gflops"] = round(gemm.rate() / 1e9, 2)
    out["efficiency"] = round(out["teacher_steps_per_s"] * 2 * out["params"] / gemm.rate(), 3)
    if a.device == "cpu":  # the same ratio per CPU-second of this process
        out["cpu_efficiency"] = round(a.teachers * a.sequences * a.steps / decode_cpu * 2 * out["params"]
                                      / gemm.rate(cpu=True), 3)
    print(json.dumps(out))


def hf_rate(model, prompts, a):
    """Eager transformers on the same weights: prefill with past_key_values, then one token a step."""
    try:
        import transformers
    except ImportError:
        return "transformers not installed"
    c = model.config
    hc = transformers.LlamaConfig(vocab_size=c.vocab_size, hidden_size=c.hidden_size,
                                  intermediate_size=c.intermediate_size, num_hidden_layers=c.num_hidden_layers,
                                  num_attention_heads=c.num_attention_heads, num_key_value_heads=c.num_key_value_heads,
                                  rms_norm_eps=c.rms_norm_eps, rope_theta=c.rope_theta,
                                  tie_word_embeddings=c.tie_word_embeddings)
    hf = transformers.LlamaForCausalLM(hc).to(a.device, getattr(torch, a.dtype)).eval()
    hf.load_state_dict(model.state_dict(), strict=False)
    n = max(len(p) for p in prompts)
    ids = torch.tensor([[0] * (n - len(p)) + p for p in prompts], device=a.device)
    mask = torch.tensor([[0] * (n - len(p)) + [1] * len(p) for p in prompts], device=a.device)
    with torch.no_grad():
        out = hf(input_ids=ids, attention_mask=mask, use_cache=True)
        past = out.past_key_values
        sync(a.device)
        t0 = time.time()
        for s in range(a.steps):
            mask = torch.cat([mask, torch.ones_like(mask[:, :1])], 1)
            out = hf(input_ids=torch.full((len(prompts), 1), 5, device=a.device), attention_mask=mask,
                     past_key_values=past, use_cache=True)
            past = out.past_key_values
            torch.softmax(out.logits[:, -1].double(), -1).cpu()
        sync(a.device)
    return round(len(prompts) * a.steps / (time.time() - t0), 1)


if __name__ == "__main__":
    main()
