"""The worker's decode path: one prompt KV cache shared by every sequence, preallocated per-sequence
caches bounded in bytes, and the steps of several sequences in one forward.

A teacher's context is its head (the template filled with its users' records: private, different
per teacher) followed by the sequence's history (the public prompt and the released tokens: the
same for every teacher). So:

* `Heads` prefills each teacher's head once, for the life of the worker (left-padded, `rows`
  teachers per forward, no logits but the last position's hidden state); every sequence attends to
  these keys and values, which are never copied.
* `Sequence` holds the history's keys and values of every teacher in tensors preallocated to a
  capacity (doubled when a history outgrows it, so a step writes in place: no per-step cat).
* `forward` feeds each sequence's new tokens to all teachers: the projections and the MLP run as
  one matrix product over every (sequence, teacher, token) row, the attention per sequence over
  [head keys | history keys], with grouped-query attention done by viewing the queries as
  KV-head groups (Hugging Face's repeat_interleave order) rather than repeating K and V — on the
  CPU, for a step's few new tokens, as broadcast products over every teacher at once rather than
  torch 1.13's one BLAS call per matrix (`BROADCAST`); the logits are computed for the last new
  token of each row only.
"""
import math
from typing import List, Optional, Sequence as Seq, Tuple

import torch
import torch.nn.functional as F

from .llama import Llama


class Rope:
    """cos and sin of every position up to `n` (grown on demand), the same float32 arithmetic as
    llama.rope, so the cached path and the full forward agree."""

    def __init__(self, head_dim: int, theta: float, device, n: int = 4096):
        self.d, self.theta, self.device = head_dim, theta, device
        self._build(n)

    def _build(self, n: int) -> None:
        d = self.d
        inv = 1.0 / (self.theta ** (torch.arange(0, d, 2, device=self.device, dtype=torch.float32) / d))
        ang = torch.arange(n, device=self.device).to(torch.float32)[:, None] * inv
        self.cos = torch.cat([ang.cos(), ang.cos()], -1)
        self.sin = torch.cat([ang.sin(), ang.sin()], -1)

    def tables(self, pos: torch.Tensor, dtype) -> Tuple[torch.Tensor, torch.Tensor]:
        """cos and sign-folded sin for positions pos [R, T], shaped [R, T, 1, D] (once per forward)."""
        if int(pos.max()) >= self.cos.shape[0]:
            self._build(2 * int(pos.max()) + 1)
        h = self.d // 2
        sin = self.sin[pos]
        # rotate_half(x) * sin = [x2, x1] * [-sin1, sin2]: the sign moves to the table (exact)
        sin = torch.cat([-sin[..., :h], sin[..., h:]], -1)
        return self.cos[pos][:, :, None].to(dtype), sin[:, :, None].to(dtype)

    def apply(self, x: torch.Tensor, cs: Tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        """x [R, T, H, D]."""
        h = self.d // 2
        return x * cs[0] + torch.cat([x[..., h:], x[..., :h]], -1) * cs[1]


class Heads:
    """The prompt KV cache: every teacher's head prefilled once, shared by all sequences."""

    def __init__(self, model: Llama, prompts: List[List[int]], device, rows: int, pad_id: int = 0):
        if any(len(p) == 0 for p in prompts):
            raise ValueError("every teacher's prompt head must have at least one token")
        self.n = len(prompts)
        width = max(len(p) for p in prompts)
        ids = torch.full((self.n, width), pad_id, dtype=torch.long)
        valid = torch.zeros((self.n, width), dtype=torch.bool)
        for i, p in enumerate(prompts):  # left-padded: every head ends at column width - 1
            ids[i, width - len(p):] = torch.tensor(p, dtype=torch.long)
            valid[i, width - len(p):] = True
        ids, valid = ids.to(device), valid.to(device)
        self.length = valid.sum(1)  # the first history token's position, per teacher
        pos = (valid.long().cumsum(1) - 1).clamp(min=0)
        layers = len(model.model.layers)
        self.k: List[List[torch.Tensor]] = [[] for _ in range(layers)]
        self.v: List[List[torch.Tensor]] = [[] for _ in range(layers)]
        last = []
        with torch.no_grad():
            for r0 in range(0, self.n, rows):
                caches = [[None, None] for _ in range(layers)]
                h = model.trunk(ids[r0:r0 + rows], pos[r0:r0 + rows], valid[r0:r0 + rows], caches)
                last.append(h[:, -1])
                for i, (k, v) in enumerate(caches):
                    self.k[i].append(k)
                    self.v[i].append(v)
        # one tensor per layer [n, kv, width, D]; chunk views below keep row blocks contiguous
        self.k = [torch.cat(ks) for ks in self.k]
        self.v = [torch.cat(vs) for vs in self.v]
        self.last_hidden = torch.cat(last)  # for a history of no tokens at all
        # additive mask over the head keys: 0 where valid, -inf on padding
        self.bias = torch.zeros(valid.shape, dtype=torch.float32, device=device).masked_fill(~valid, float("-inf"))

    def nbytes(self) -> int:
        return sum(t.numel() * t.element_size() for t in self.k + self.v)


class Sequence:
    """One sequence's history keys and values for every teacher: [n, kv, capacity, D] per layer,
    `length` of them filled; `last_hidden` [n, d] is the last history token's final hidden state."""

    def __init__(self, model: Llama, n: int, device, dtype, capacity: int = 32):
        c = model.config
        self.shape = (n, c.num_key_value_heads, c.head_dim)
        self.layers = c.num_hidden_layers
        self.device, self.dtype = device, dtype
        self.history: List[int] = []
        self.length = 0
        self.last_hidden: Optional[torch.Tensor] = None
        self.k = self.v = None  # type: ignore[assignment]
        self._alloc(capacity)

    def _alloc(self, capacity: int) -> None:
        n, kv, d = self.shape
        k = [torch.empty((n, kv, capacity, d), device=self.device, dtype=self.dtype) for _ in range(self.layers)]
        v = [torch.empty((n, kv, capacity, d), device=self.device, dtype=self.dtype) for _ in range(self.layers)]
        if self.k is not None:  # grown: copy what is filled (capacities double: rare)
            for i in range(self.layers):
                k[i][:, :, :self.length] = self.k[i][:, :, :self.length]
                v[i][:, :, :self.length] = self.v[i][:, :, :self.length]
        self.k, self.v, self.capacity = k, v, capacity

    def reserve(self, total: int) -> None:
        if total > self.capacity:
            cap = self.capacity
            while cap < total:
                cap *= 2
            self._alloc(cap)

    def nbytes(self) -> int:
        n, kv, d = self.shape
        return 2 * self.layers * n * kv * self.capacity * d * torch.tensor([], dtype=self.dtype).element_size()


# torch 1.13's CPU bmm without MKL (Debian's BLAS_INFO=generic) makes one BLAS call per matrix:
# for a decode step's [1 x D] x [D x S] products of hundreds of teachers that is thousands of
# calls a step, each costing more than its arithmetic. With few query rows per KV head the scores
# and the weighted values are computed instead as one broadcast multiply and sum over every
# teacher at once (the same products, summed in another order: float32 rounding only). The
# broadcast writes a temporary of rep x t times the keys, so with more query rows per KV head the
# matrix products win again: one step of 256 teachers, 96 keys, on 2 threads (OpenBLAS, OpenMP
# build), attention of one layer: 4 KV heads x 1 query row of 24: broadcast 3.2 ms, bmm 3.7 ms;
# 2 x 2 of 64: 3.8 and 3.9 ms; 1 x 4 of 64 (the demo model, multi-query): 3.2 and 1.7 ms.
BROADCAST = True
_FEW = 2


def _attend(q, hk, hv, hbias, sk, sv, t, scale):
    """q [R, t, H, D] → [R, t, H*D]: attention over the head keys hk [R, KV, W, D] (additive mask
    hbias [R, W]) and the history keys sk [R, KV, S, D] whose last t are the new tokens (causal)."""
    r, _, h, d = q.shape
    kv = hk.shape[1]
    rep = h // kv
    # [R, t, KV, rep, D] → [R, KV, rep*t, D]: query head h is group h // rep, as repeat_interleave
    qg = q.reshape(r, t, kv, rep, d).permute(0, 2, 3, 1, 4).reshape(r, kv, rep * t, d) * scale
    few = BROADCAST and q.device.type == "cpu" and rep * t <= _FEW
    if few:  # see BROADCAST
        qb = qg[:, :, :, None, :]
        a_head = (qb * hk[:, :, None]).sum(-1) + hbias[:, None, None, :]
        a_seq = (qb * sk[:, :, None]).sum(-1)
    else:
        a_head = qg @ hk.transpose(-1, -2) + hbias[:, None, None, :]
        a_seq = qg @ sk.transpose(-1, -2)
    if t > 1:  # new token i sees history keys up to S - t + i
        s = sk.shape[2]
        causal = torch.ones(t, s, dtype=torch.bool, device=q.device).tril(s - t)
        a_seq = a_seq.masked_fill(~causal.repeat(rep, 1), float("-inf"))
    w = hk.shape[2]
    p = F.softmax(torch.cat([a_head, a_seq], -1).float(), -1).to(q.dtype)
    if few:
        out = (p[..., :w, None] * hv[:, :, None]).sum(-2) + (p[..., w:, None] * sv[:, :, None]).sum(-2)
    else:
        out = p[..., :w] @ hv + p[..., w:] @ sv  # [R, KV, rep*t, D]
    return out.reshape(r, kv, rep, t, d).permute(0, 3, 1, 2, 4).reshape(r, t, h * d)


class Engine:
    """Runs `Heads` + `Sequence`s through the model (inference only)."""

    def __init__(self, model: Llama, device):
        self.model, self.device = model, device
        c = model.config
        self.c = c
        self.rope = Rope(c.head_dim, c.rope_theta, device, max(64, min(c.max_position_embeddings, 8192)))
        self.scale = 1.0 / math.sqrt(c.head_dim)
        # one weight for q|k|v and one for gate|up: fewer, larger matrix products; the modules'
        # weights become views of them, so the model is unchanged
        self.qkv, self.gu = [], []
        for layer in model.model.layers:
            a, m = layer.self_attn, layer.mlp
            self.qkv.append(_fuse([a.q_proj, a.k_proj, a.v_proj]))
            self.gu.append(_fuse([m.gate_proj, m.up_proj]))

    @torch.no_grad()
    def forward(self, heads: Heads, groups: Seq[Tuple[Sequence, List[int]]], r0: int, r1: int) -> torch.Tensor:
        """Feeds each group's new tokens to teachers r0..r1-1 of its sequence (writing their keys
        and values); returns the final hidden states of the last new token [groups, r1 - r0, d].
        Every group here has at least one new token; the caller has reserved the capacity."""
        c, m = self.c, self.model
        rows = r1 - r0
        h, kv, d = c.num_attention_heads, c.num_key_value_heads, c.head_dim
        ts = [len(toks) for _, toks in groups]
        ids = torch.cat([torch.tensor(toks, dtype=torch.long, device=self.device).expand(rows, -1).reshape(-1)
                         for _, toks in groups])
        x = m.model.embed_tokens(ids)  # [Σ rows·t, d_model], group by group, row-major
        hl = heads.length[r0:r1]
        rope = [self.rope.tables(hl[:, None] + seq.length + torch.arange(t, device=self.device)[None], x.dtype)
                for (seq, _), t in zip(groups, ts)]
        hbias = heads.bias[r0:r1]
        for i, layer in enumerate(m.model.layers):
            a = layer.self_attn
            y = layer.input_layernorm(x)
            qkv = F.linear(y, self.qkv[i])
            outs, off = [], 0
            for (seq, _), t, cs in zip(groups, ts, rope):
                blk = qkv[off:off + rows * t].view(rows, t, -1)
                off += rows * t
                qk = self.rope.apply(blk[..., :(h + kv) * d].reshape(rows, t, h + kv, d), cs)  # q and k at once
                q, k = qk[:, :, :h], qk[:, :, h:]
                v = blk[..., (h + kv) * d:].reshape(rows, t, kv, d)
                s0 = seq.length
                seq.k[i][r0:r1, :, s0:s0 + t] = k.transpose(1, 2)
                seq.v[i][r0:r1, :, s0:s0 + t] = v.transpose(1, 2)
                o = _attend(q, heads.k[i][r0:r1], heads.v[i][r0:r1], hbias,
                            seq.k[i][r0:r1, :, :s0 + t], seq.v[i][r0:r1, :, :s0 + t], t, self.scale)
                outs.append(o.reshape(rows * t, h * d))
            x = x + a.o_proj(torch.cat(outs) if len(outs) > 1 else outs[0])
            gu = F.linear(layer.post_attention_layernorm(x), self.gu[i])
            half = gu.shape[-1] // 2
            x = x + layer.mlp.down_proj(F.silu(gu[:, :half]) * gu[:, half:])
        last, off = [], 0
        for t in ts:
            off += rows * t
            last.append(x[off - rows * t:off].view(rows, t, -1)[:, -1])
        return m.model.norm(torch.stack(last))

    def logits(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.model.lm_head(hidden).float()


def _fuse(linears) -> torch.Tensor:
    w = torch.cat([lin.weight.data for lin in linears])
    off = 0
    for lin in linears:
        n = lin.weight.shape[0]
        lin.weight.data = w[off:off + n]
        off += n
    return w
