#!/usr/bin/env python3
"""An external hotpate teacher in Python: reads generation steps from Kafka and answers each with
a next-token distribution per teacher it serves, in the project's Avro single-object encoding.

The wire format is the one of schemas/generation_step.avsc and schemas/teacher_distribution.avsc
(docs/streaming.md, "External teachers"). This file encodes and decodes it with the standard
library only; Kafka I/O needs confluent-kafka (pip install confluent-kafka).

  python3 external_teacher.py --self-test            # check the codec against schemas/vectors/
  python3 external_teacher.py --bootstrap 127.0.0.1:9092 --run RUN_ID \
      --teachers 0-99 --corpus my_user_texts.jsonl    # answer a run's steps

Replace `next_token_distribution` with your model (an LLM's top-k probabilities, for example).
Privacy: a teacher only ever sees public steps (prefix, public seed) and its own private data;
DP noise is added by the job, never here.
"""
import argparse
import io
import json
import os
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "..", "..", "schemas", "vectors")


# ---- Avro binary encoding (the subset these two schemas use) ----

def _zigzag(n):
    return (n << 1) ^ (n >> 63)


def write_long(out, n):
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

def fingerprint(vector_name):
    """The writer-schema fingerprint this client speaks, taken from the shipped vector's header."""
    with open(os.path.join(VECTORS, vector_name + ".bin"), "rb") as f:
        head = f.read(10)
    assert head[:2] == b"\xc3\x01", "not a single-object encoding"
    return head[2:10]


STEP_FP = None
DIST_FP = None


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


# ---- the teacher: replace with your model ----

def next_token_distribution(teacher_id, step, model):
    """A toy model: the unigram distribution of the teacher's own tokens (ids in model[teacher])."""
    counts = model.get(teacher_id)
    if not counts:
        return [], []  # abstain: no mass listed
    total = sum(counts.values())
    top = sorted(counts.items(), key=lambda kv: -kv[1])[:64]
    return [t for t, _ in top], [c / total for _, c in top]


def self_test():
    with open(os.path.join(VECTORS, "generation_step.bin"), "rb") as f:
        step = decode_step(f.read())
    with open(os.path.join(VECTORS, "generation_step.json")) as f:
        expected = json.load(f)
    for k in ("runId", "sequenceId", "step", "attempt", "prefix", "publicSeed", "vocabularySize"):
        assert step[k] == expected[k], (k, step[k], expected[k])
    with open(os.path.join(VECTORS, "teacher_distribution.bin"), "rb") as f:
        want = f.read()
    d = json.load(open(os.path.join(VECTORS, "teacher_distribution.json")))
    got = encode_sparse_distribution(
        {k: d[k] for k in ("runId", "sequenceId", "step", "attempt")},
        d["teacherId"], d["payload"]["tokens"], d["payload"]["probs"], d["sentAtMs"])
    assert got == want, "teacher_distribution encoding differs from schemas/vectors"
    print("self-test ok: decoded generation_step.bin, re-encoded teacher_distribution.bin byte for byte")


def main():
    global STEP_FP, DIST_FP
    STEP_FP = fingerprint("generation_step")
    DIST_FP = fingerprint("teacher_distribution")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--bootstrap", default="127.0.0.1:9092")
    ap.add_argument("--steps-topic", default="hotpate.steps")
    ap.add_argument("--distributions-topic", default="hotpate.distributions")
    ap.add_argument("--run", help="answer only this run id")
    ap.add_argument("--teachers", default="0-9", help="teacher ids served, e.g. 0-99")
    ap.add_argument("--model", help="JSON {teacherId: {tokenId: count}} for the toy model")
    a = ap.parse_args()
    if a.self_test:
        self_test()
        return
    from confluent_kafka import Consumer, Producer  # pip install confluent-kafka
    lo, hi = (int(x) for x in a.teachers.split("-"))
    model = {}
    if a.model:
        model = {int(t): {int(k): v for k, v in c.items()} for t, c in json.load(open(a.model)).items()}
    cons = Consumer({"bootstrap.servers": a.bootstrap, "group.id": "py-teacher-%d-%d" % (lo, hi),
                     "isolation.level": "read_committed", "auto.offset.reset": "latest"})
    prod = Producer({"bootstrap.servers": a.bootstrap, "enable.idempotence": True, "linger.ms": 5})
    cons.subscribe([a.steps_topic])
    try:
        while True:
            msg = cons.poll(1.0)
            if msg is None or msg.error():
                continue
            try:
                step = decode_step(msg.value())
            except (ValueError, IndexError) as e:
                print("skipping a record: %s" % e, file=sys.stderr)
                continue
            if a.run and step["runId"] != a.run:
                continue
            now = int(time.time() * 1000)
            for t in range(lo, hi + 1):
                tokens, probs = next_token_distribution(t, step, model)
                prod.produce(a.distributions_topic, key=str(t).encode(),
                             value=encode_sparse_distribution(step, t, tokens, probs, now))
            prod.poll(0)
    finally:
        prod.flush()
        cons.close()


if __name__ == "__main__":
    main()
