"""A Hugging Face tokenizer.json (byte-level BPE: GPT-2, Llama 3, the demo model) in pure Python.

Encodes text as ordinary text (special tokens are never produced from text, as on the Java side,
docs/records.md §4) and decodes ids to exact bytes. Supported: model BPE with a ByteLevel
pre-tokenizer (GPT-2's regex) or a Split(regex) + ByteLevel sequence (Llama 3), no normalizer.
Patterns with \\p{..} classes need the `regex` module (Debian: python3-regex). The Java side
encodes with Hugging Face's own library; tests/test_bpe.py checks this encoder against ids it wrote.
"""
import json
import os

try:
    import regex as re_mod
except ImportError:  # only patterns without \p{..} then
    import re as re_mod

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
EOS_NAMES = ["<|endoftext|>", "<|end_of_text|>", "</s>", "<eos>", "<|eot_id|>"]


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


class Tokenizer:
    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            spec = json.load(f)
        model = spec.get("model") or {}
        if model.get("type", "BPE") != "BPE" or not isinstance(model.get("vocab"), dict):
            raise ValueError("%s: a BPE tokenizer.json with model.vocab is expected" % path)
        if spec.get("normalizer"):
            raise ValueError("%s: normalizers are not supported" % path)
        self.vocab = model["vocab"]
        merges = model.get("merges", [])
        self.ranks = {}
        for i, m in enumerate(merges):
            a, b = m.split(" ", 1) if isinstance(m, str) else m
            self.ranks[(a, b)] = i
        self.patterns, self.prefix_space = self._pre_tokenizer(spec.get("pre_tokenizer") or {}, path)
        self.b2u = bytes_to_unicode()
        u2b = {u: b for b, u in self.b2u.items()}
        self.special = {}
        self.id_bytes = {}
        for tok, i in self.vocab.items():
            try:
                self.id_bytes[i] = bytes(u2b[c] for c in tok)
            except KeyError:
                self.id_bytes[i] = tok.encode("utf-8")
        for t in spec.get("added_tokens", []):
            if t.get("special"):
                self.special[t["content"]] = t["id"]
            else:
                self.id_bytes[t["id"]] = t["content"].encode("utf-8")
        self.vocabulary_size = 1 + max(list(self.vocab.values()) + [t["id"] for t in spec.get("added_tokens", [])])
        self.eos = self._eos(path)
        self.cache = {}

    @staticmethod
    def _pre_tokenizer(pt, path):
        steps = pt.get("pretokenizers", [pt]) if pt.get("type") == "Sequence" else [pt]
        patterns, prefix = [], False
        for s in steps:
            if s.get("type") == "ByteLevel":
                prefix = prefix or s.get("add_prefix_space", False)
                if s.get("use_regex", True):
                    patterns.append(GPT2_PATTERN)
            elif s.get("type") == "Split" and "Regex" in s.get("pattern", {}) and s.get("behavior") == "Isolated" \
                    and not s.get("invert", False):
                patterns.append(s["pattern"]["Regex"])
            else:
                raise ValueError("%s: pre-tokenizer %s is not supported" % (path, s.get("type")))
        compiled = []
        for p in patterns:
            if "\\p{" in p and re_mod.__name__ == "re":
                raise ValueError("%s: the pattern needs the regex module (apt-get install python3-regex)" % path)
            compiled.append(re_mod.compile(p))
        return compiled, prefix

    def _eos(self, path):
        cfg = os.path.join(os.path.dirname(os.path.abspath(path)), "tokenizer_config.json")
        if os.path.exists(cfg):
            with open(cfg, encoding="utf-8") as f:
                e = json.load(f).get("eos_token")
            if isinstance(e, dict):
                e = e.get("content")
            if e:
                return self.special[e]
        for n in EOS_NAMES:
            if n in self.special:
                return self.special[n]
        raise ValueError("%s names no end-of-text token" % path)

    def _split(self, text):
        pieces = [text]
        for p in self.patterns:
            pieces = [m.group(0) for piece in pieces for m in p.finditer(piece)]
        return pieces

    def _bpe(self, word):
        hit = self.cache.get(word)
        if hit is not None:
            return hit
        parts = list(word)
        while len(parts) > 1:
            best, best_rank = -1, None
            for i in range(len(parts) - 1):
                r = self.ranks.get((parts[i], parts[i + 1]))
                if r is not None and (best_rank is None or r < best_rank):
                    best, best_rank = i, r
            if best < 0:
                break
            parts[best:best + 2] = [parts[best] + parts[best + 1]]
        ids = [self.vocab[p] for p in parts]
        if len(self.cache) < 100000:
            self.cache[word] = ids
        return ids

    def encode(self, text):
        """Token ids of `text` as ordinary text (no special tokens)."""
        if self.prefix_space and text and not text.startswith(" "):
            text = " " + text
        ids = []
        for piece in self._split(text):
            ids.extend(self._bpe("".join(self.b2u[b] for b in piece.encode("utf-8"))))
        return ids

    def decode_bytes(self, ids):
        specials = set(self.special.values())
        return b"".join(self.id_bytes.get(i, b"") for i in ids if i not in specials)

    def decode(self, ids):
        return self.decode_bytes(ids).decode("utf-8", errors="replace")
