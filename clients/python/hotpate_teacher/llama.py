"""A small Llama implementation (RoPE, RMSNorm, grouped-query attention, SwiGLU) that loads a
Hugging Face-layout directory: config.json, model.safetensors (read here without the safetensors
package) or pytorch_model.bin (a torch state dict), tokenizer.json. Weight names and the rotary
convention (rotate_half) are Hugging Face's LlamaForCausalLM, so its checkpoints load as they are.

`Llama.forward` is the full forward (training; the prefill of the teachers' prompts), with torch's
fused scaled_dot_product_attention where torch has it. The worker's decode path is decode.py;
`Batch` is the simple cached path (one left-padded cache per batch of rows, grown by cat).
"""
import json
import math
import os
import struct

import torch
import torch.nn.functional as F

_DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16, "I64": torch.int64}


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        lo, hi = meta["data_offsets"]
        t = torch.frombuffer(bytearray(data[lo:hi]), dtype=_DTYPES[meta["dtype"]])
        out[name] = t.reshape(meta["shape"])
    return out


def write_safetensors(path, tensors):
    names = {v: k for k, v in _DTYPES.items()}
    header, blobs, off = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().contiguous().cpu()
        b = t.numpy().tobytes() if t.dtype != torch.bfloat16 else t.view(torch.int16).numpy().tobytes()
        header[name] = {"dtype": names[t.dtype], "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header).encode("utf-8")
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


class Config:
    def __init__(self, d):
        self.vocab_size = d["vocab_size"]
        self.hidden_size = d["hidden_size"]
        self.intermediate_size = d["intermediate_size"]
        self.num_hidden_layers = d["num_hidden_layers"]
        self.num_attention_heads = d["num_attention_heads"]
        self.num_key_value_heads = d.get("num_key_value_heads", self.num_attention_heads)
        self.head_dim = d.get("head_dim", self.hidden_size // self.num_attention_heads)
        self.rms_norm_eps = d.get("rms_norm_eps", 1e-5)
        self.rope_theta = d.get("rope_theta", 10000.0)
        self.tie_word_embeddings = d.get("tie_word_embeddings", False)
        self.max_position_embeddings = d.get("max_position_embeddings", 2048)
        if d.get("rope_scaling"):
            raise ValueError("rope_scaling is not supported by the built-in Llama")


class RMSNorm(torch.nn.Module):
    def __init__(self, n, eps):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(n))
        self.eps = eps

    def forward(self, x):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)).to(x.dtype) * self.weight


def rope(x, pos, theta):
    """Rotary embedding, Hugging Face's rotate_half form; x [B, H, T, D], pos [B, T]."""
    d = x.shape[-1]
    inv = 1.0 / (theta ** (torch.arange(0, d, 2, device=x.device, dtype=torch.float32) / d))
    ang = pos.to(torch.float32)[..., None] * inv  # [B, T, D/2]
    cos = torch.cat([ang.cos(), ang.cos()], -1)[:, None].to(x.dtype)
    sin = torch.cat([ang.sin(), ang.sin()], -1)[:, None].to(x.dtype)
    x1, x2 = x[..., : d // 2], x[..., d // 2:]
    return x * cos + torch.cat([-x2, x1], -1) * sin


class Attention(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        h, kv, d = c.num_attention_heads, c.num_key_value_heads, c.head_dim
        self.q_proj = torch.nn.Linear(c.hidden_size, h * d, bias=False)
        self.k_proj = torch.nn.Linear(c.hidden_size, kv * d, bias=False)
        self.v_proj = torch.nn.Linear(c.hidden_size, kv * d, bias=False)
        self.o_proj = torch.nn.Linear(h * d, c.hidden_size, bias=False)

    def forward(self, x, pos, mask, cache):
        c = self.c
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, c.num_attention_heads, c.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, t, c.num_key_value_heads, c.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, t, c.num_key_value_heads, c.head_dim).transpose(1, 2)
        q, k = rope(q, pos, c.rope_theta), rope(k, pos, c.rope_theta)
        if cache is not None:
            if cache[0] is not None:  # Batch (kept for callers of the simple path); the worker uses decode.py
                k = torch.cat([cache[0], k], 2)
                v = torch.cat([cache[1], v], 2)
            cache[0], cache[1] = k, v
        if _SDPA is not None:  # fused kernel (torch >= 2.0); each KV head serves rep query heads
            rep = c.num_attention_heads // c.num_key_value_heads
            out = _SDPA(q, k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1), attn_mask=mask[:, None])
        else:
            out = grouped_attention(q, k, v, mask[:, None], c.head_dim)
        return self.o_proj(out.transpose(1, 2).reshape(b, t, -1))


_SDPA = getattr(F, "scaled_dot_product_attention", None)


def grouped_attention(q, k, v, mask, head_dim):
    """softmax(q k^T / sqrt(d)) v with q [B, H, T, D] and k, v [B, KV, S, D]: query head h uses KV
    head h // (H / KV) (Hugging Face's repeat_interleave), by viewing the queries as KV groups of
    rep x T rows instead of repeating K and V. mask: bool [B, 1, T, S] (True = attend)."""
    b, h, t, d = q.shape
    kv = k.shape[1]
    rep = h // kv
    qg = q.reshape(b, kv, rep * t, d)
    att = (qg @ k.transpose(-1, -2)) / math.sqrt(head_dim)
    m = mask.unsqueeze(2).expand(b, 1, rep, t, mask.shape[-1]).reshape(b, 1, rep * t, mask.shape[-1])
    att = att.masked_fill(~m, float("-inf"))
    out = F.softmax(att.float(), -1).to(q.dtype) @ v
    return out.view(b, h, t, d)


class MLP(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.gate_proj = torch.nn.Linear(c.hidden_size, c.intermediate_size, bias=False)
        self.up_proj = torch.nn.Linear(c.hidden_size, c.intermediate_size, bias=False)
        self.down_proj = torch.nn.Linear(c.intermediate_size, c.hidden_size, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self_attn = Attention(c)
        self.mlp = MLP(c)
        self.input_layernorm = RMSNorm(c.hidden_size, c.rms_norm_eps)
        self.post_attention_layernorm = RMSNorm(c.hidden_size, c.rms_norm_eps)

    def forward(self, x, pos, mask, cache):
        x = x + self.self_attn(self.input_layernorm(x), pos, mask, cache)
        return x + self.mlp(self.post_attention_layernorm(x))


class Inner(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embed_tokens = torch.nn.Embedding(c.vocab_size, c.hidden_size)
        self.layers = torch.nn.ModuleList([Layer(c) for _ in range(c.num_hidden_layers)])
        self.norm = RMSNorm(c.hidden_size, c.rms_norm_eps)


class Llama(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.config = c
        self.model = Inner(c)
        self.lm_head = torch.nn.Linear(c.hidden_size, c.vocab_size, bias=False)
        if c.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight

    def forward(self, ids, pos, mask, caches=None, last_only=False):
        """ids, pos [B, T]; mask [B, T_total]: key validity; returns logits [B, T, V] ([B, V] with
        last_only: the prefill of a prompt needs the next token's distribution only)."""
        x = self.trunk(ids, pos, mask, caches)
        return self.lm_head(x[:, -1] if last_only else x)

    def trunk(self, ids, pos, mask, caches=None):
        """The final-normed hidden states [B, T, d] (the input of lm_head)."""
        t = ids.shape[1]
        total = mask.shape[1]
        # causal over the new tokens, plus each row's own padding
        causal = torch.ones(t, total, dtype=torch.bool, device=ids.device).tril(total - t)
        # a padding position attends to itself only: all-masked rows would give NaN in the cache
        own = torch.zeros(t, total, dtype=torch.bool, device=ids.device)
        own[torch.arange(t), torch.arange(total - t, total)] = True
        m = (mask[:, None, :] & causal[None]) | own[None]
        x = self.model.embed_tokens(ids)
        for i, layer in enumerate(self.model.layers):
            x = layer(x, pos, m, caches[i] if caches is not None else None)
        return self.model.norm(x)


def load(model_dir, device="cpu", dtype=torch.float32):
    with open(os.path.join(model_dir, "config.json")) as f:
        c = Config(json.load(f))
    st = os.path.join(model_dir, "model.safetensors")
    shards = sorted(p for p in os.listdir(model_dir) if p.endswith(".safetensors"))
    if shards:
        state = {}
        for p in shards:
            state.update(read_safetensors(os.path.join(model_dir, p)))
    elif os.path.exists(os.path.join(model_dir, "pytorch_model.bin")):
        state = torch.load(os.path.join(model_dir, "pytorch_model.bin"), map_location="cpu")
    else:
        raise ValueError("%s has neither *.safetensors nor pytorch_model.bin" % model_dir)
    m = Llama(c)
    if c.tie_word_embeddings:
        state.pop("lm_head.weight", None)
    missing, unexpected = m.load_state_dict(state, strict=False)
    missing = [k for k in missing if not (c.tie_word_embeddings and k == "lm_head.weight")]
    unexpected = [k for k in unexpected if "rotary_emb" not in k]
    if missing or unexpected:
        raise ValueError("%s: missing weights %s, unexpected %s" % (model_dir, missing[:5], unexpected[:5]))
    return m.to(device=device, dtype=dtype).eval()


class Batch:
    """KV cache of rows (teachers) that share every new token: left-padded prompts, one mask."""

    def __init__(self, model, prompts, device, pad_id=0):
        self.model = model
        n = max(len(p) for p in prompts)
        ids = torch.full((len(prompts), n), pad_id, dtype=torch.long)
        mask = torch.zeros((len(prompts), n), dtype=torch.bool)
        for i, p in enumerate(prompts):
            ids[i, n - len(p):] = torch.tensor(p, dtype=torch.long)
            mask[i, n - len(p):] = True
        self.mask = mask.to(device)
        self.next_pos = torch.tensor([len(p) for p in prompts], device=device)
        pos = (self.mask.long().cumsum(1) - 1).clamp(min=0)
        self.caches = [[None, None] for _ in model.model.layers]
        with torch.no_grad():
            self.last = model(ids.to(device), pos, self.mask, self.caches, last_only=True).float()
        self.length = n

    def append(self, tokens):
        """Feeds the same tokens to every row; returns next-token logits [rows, V]."""
        if tokens:
            dev = self.mask.device
            t = len(tokens)
            ids = torch.tensor([tokens] * self.mask.shape[0], dtype=torch.long, device=dev)
            pos = self.next_pos[:, None] + torch.arange(t, device=dev)[None]
            self.mask = torch.cat([self.mask, torch.ones((self.mask.shape[0], t), dtype=torch.bool, device=dev)], 1)
            with torch.no_grad():
                self.last = self.model(ids, pos, self.mask, self.caches, last_only=True).float()
            self.next_pos = self.next_pos + t
            self.length += t
        return self.last

    def nbytes(self):
        return sum(k.numel() * k.element_size() * 2 for k, _ in self.caches if k is not None)
