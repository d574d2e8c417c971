"""python3 -m hotpate_teacher --model DIR --bootstrap HOST:PORT --teachers A-B --spec SPEC.yaml

Joins a run with `ensemble.source: external` as the teachers A..B: reads its steps from Kafka and
answers each with the model conditioned on the teacher's user's records (docs/llm-teachers.md).
Exit 2 with one message for bad arguments.
"""
import argparse
import os
import sys
import time


def die(msg):
    print("hotpate_teacher: " + msg, file=sys.stderr)
    sys.exit(2)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m hotpate_teacher", description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="Hugging Face-layout dir: config.json, *.safetensors or pytorch_model.bin, tokenizer.json")
    ap.add_argument("--bootstrap", required=True, help="Kafka bootstrap servers, HOST:PORT")
    ap.add_argument("--teachers", required=True, help="teacher ids served, A-B (inclusive)")
    ap.add_argument("--spec", required=True, help="the run's job spec: records.*, teacher.prompt-template, kafka.topics.*")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    ap.add_argument("--rows", type=int, default=64, help="teachers per batched forward")
    ap.add_argument("--max-sequences", type=int, default=16, help="KV caches kept (least recently asked evicted)")
    ap.add_argument("--max-teachers", type=int, default=4096, help="refuse a larger --teachers range (memory bound)")
    ap.add_argument("--answer", default="vote", choices=["vote", "topk"], help="ModelVote (default) or sparse top-k")
    ap.add_argument("--top-k", type=int, default=64)
    ap.add_argument("--temperature", type=float, default=1.0,
                    help="teachers sample from softmax(logits / T): below 1 sharpens each teacher's distribution, so"
                         " teachers agree more often (a teacher-side choice; privacy is the job's)")
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0 = torch's default)")
    ap.add_argument("--run", help="answer only this run id")
    ap.add_argument("--verbose", action="store_true", help="log each step's most common vote")
    ap.add_argument("--exit-after-idle", type=float, default=0, help="exit after this many seconds without steps (0 = never)")
    a = ap.parse_args(argv)

    import yaml
    import torch
    from . import bpe, llama, worker

    try:
        lo, hi = (int(x) for x in a.teachers.split("-"))
    except ValueError:
        die("--teachers must be A-B; got %r" % a.teachers)
    if lo < 0 or hi < lo:
        die("--teachers must be A-B with 0 <= A <= B; got %r" % a.teachers)
    if hi - lo + 1 > a.max_teachers:
        die("--teachers %s is %d teachers, more than --max-teachers %d: split the range over workers"
            % (a.teachers, hi - lo + 1, a.max_teachers))
    if a.device == "cuda" and not torch.cuda.is_available():
        die("--device cuda: no CUDA device")
    if a.threads:
        torch.set_num_threads(a.threads)
    try:
        with open(a.spec) as f:
            spec = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        die("cannot read spec %s: %s" % (a.spec, e))

    def get(path, default=None):
        node = spec
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    if get("ensemble.source") != "external":
        die("the spec's ensemble.source must be external (the worker is its teachers)")
    records = get("records.file")
    if not records or not os.path.exists(records):
        die("the spec's records.file must name the users' records; got %r" % records)
    tok_path = os.path.join(a.model, "tokenizer.json")
    try:
        tok = bpe.Tokenizer(tok_path)
        model = llama.load(a.model, a.device, getattr(torch, a.dtype))
    except (OSError, ValueError) as e:
        die(str(e))
    template = get("teacher.prompt-template", "Examples:\n{records}\n\nWrite one more in the same style.\n{prompt}")
    if not template.endswith("{prompt}"):
        die("teacher.prompt-template must end with {prompt}: the worker keeps each prompt's KV cache"
            " and appends the released tokens to it")
    users = worker.read_users(records, get("records.user-field", "user"), get("records.text-field", "text"))
    n = get("ensemble.teachers")
    kind = get("ensemble.kind", "heterogeneous")
    if kind == "heterogeneous":
        if n != len(users):
            die("the spec's ensemble.teachers (%s) must be the number of distinct users in %s (%d)"
                % (n, records, len(users)))
        owner = worker.teacher_of_users(users)
    elif kind == "homogeneous" and isinstance(n, int) and n > 0:
        owner = worker.teacher_of_users_hashed(users, n, int(get("ensemble.seed", 1)))
    else:
        die("ensemble.kind must be heterogeneous or homogeneous with ensemble.teachers > 0")
    if hi >= n:
        die("--teachers %s: ids go up to %d" % (a.teachers, n - 1))
    max_records = get("teacher.max-records", 8)
    max_chars = get("teacher.max-prompt-chars", 4000)
    texts = {}
    for u, recs in users.items():  # every record of a user reaches exactly one teacher
        texts.setdefault(owner[u], []).extend(recs)
    heads = {t: tok.encode(worker.fill(template, texts[t][:max_records], max_chars, ""))
             for t in range(lo, hi + 1) if texts.get(t)}
    empty = [t for t in range(lo, hi + 1) if t not in heads]  # no user: they abstain (as in Java)
    if not a.temperature > 0:
        die("--temperature must be > 0; got %r" % a.temperature)
    teachers = worker.Teachers(model, tok, heads, a.device, a.rows, a.max_sequences, a.answer, a.top_k, empty,
                               a.temperature)
    topics = get("kafka.topics", {}) or {}
    print("hotpate_teacher: teachers %d-%d of %d, model %s (%d parameters, vocabulary %d), device %s"
          % (lo, hi, n, a.model, sum(p.numel() for p in model.parameters()), tok.vocabulary_size, a.device),
          file=sys.stderr, flush=True)
    import signal
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # finally blocks flush the producer
    start = time.time()
    answered = worker.serve(
        teachers, a.bootstrap, topics.get("steps", "hotpate.steps"),
        topics.get("distributions", "hotpate.distributions"), a.run,
        group="hotpate-llm-%d-%d-%d" % (lo, hi, os.getpid()),
        log=lambda m: print(m, file=sys.stderr, flush=True),
        stop_after_idle_s=a.exit_after_idle or None, verbose=a.verbose)
    print("hotpate_teacher: done, %d teacher answers in %d steps (%.1f s)"
          % (answered, teachers.steps_answered, time.time() - start), file=sys.stderr)


if __name__ == "__main__":
    main()
