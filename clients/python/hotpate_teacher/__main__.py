"""python3 -m hotpate_teacher --model DIR --bootstrap HOST:PORT --teachers A-B --spec SPEC.yaml

Joins a run with `ensemble.source: external` as the teachers A..B: reads its steps from Kafka and
answers each with the model conditioned on the teacher's user's records (docs/llm-teachers.md).
Exit 2 with one line for bad arguments.
"""
import argparse
import os
import re
import sys
import time
from typing import NoReturn

# libgomp's threads spin while they wait (OMP_WAIT_POLICY=active); on a machine shared with other
# work, a spinning thread holds the core its partner needs, and each small parallel op then costs a
# scheduler slice (an add of 256x192 floats: 15 ms instead of 0.08 ms, measured at load 13 on 2
# cores). Must be set before torch loads; an explicit setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def die(msg: str) -> NoReturn:
    print("hotpate_teacher: " + msg, file=sys.stderr)
    sys.exit(2)


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, not argparse's usage block
        die(message + " (see --help)")


BOOTSTRAP = re.compile(r"^[^\s,:]+:\d{1,5}(,[^\s,:]+:\d{1,5})*$")


def main(argv=None) -> None:
    ap = Parser(prog="python3 -m hotpate_teacher", description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="Hugging Face-layout dir: config.json, *.safetensors or pytorch_model.bin, tokenizer.json")
    ap.add_argument("--bootstrap", required=True, help="Kafka bootstrap servers, HOST:PORT[,HOST:PORT...]")
    ap.add_argument("--teachers", required=True, help="teacher ids served, A-B (inclusive)")
    ap.add_argument("--spec", required=True, help="the run's job spec: records.*, teacher.prompt-template, kafka.topics.*")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    ap.add_argument("--rows", type=int, default=64, help="teachers per batched forward")
    ap.add_argument("--cache-mb", type=float, default=1024,
                    help="the sequences' KV caches kept, in MB (least recently asked evicted first); the"
                         " teachers' prompt cache, prefilled once, comes on top")
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

    # the arguments first (no torch import: a typo fails at once)
    m = re.fullmatch(r"(\d+)-(\d+)", a.teachers)
    if not m:
        die("--teachers must be A-B (two non-negative integers); got %r" % a.teachers)
    lo, hi = int(m.group(1)), int(m.group(2))
    if hi < lo:
        die("--teachers must be A-B with A <= B; got %r" % a.teachers)
    if hi - lo + 1 > a.max_teachers:
        die("--teachers %s is %d teachers, more than --max-teachers %d: split the range over workers"
            % (a.teachers, hi - lo + 1, a.max_teachers))
    if not BOOTSTRAP.match(a.bootstrap):
        die("--bootstrap must be HOST:PORT[,HOST:PORT...]; got %r" % a.bootstrap)
    for name, value in (("--rows", a.rows), ("--top-k", a.top_k), ("--max-teachers", a.max_teachers)):
        if value <= 0:
            die("%s must be > 0; got %d" % (name, value))
    if a.threads < 0:
        die("--threads must be >= 0; got %d" % a.threads)
    if not a.cache_mb > 0:
        die("--cache-mb must be > 0; got %r" % a.cache_mb)
    if not a.temperature > 0 or a.temperature == float("inf"):
        die("--temperature must be a finite number > 0; got %r" % a.temperature)
    if not a.exit_after_idle >= 0:
        die("--exit-after-idle must be >= 0; got %r" % a.exit_after_idle)
    if not os.path.isdir(a.model):
        die("--model %s is not a directory" % a.model)
    for f in ("config.json", "tokenizer.json"):
        if not os.path.isfile(os.path.join(a.model, f)):
            die("--model %s has no %s" % (a.model, f))

    import yaml
    try:
        with open(a.spec, encoding="utf-8") as f:
            spec = yaml.safe_load(f)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        die("cannot read spec %s: %s" % (a.spec, str(e).splitlines()[0] if str(e) else type(e).__name__))
    if not isinstance(spec, dict):
        die("spec %s is not a YAML mapping" % a.spec)

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
    if not isinstance(records, str) or not os.path.isfile(records):
        die("the spec's records.file must name the users' records; got %r" % records)
    template = get("teacher.prompt-template", "Examples:\n{records}\n\nWrite one more in the same style.\n{prompt}")
    if not isinstance(template, str) or not template.endswith("{prompt}"):
        die("teacher.prompt-template must end with {prompt}: the worker keeps each prompt's KV cache"
            " and appends the released tokens to it")
    n = get("ensemble.teachers")
    kind = get("ensemble.kind", "heterogeneous")
    if kind not in ("heterogeneous", "homogeneous"):
        die("ensemble.kind must be heterogeneous or homogeneous; got %r" % kind)
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        die("the spec's ensemble.teachers must be an integer > 0; got %r" % n)
    if hi >= n:
        die("--teachers %s: ids go up to %d" % (a.teachers, n - 1))
    max_records, max_chars = get("teacher.max-records", 8), get("teacher.max-prompt-chars", 4000)
    for name, value in (("teacher.max-records", max_records), ("teacher.max-prompt-chars", max_chars)):
        if not isinstance(value, int) or value <= 0:
            die("the spec's %s must be an integer > 0; got %r" % (name, value))

    import torch
    from . import blas, bpe, llama, worker
    if a.device == "cuda" and not torch.cuda.is_available():
        die("--device cuda: no CUDA device")
    if a.threads:
        torch.set_num_threads(a.threads)
    try:
        users = worker.read_users(records, get("records.user-field", "user"), get("records.text-field", "text"),
                                  every_user=True)
    except (OSError, UnicodeDecodeError, EOFError) as e:
        die("cannot read records.file %s: %s" % (records, e))
    if kind == "heterogeneous":
        if n != len(users):
            die("the spec's ensemble.teachers (%s) must be the number of distinct users in %s (%d,"
                " users without text included)"
                % (n, records, len(users)))
        owner = worker.teacher_of_users(users)
    else:
        owner = worker.teacher_of_users_hashed(users, n, int(get("ensemble.seed", 1)))
    try:
        tok = bpe.Tokenizer(os.path.join(a.model, "tokenizer.json"))
        model = llama.load(a.model, a.device, getattr(torch, a.dtype))
    except (OSError, ValueError, KeyError, TypeError) as e:
        die("cannot load the model in %s: %s" % (a.model, e))
    note = blas.warning() if a.device == "cpu" else None
    if note:
        print("hotpate_teacher: warning: " + note, file=sys.stderr, flush=True)
    texts = {}
    for u, recs in users.items():  # every record of a user reaches exactly one teacher
        texts.setdefault(owner[u], []).extend(recs)
    heads = {t: tok.encode(worker.fill(template, texts[t][:max_records], max_chars, ""))
             for t in range(lo, hi + 1) if texts.get(t)}
    empty = [t for t in range(lo, hi + 1) if t not in heads]  # no user: they abstain (as in Java)
    t0 = time.time()
    teachers = worker.Teachers(model, tok, heads, a.device, a.rows, int(a.cache_mb * 1e6), a.answer, a.top_k,
                               empty, a.temperature)
    topics = get("kafka.topics", {}) or {}
    print("hotpate_teacher: teachers %d-%d of %d, model %s (%d parameters, vocabulary %d), device %s;"
          " %d prompts prefilled in %.1f s (%.1f MB of KV cache)"
          % (lo, hi, n, a.model, sum(p.numel() for p in model.parameters()), tok.vocabulary_size, a.device,
             len(heads), time.time() - t0, teachers.prompts.nbytes() / 1e6 if teachers.prompts else 0),
          file=sys.stderr, flush=True)
    import signal
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # finally blocks flush the producer
    start = time.time()
    answered = worker.serve(
        teachers, a.bootstrap, topics.get("steps", "hotpate.steps"),
        topics.get("distributions", "hotpate.distributions"), a.run,
        group="hotpate-llm-%d-%d-%d" % (lo, hi, os.getpid()),
        log=lambda msg: print(msg, file=sys.stderr, flush=True),
        stop_after_idle_s=a.exit_after_idle or None, verbose=a.verbose)
    print("hotpate_teacher: done, %d teacher answers in %d steps (%.1f s)"
          % (answered, teachers.steps_answered, time.time() - start), file=sys.stderr)


if __name__ == "__main__":
    main()
