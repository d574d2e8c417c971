"""Trains the small demo model: python3 -m hotpate_teacher.train --out models/tiny-llama

A byte-level BPE tokenizer and a Llama-architecture model (~2 M parameters: 4 layers, d 192, GQA
6/2 heads, SwiGLU 512, RoPE, RMSNorm) trained on PUBLIC text only — the public side of the
SpamAssassin corpus (data/spamassassin/public.jsonl.gz; never private.jsonl.gz) — in the prompt
format the teacher worker uses: a public sender's subjects as examples, then one more. Saves
config.json, model.safetensors, tokenizer.json and tokenizer_config.json (Hugging Face's layout).
Fixed seeds; at most --minutes (10) on 2 cores, whatever --steps (300) has reached by then. `--steps 0 --vocab 300` makes an untrained tiny model for
tests.
"""
import argparse
import collections
import gzip
import json
import os
import random
import sys
import time

import torch

from . import bpe, llama

HERE = os.path.dirname(os.path.abspath(__file__))
PUBLIC = os.path.join(HERE, "..", "..", "..", "data", "spamassassin", "public.jsonl.gz")
TEMPLATE = "Examples:\n{records}\n\nWrite one more in the same style.\n{prompt}"
EOS = "<|endoftext|>"


def public_subjects(path):
    by_user = collections.OrderedDict()
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            o = json.loads(line)
            s = (o.get("subject") or "").replace("\n", " ").strip()
            if s:
                by_user.setdefault(o["user"], []).append(s)
    return by_user


def train_bpe(texts, vocab_size):
    """Byte-level BPE merges (GPT-2's pre-tokenizer regex), most frequent pair first."""
    import regex
    b2u = bpe.bytes_to_unicode()
    pat = regex.compile(bpe.GPT2_PATTERN)
    words = collections.Counter()
    for t in texts:
        for m in pat.finditer(t):
            words[tuple(b2u[b] for b in m.group(0).encode("utf-8"))] += 1
    words = [[list(w), c] for w, c in words.items()]
    vocab = [b2u[b] for b in range(256)]
    merges = []
    while len(vocab) < vocab_size - 1:  # the last id is <|endoftext|>
        pairs = collections.Counter()
        for w, c in words:
            for i in range(len(w) - 1):
                pairs[(w[i], w[i + 1])] += c
        if not pairs:
            break
        (a, b), _ = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))
        merges.append((a, b))
        vocab.append(a + b)
        for wc in words:
            w, i, out = wc[0], 0, []
            while i < len(w):
                if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            wc[0] = out
    return vocab, merges


def tokenizer_json(vocab, merges):
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    eos_id = len(vocab)
    v = {t: i for i, t in enumerate(vocab)}
    v[EOS] = eos_id
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": eos_id, "content": EOS, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": True, "special": True}],
        "normalizer": None, "pre_tokenizer": byte_level, "post_processor": byte_level, "decoder": byte_level,
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False,
                  "vocab": v, "merges": ["%s %s" % m for m in merges]},
    }


def documents(by_user, rnd, tok, max_records=4):
    """Training documents in the worker's prompt format: examples from one public sender, one more."""
    users = [u for u, s in by_user.items() if len(s) >= 2]
    while True:
        u = rnd.choice(users)
        subs = by_user[u][:]
        rnd.shuffle(subs)
        target = subs.pop()
        head = TEMPLATE.split("{prompt}")[0].replace("{records}", "\n".join(subs[:max_records]))
        yield tok.encode(head) + tok.encode(target + "\n") + [tok.eos]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m hotpate_teacher.train")
    ap.add_argument("--out", required=True)
    ap.add_argument("--public", default=PUBLIC, help="public JSONL.gz with user and subject fields")
    ap.add_argument("--vocab", type=int, default=1024)
    ap.add_argument("--hidden", type=int, default=192)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=6)
    ap.add_argument("--kv-heads", type=int, default=2)
    ap.add_argument("--ffn", type=int, default=512)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--minutes", type=float, default=10.0, help="stop training after this long")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args(argv)
    if "private" in os.path.basename(a.public):
        sys.exit("hotpate_teacher.train: --public must be public text, never a corpus's private side")
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    rnd = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    by_user = public_subjects(a.public)
    texts = [s + "\n" for subs in by_user.values() for s in subs] + [TEMPLATE.split("{records}")[0], TEMPLATE.split("{records}")[1].split("{prompt}")[0]] * 50
    t0 = time.time()
    vocab, merges = train_bpe(texts, a.vocab)
    with open(os.path.join(a.out, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer_json(vocab, merges), f, ensure_ascii=False)
    with open(os.path.join(a.out, "tokenizer_config.json"), "w") as f:
        json.dump({"eos_token": EOS, "model_max_length": 2048}, f)
    tok = bpe.Tokenizer(os.path.join(a.out, "tokenizer.json"))
    print("tokenizer: %d tokens, %d merges (%.1f s)" % (tok.vocabulary_size, len(merges), time.time() - t0),
          file=sys.stderr)
    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": tok.vocabulary_size,
           "hidden_size": a.hidden, "intermediate_size": a.ffn, "num_hidden_layers": a.layers,
           "num_attention_heads": a.heads, "num_key_value_heads": a.kv_heads, "rms_norm_eps": 1e-5,
           "rope_theta": 10000.0, "max_position_embeddings": 2048, "tie_word_embeddings": True,
           "bos_token_id": None, "eos_token_id": tok.eos, "torch_dtype": "float32"}
    with open(os.path.join(a.out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    model = llama.Llama(llama.Config(cfg))
    for n, p in model.named_parameters():
        if p.dim() == 2:
            torch.nn.init.normal_(p, std=0.02)
    print("model: %d parameters" % sum(p.numel() for p in model.parameters()), file=sys.stderr)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.01)
    docs = documents(by_user, rnd, tok)
    stream = []
    t0 = time.time()
    step = 0
    for step in range(a.steps):
        if time.time() - t0 > a.minutes * 60:
            break
        while len(stream) < a.batch * (a.seq + 1):
            stream.extend(next(docs))
        chunk = torch.tensor(stream[: a.batch * (a.seq + 1)]).view(a.batch, a.seq + 1)
        del stream[: a.batch * (a.seq + 1)]
        lr = a.lr * min(1.0, (step + 1) / 20) * (0.1 + 0.9 * (1 - step / a.steps))
        for g in opt.param_groups:
            g["lr"] = lr
        x, y = chunk[:, :-1], chunk[:, 1:]
        pos = torch.arange(a.seq)[None].expand(a.batch, -1)
        mask = torch.ones(a.batch, a.seq, dtype=torch.bool)
        loss = torch.nn.functional.cross_entropy(model(x, pos, mask).reshape(-1, cfg["vocab_size"]), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 20 == 0:
            print("step %d loss %.3f (%.0f s)" % (step, loss.item(), time.time() - t0), file=sys.stderr, flush=True)
    state = {k: v for k, v in model.state_dict().items() if k != "lm_head.weight"}
    llama.write_safetensors(os.path.join(a.out, "model.safetensors"), state)
    print("saved %s after %d steps (%.0f s)" % (a.out, step, time.time() - t0), file=sys.stderr)


if __name__ == "__main__":
    main()
