#!/usr/bin/env python3
"""An external hotpate teacher in Python: reads generation steps from Kafka and answers each with
a next-token distribution per teacher it serves, in the project's Avro single-object encoding.

The wire format is the one of schemas/generation_step.avsc and schemas/teacher_distribution.avsc
(docs/streaming.md, "External teachers"). The codec (standard library only) is
hotpate_teacher/wire.py, next to this file; Kafka I/O needs confluent-kafka (pip install
confluent-kafka).

  python3 external_teacher.py --self-test            # check the codec against schemas/vectors/
  python3 external_teacher.py --bootstrap 127.0.0.1:9092 --run RUN_ID \
      --teachers 0-99 --corpus my_user_texts.jsonl    # answer a run's steps

Replace `next_token_distribution` with your model (an LLM's top-k probabilities, for example).
Privacy: a teacher only ever sees public steps (prefix, public seed) and its own private data;
DP noise is added by the job, never here.
"""
import argparse
import json
import os
import sys
import time

from hotpate_teacher.wire import (DIST_FP, STEP_FP, decode_step,  # noqa: F401 (the codec)
                                  encode_sparse_distribution)

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "..", "..", "schemas", "vectors")


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
    for name, fp in (("generation_step", STEP_FP), ("teacher_distribution", DIST_FP)):
        with open(os.path.join(VECTORS, name + ".bin"), "rb") as f:
            head = f.read(10)
        assert head == b"\xc3\x01" + fp, "%s: the codec's schema fingerprint is not the vector's" % name
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
