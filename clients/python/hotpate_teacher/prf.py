"""hotpate's shared public randomness, spec version 1 (docs/shared-randomness.md), vectorised.

The scalar functions are the reference implementation of docs/shared-randomness.md §7 (pure
Python); `exp1_table` computes u_j for every token of a vocabulary at once with numpy (one Philox
block per four tokens, 64-bit multiplies split into 32-bit halves), and `coordinated_votes` is the
coordinated vote rule of §5 over full distributions, one row per teacher. Nothing here is secret:
the step seed is public, and no DP noise is ever drawn on the teacher side.
"""
import hashlib
import math
import struct

import numpy as np

MASK = (1 << 64) - 1
VERSION = 1
DOMAIN_TOKEN, DOMAIN_RESIDUAL, DOMAIN_INDEPENDENT = 0, 1, 2
MASS_TOLERANCE = 1e-9
_M0, _M1 = 0xD2E7470EE14C6C93, 0xCA5A826395121157
_W0, _W1 = 0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B


def philox4x64_10(ctr, key):
    c0, c1, c2, c3 = ctr
    k0, k1 = key
    for r in range(10):
        if r:
            k0 = (k0 + _W0) & MASK
            k1 = (k1 + _W1) & MASK
        p0 = _M0 * c0
        p1 = _M1 * c2
        c0, c1, c2, c3 = (p1 >> 64) ^ c1 ^ k0, p1 & MASK, (p0 >> 64) ^ c3 ^ k1, p0 & MASK
    return c0, c1, c2, c3


def unsigned(x):
    return x & MASK


def token_word(step_seed, token):
    return philox4x64_10((token >> 2, DOMAIN_TOKEN, 0, 0), (unsigned(step_seed), 0))[token & 3]


def teacher_word(step_seed, domain, teacher_key_):
    return philox4x64_10((0, domain, unsigned(teacher_key_), 0), (unsigned(step_seed), 0))[0]


def to_uniform(x):
    return ((x >> 12) + 0.5) * 2.0 ** -52


def to_exp1(x):
    return -math.log(to_uniform(x))


def step_seed(run_seed, sequence_id, step, attempt):
    seq = sequence_id.encode("utf-8")
    msg = (b"hotpate-step-seed-v1" + struct.pack(">q", run_seed) + struct.pack(">I", len(seq))
           + seq + struct.pack(">I", step) + struct.pack(">I", attempt))
    return int.from_bytes(hashlib.sha256(msg).digest()[:8], "big")


def teacher_key(teacher_id):
    tid = str(teacher_id).encode("utf-8")
    msg = b"hotpate-teacher-key-v1" + struct.pack(">I", len(tid)) + tid
    return int.from_bytes(hashlib.sha256(msg).digest()[:8], "big")


def vote(probs, step_seed_, teacher_key_):
    """Reference coordinated vote over sparse {token: p}; None = abstain (docs §7)."""
    best, best_score, mass = None, 0.0, 0.0
    for t, p in probs.items():
        mass += p
        s = p * (1.0 / to_exp1(token_word(step_seed_, t)))
        if s > best_score or (s == best_score and s > 0 and t < best):
            best, best_score = t, s
    r = 1.0 - mass
    if r > MASS_TOLERANCE and r / to_exp1(teacher_word(step_seed_, DOMAIN_RESIDUAL, teacher_key_)) > best_score:
        return None
    return best


# ---- vectorised ----

_U32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


def _mulhilo(a, b):
    """(hi, lo) of the 128-bit products of uint64 arrays a and b."""
    a0, a1 = a & _U32, a >> _S32
    b0, b1 = b & _U32, b >> _S32
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> _S32) + (p01 & _U32) + (p10 & _U32)
    lo = (p00 & _U32) | ((mid & _U32) << _S32)
    hi = p11 + (p01 >> _S32) + (p10 >> _S32) + (mid >> _S32)
    return hi, lo


def token_words(step_seed_, vocabulary_size):
    """The words of tokens 0..V-1 (uint64 array): Philox blocks 0..ceil(V/4)-1, four words each."""
    blocks = (vocabulary_size + 3) // 4
    with np.errstate(over="ignore"):
        c0 = np.arange(blocks, dtype=np.uint64)
        c1 = np.zeros(blocks, dtype=np.uint64)  # DOMAIN_TOKEN
        c2 = np.zeros(blocks, dtype=np.uint64)
        c3 = np.zeros(blocks, dtype=np.uint64)
        k0, k1 = unsigned(step_seed_), 0
        m0, m1 = np.uint64(_M0), np.uint64(_M1)
        for r in range(10):
            if r:
                k0 = (k0 + _W0) & MASK
                k1 = (k1 + _W1) & MASK
            hi0, lo0 = _mulhilo(m0, c0)
            hi1, lo1 = _mulhilo(m1, c2)
            c0, c1, c2, c3 = hi1 ^ c1 ^ np.uint64(k0), lo1, hi0 ^ c3 ^ np.uint64(k1), lo0
    return np.stack([c0, c1, c2, c3], axis=1).reshape(-1)[:vocabulary_size]


def exp1_table(step_seed_, vocabulary_size):
    """u_j = -ln U_j for tokens 0..V-1 (float64), the same function as `to_exp1(token_word(...))`."""
    w = token_words(step_seed_, vocabulary_size)
    u = ((w >> np.uint64(12)).astype(np.float64) + 0.5) * 2.0 ** -52
    # math.log (the C library's, as the reference): numpy's vectorised log may differ by an ulp;
    # ~20 ms per step for 128k tokens, once per step whatever the number of teachers
    return -np.fromiter(map(math.log, u.tolist()), dtype=np.float64, count=len(u))


def coordinated_votes(probs, step_seed_, teacher_ids):
    """Votes of teachers whose full next-token distributions are the rows of `probs` (float64,
    shape [teachers, V]): argmax_j p_j / u_j with ties to the smallest id (numpy's argmax returns
    the first maximum); a row whose mass falls short of 1 by more than the tolerance lets its
    residual compete with the teacher's own draw (docs §5). -1 = abstain."""
    probs = np.asarray(probs, dtype=np.float64)
    inv = 1.0 / exp1_table(step_seed_, probs.shape[1])
    scores = probs * inv
    best = np.argmax(scores, axis=1)
    best_score = scores[np.arange(len(best)), best]
    out = []
    for i, t in enumerate(teacher_ids):
        b = int(best[i]) if best_score[i] > 0 else -1
        r = 1.0 - float(probs[i].sum())
        if r > MASS_TOLERANCE:
            e = to_exp1(teacher_word(step_seed_, DOMAIN_RESIDUAL, teacher_key(t)))
            if r / e > best_score[i]:
                b = -1
        out.append(b)
    return out


# ---- in torch, where the logits are ----

def inverse_exp1_tensor(step_seed_, vocabulary_size, device="cpu"):
    """1 / u_j for tokens 0..V-1 as a float64 tensor on `device` (the same doubles as exp1_table)."""
    import torch
    return torch.from_numpy(1.0 / exp1_table(step_seed_, vocabulary_size)).to(device)


def coordinated_votes_torch(probs, inv_u, step_seed_, teacher_ids):
    """coordinated_votes on a float64 tensor of probabilities [teachers, V] where it lies (CPU or
    GPU), with the Java CoordinatedSampler's arithmetic: score_j = p_j * (1 / u_j) in float64; the
    first (smallest) token of the best score, computed explicitly rather than trusting argmax's
    tie order; no vote when the best score is 0; the residual r = 1 - Σp (summed in token order, as
    the Java loop does, by a cumulative sum) competes with the teacher's own draw when r > the
    tolerance. Only the [teachers] results leave the device."""
    import torch
    scores = probs * inv_u
    best_score, best = scores.max(1)
    ties = ((scores == best_score[:, None]).sum(1) > 1).nonzero().flatten()
    if len(ties):  # rare: the smallest token among the maxima, not whichever max() returned
        s = scores[ties]
        ids = torch.arange(s.shape[1], device=s.device).expand_as(s)
        best[ties] = ids.masked_fill(s != best_score[ties, None], s.shape[1]).min(1).values
    residual = 1.0 - probs.cumsum(1)[:, -1]
    best, best_score, residual = best.tolist(), best_score.tolist(), residual.tolist()
    out = []
    for i, t in enumerate(teacher_ids):
        b = best[i] if best_score[i] > 0 else -1
        r = residual[i]
        if r > MASS_TOLERANCE:
            e = to_exp1(teacher_word(step_seed_, DOMAIN_RESIDUAL, teacher_key(t)))
            if r / e > best_score[i]:
                b = -1
        out.append(b)
    return out
