"""Trains the small demo model: python3 -m hotpate_teacher.train --out models/tiny-llama

A byte-level BPE tokenizer and a small Llama-architecture model trained on PUBLIC text only (the
public side of the SpamAssassin corpus, data/spamassassin/public.jsonl.gz, never private.jsonl.gz;
and public commit subjects by author, data/commits/public-commits.jsonl.gz) laid out exactly as the
teacher worker prompts it: the template filled (worker.fill) with k = 1..4 records of one author in
file order, then a later record of the same author, its newline and end-of-text. The loss is on
that target record (and, --record-loss, on the prompt's later records: the same copy task): the
model learns to read its user's records (a copy mechanism needs two attention layers: one to look
at the previous token, one to find where it occurred before). docs/llm-teachers.md has the
measured prompt gain.
Authors `promptgain.held_out` sets aside never reach a batch nor the tokenizer; the prompt gain on
them (promptgain.py) is printed during training. Saves config.json, model.safetensors,
tokenizer.json and tokenizer_config.json (Hugging Face's layout). Fixed seeds; stops at --steps or
--minutes (the learning-rate schedule follows whichever is nearer). `--steps 0 --vocab 300` makes
an untrained tiny model for tests.
"""
import argparse
import collections
import json
import os
import random
import sys
import time

import torch

from . import bpe, llama, promptgain, worker

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "..", "data")
PUBLIC = [os.path.join(DATA, "spamassassin", "public.jsonl.gz"), os.path.join(DATA, "commits", "public-commits.jsonl.gz")]
TEMPLATE = promptgain.TEMPLATE
EOS = "<|endoftext|>"


def read_corpus(path, user_field="user", text_field="subject"):
    """{user: [records]} as the worker reads them, less empty records and the held-out authors."""
    users = worker.read_users(path, user_field, text_field)
    out = collections.OrderedDict()
    for u, rs in users.items():
        rs = [r for r in rs if promptgain.clean(r)]
        if rs and not promptgain.held_out(u):
            out[u] = rs
    return out


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
            if a not in w:
                continue
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


def draw(corpus, rnd, max_records=4):
    """(records, target): k = 1..max_records records of one author in file order, then a later one."""
    users = [u for u, rs in corpus.items() if len(rs) >= 2]
    while True:
        rs = corpus[rnd.choice(users)]
        k = rnd.randint(1, min(max_records, len(rs) - 1))
        idx = sorted(rnd.sample(range(len(rs)), k + 1))
        yield [rs[i] for i in idx[:k]], rs[idx[k]]


def batch(examples, seq, records_from=None):
    """Right-padded ids [B, T], the loss mask of the target's tokens, and (records_from: the index
    where each example's second record starts) the mask of the later records' tokens."""
    keep = [i for i, (ids, s) in enumerate(examples) if s < seq]
    n = max(min(len(examples[i][0]), seq + 1) for i in keep)
    x = torch.zeros(len(keep), n, dtype=torch.long)
    m = torch.zeros(len(keep), n, dtype=torch.bool)
    r = torch.zeros(len(keep), n, dtype=torch.bool)
    for row, i in enumerate(keep):
        ids, s = examples[i][0][:seq + 1], examples[i][1]
        x[row, :len(ids)] = torch.tensor(ids)
        m[row, s:len(ids)] = True
        if records_from is not None and records_from[i] is not None:
            r[row, records_from[i]:s] = True
    return x, m, r


def second_record(tok, records):
    """Index of the second record's first token in the worker's prompt (None for one record): the
    records after the first are a copy task too (--record-loss)."""
    if len(records) < 2:
        return None
    full = promptgain.example(tok, records, "x")[0]
    one = tok.encode(worker.fill(TEMPLATE, records[:1], promptgain.MAX_PROMPT_CHARS, "").split("\n\nWrite")[0] + "\n")
    return len(one) if full[:len(one)] == one else None


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m hotpate_teacher.train")
    ap.add_argument("--out", required=True)
    ap.add_argument("--public", nargs="+", default=PUBLIC, help="public JSONL(.gz) files with user and subject fields")
    ap.add_argument("--mix", type=float, default=0.5, help="share of examples from the first --public file")
    ap.add_argument("--vocab", type=int, default=512)
    # d 256 with one KV head (multi-query) and SwiGLU 1024: 2.03 M parameters, whose decode is
    # dominated by the weights' matrix products rather than by each teacher's keys and values
    # (the attention over them costs the same at any ffn width; docs/llm-teachers.md)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--kv-heads", type=int, default=1)
    ap.add_argument("--ffn", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=2400)
    ap.add_argument("--minutes", type=float, default=13.0, help="stop training after this long")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--seq", type=int, default=160, help="longer examples are cut (their targets dropped)")
    ap.add_argument("--lr", type=float, default=5e-3)
    ap.add_argument("--record-loss", type=float, default=1.0, help="weight of the loss on the prompt's later records")
    ap.add_argument("--eval-every", type=int, default=100, help="print the held-out prompt gain every N steps (0: never)")
    # 2: with OpenBLAS's OpenMP build, 201 steps a minute against 106 with 1 thread on a quiet
    # 2-core machine; on cores shared with other work 1 thread may be faster (each waits for the other)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"],
                    help="cuda: a CUDA build of PyTorch (float32 weights; the saved model is the same format)")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args(argv)
    for p in a.public:
        if "private" in os.path.basename(p):
            sys.exit("hotpate_teacher.train: --public must be public text, never a corpus's private side")
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    rnd = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    t0 = time.time()
    corpora = [read_corpus(p) for p in a.public]
    texts = [promptgain.clean(r) + "\n" for c in corpora for rs in c.values() for r in rs]
    texts = random.Random(a.seed).sample(texts, min(len(texts), 6000)) + [TEMPLATE.split("{records}")[0],
                                                                            TEMPLATE.split("{records}")[1].split("{prompt}")[0]] * 200
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
    model.to(a.device)
    print("model: %d parameters" % sum(p.numel() for p in model.parameters()), file=sys.stderr)
    # held-out authors of the first file (and of the others, if any): the gain printed while training
    held = [{u: rs for u, rs in worker.read_users(p, "user", "subject").items() if promptgain.held_out(u)}
            for p in a.public]
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.01, betas=(0.9, 0.98))
    draws = [draw(c, rnd) for c in corpora]
    t1 = time.time()
    step, done = 0, 0
    for step in range(a.steps):
        el = time.time() - t1
        if el > a.minutes * 60:
            break
        if a.eval_every and step % a.eval_every == 0 and step:
            evaluate(model, tok, held, step, el)
        progress = max(step / a.steps, el / (a.minutes * 60))
        lr = a.lr * min(1.0, (step + 1) / 50) * (0.05 + 0.95 * 0.5 * (1 + torch.cos(torch.tensor(progress * 3.14159)).item()))
        for g in opt.param_groups:
            g["lr"] = lr
        ex, starts = [], []
        for _ in range(a.batch):
            i = 0 if rnd.random() < a.mix or len(draws) == 1 else rnd.randrange(1, len(draws))
            records, target = next(draws[i])
            ex.append(promptgain.example(tok, records, target))
            starts.append(second_record(tok, records) if a.record_loss else None)
        x, m, r = (v.to(a.device) for v in batch(ex, a.seq, starts))
        t = x.shape[1] - 1
        logits = model(x[:, :-1], torch.arange(t, device=a.device)[None].expand(x.shape[0], -1),
                       torch.ones(x.shape[0], t, dtype=torch.bool, device=a.device))
        loss = torch.nn.functional.cross_entropy(logits[m[:, 1:]], x[:, 1:][m[:, 1:]])
        if a.record_loss and r[:, 1:].any():
            loss = loss + a.record_loss * torch.nn.functional.cross_entropy(logits[r[:, 1:]], x[:, 1:][r[:, 1:]])
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        done = step + 1
        if step % 20 == 0:
            print("step %d loss %.3f lr %.4f (%.0f s)" % (step, loss.item(), lr, time.time() - t1), file=sys.stderr, flush=True)
    if a.eval_every and done:
        evaluate(model, tok, held, done, time.time() - t1)
    state = {k: v.cpu() for k, v in model.state_dict().items() if k != "lm_head.weight"}
    llama.write_safetensors(os.path.join(a.out, "model.safetensors"), state)
    print("saved %s after %d steps (%.0f s training, %.0f s in all)" % (a.out, done, time.time() - t1, time.time() - t0),
          file=sys.stderr)


def evaluate(model, tok, held, step, elapsed):
    model.eval()
    parts = []
    for i, users in enumerate(held):
        try:
            r = promptgain.measure(model, tok, users, 4, 60, targets=1)  # cheap: a progress figure
            parts.append("file %d: %d authors own %.3f other %.3f gain %.3f" % (
                i, r["authors"], r["ownNatsPerToken"], r["otherNatsPerToken"], r["gain"]))
        except ValueError:
            pass
    model.train()
    print("step %d held-out prompt gain (%.0f s): %s" % (step, elapsed, "; ".join(parts) or "no held-out authors"),
          file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
