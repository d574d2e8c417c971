"""The wire format of steps and answers: hotpate's Avro single-object encoding of
schemas/generation_step.avsc and schemas/teacher_distribution.avsc in standard-library Python (no
Avro library), with the three answers a teacher sends: SparseProbabilities, and ModelVote (union
branch 2). `external_teacher.py --self-test` checks it against schemas/vectors/.
"""
import io
import struct
from typing import BinaryIO, Callable, List, Optional, Sequence


# ---- Avro binary encoding (the subset these two schemas use) ----

def _zigzag(n):
    return (n << 1) ^ (n >> 63)


def write_long(out, n):
    if not -(1 << 63) <= n < (1 << 63):  # an Avro long is a Java long: no silent wrap-around
        raise ValueError("%d is out of the range of a 64-bit signed long" % n)
    n = _zigzag(n) & 0xFFFFFFFFFFFFFFFF
    while n & ~0x7F:
        out.write(bytes([(n & 0x7F) | 0x80]))
        n >>= 7
    out.write(bytes([n]))


def read_long(inp):
    shift, acc = 0, 0
    while True:
        b = inp.read(1)[0]
        acc |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            break
    return (acc >> 1) ^ -(acc & 1)


def write_string(out, s):
    b = s.encode("utf-8")
    write_long(out, len(b))
    out.write(b)


def read_string(inp):
    return inp.read(read_long(inp)).decode("utf-8")


def write_double(out, x):
    out.write(struct.pack("<d", x))


def write_array(out, items, write_item):
    if items:
        write_long(out, len(items))
        for x in items:
            write_item(out, x)
    write_long(out, 0)


def read_array(inp, read_item):
    items = []
    while True:
        n = read_long(inp)
        if n == 0:
            return items
        if n < 0:  # block with a byte size
            n = -n
            read_long(inp)
        items.extend(read_item(inp) for _ in range(n))


# ---- single-object encoding: C3 01, the schema's 8-byte CRC-64-AVRO fingerprint, the body ----

# The writer schemas' CRC-64-AVRO fingerprints (schemas/*.avsc): the headers of the shipped vectors
# schemas/vectors/*.bin, which external_teacher.py --self-test checks.
STEP_FP = bytes.fromhex("22b46311c79f48bf")
DIST_FP = bytes.fromhex("8ac45b39ba1d4e83")


def decode_step(b):
    if b[:2] != b"\xc3\x01" or b[2:10] != STEP_FP:
        raise ValueError("not a GenerationStep of this schema version")
    inp = io.BytesIO(b[10:])
    step = {
        "runId": read_string(inp),
        "ensembleId": read_string(inp),
        "sequenceId": read_long(inp),
        "step": read_long(inp),
        "attempt": read_long(inp),
        "prefix": read_array(inp, read_long),
        "publicSeed": read_long(inp),
        "randomnessVersion": read_long(inp),
        "vocabularySize": read_long(inp),
        "issuedAtMs": read_long(inp),
        "deadlineMs": read_long(inp),
        "prompt": read_array(inp, read_long),
    }
    step["label"] = read_string(inp) if read_long(inp) == 1 else None
    return step


def encode_sparse_distribution(step, teacher_id, tokens, probs, sent_at_ms):
    """A SPARSE answer (union branch 0): probs[i] on tokens[i], distinct tokens, sum <= 1."""
    out = io.BytesIO()
    out.write(b"\xc3\x01" + DIST_FP)
    write_string(out, step["runId"])
    write_long(out, step["sequenceId"])
    write_long(out, step["step"])
    write_long(out, step["attempt"])
    write_long(out, teacher_id)
    write_long(out, 0)  # union branch: SparseProbabilities
    write_array(out, tokens, write_long)
    write_array(out, probs, write_double)
    write_long(out, sent_at_ms)
    return out.getvalue()


def encode_model_vote(step: dict, teacher_id: int, token: int, randomness_version: int, sent_at_ms: int) -> bytes:
    """A MODEL_VOTE answer: the teacher's own coordinated vote (-1 = abstain)."""
    out = io.BytesIO()
    out.write(b"\xc3\x01" + DIST_FP)
    write_string(out, step["runId"])
    write_long(out, step["sequenceId"])
    write_long(out, step["step"])
    write_long(out, step["attempt"])
    write_long(out, teacher_id)
    write_long(out, 2)  # union branch: ModelVote
    write_long(out, token)
    write_long(out, randomness_version)
    write_long(out, sent_at_ms)
    return out.getvalue()


encode_sparse = encode_sparse_distribution
