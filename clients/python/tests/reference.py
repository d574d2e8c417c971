"""An independent Llama for the tests: plain float64 numpy loops over positions and heads, written
from Hugging Face's definitions (RMSNorm, rotate-half RoPE, query head h reads KV head h // rep,
SwiGLU), no cache, no batching, no padding. The model under test must agree with it."""
import math

import numpy as np


def reference_logits(model, ids):
    """Logits [T, V] of the token list `ids`."""
    c = model.config
    w = {k: v.detach().double().numpy() for k, v in model.state_dict().items()}
    emb = w["model.embed_tokens.weight"]
    head = w["lm_head.weight"] if "lm_head.weight" in w else emb
    n_h, n_kv, d = c.num_attention_heads, c.num_key_value_heads, c.head_dim
    rep = n_h // n_kv

    def rms(v, g):
        return v / np.sqrt((v * v).mean(-1, keepdims=True) + c.rms_norm_eps) * g

    def rot(v, p):
        out = np.empty(d)
        for i in range(d // 2):
            ang = p / c.rope_theta ** (2 * i / d)
            a, b = v[i], v[i + d // 2]
            out[i] = a * math.cos(ang) - b * math.sin(ang)
            out[i + d // 2] = b * math.cos(ang) + a * math.sin(ang)
        return out

    x = emb[list(ids)]
    t_len = len(ids)
    for layer in range(c.num_hidden_layers):
        p = "model.layers.%d." % layer
        h = rms(x, w[p + "input_layernorm.weight"])
        q = h @ w[p + "self_attn.q_proj.weight"].T
        k = h @ w[p + "self_attn.k_proj.weight"].T
        v = h @ w[p + "self_attn.v_proj.weight"].T
        att = np.zeros((t_len, n_h * d))
        for hh in range(n_h):
            g = hh // rep
            qs = [rot(q[t, hh * d:(hh + 1) * d], t) for t in range(t_len)]
            ks = [rot(k[t, g * d:(g + 1) * d], t) for t in range(t_len)]
            for t in range(t_len):
                s = np.array([qs[t] @ ks[j] for j in range(t + 1)]) / math.sqrt(d)
                e = np.exp(s - s.max())
                e /= e.sum()
                att[t, hh * d:(hh + 1) * d] = sum(e[j] * v[j, g * d:(g + 1) * d] for j in range(t + 1))
        x = x + att @ w[p + "self_attn.o_proj.weight"].T
        h = rms(x, w[p + "post_attention_layernorm.weight"])
        gate = h @ w[p + "mlp.gate_proj.weight"].T
        x = x + ((gate / (1 + np.exp(-gate))) * (h @ w[p + "mlp.up_proj.weight"].T)) @ w[p + "mlp.down_proj.weight"].T
    return rms(x, w["model.norm.weight"]) @ head.T


def softmax(z, temperature=1.0):
    z = np.asarray(z, dtype=np.float64) / temperature
    e = np.exp(z - z.max())
    return e / e.sum()
