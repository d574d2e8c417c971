"""worker.serve against a real Kafka broker: the project's own KRaft broker (kafka.Kafka from the
jars `mvn package` copies to target/cluster-lib/kafka), started as a process. Steps written to the
steps topic come back as one ModelVote per teacher, keyed by teacher id, equal to the votes of
Teachers.answer on the same steps; another run's steps, a step past its deadline and a record that
is not a step get no answer. Skipped where java, the jars or confluent_kafka are missing."""
import base64
import glob
import io
import os
import shutil
import socket
import subprocess
import tempfile
import time
import unittest

from hotpate_teacher import bpe, prf, train, wire, worker
from tests.test_worker import VEC, peaked_model

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
LIB = os.path.join(ROOT, "target", "cluster-lib", "kafka")

try:
    import confluent_kafka  # noqa: F401
    HAVE_KAFKA = True
except ImportError:
    HAVE_KAFKA = False


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def signed(x):
    """A 64-bit word as the Java long the job sends."""
    return x - (1 << 64) if x >= 1 << 63 else x


def encode_step(st):
    """A GenerationStep in the single-object encoding (the field order of wire.decode_step)."""
    out = io.BytesIO()
    out.write(b"\xc3\x01" + wire.STEP_FP)
    wire.write_string(out, st["runId"])
    wire.write_string(out, "ens")
    for k in ("sequenceId", "step", "attempt"):
        wire.write_long(out, st[k])
    wire.write_array(out, st["prefix"], wire.write_long)
    for k in ("publicSeed", "randomnessVersion", "vocabularySize", "issuedAtMs", "deadlineMs"):
        wire.write_long(out, st[k])
    wire.write_array(out, st["prompt"], wire.write_long)
    wire.write_long(out, 0)  # label: null
    return out.getvalue()


def decode_vote(b):
    """(runId, sequenceId, step, attempt, teacher, token) of a ModelVote answer."""
    assert b[:10] == b"\xc3\x01" + wire.DIST_FP
    inp = io.BytesIO(b[10:])
    run = wire.read_string(inp)
    seq, step, attempt, teacher, branch = (wire.read_long(inp) for _ in range(5))
    assert branch == 2, branch
    return run, seq, step, attempt, teacher, wire.read_long(inp)


@unittest.skipUnless(shutil.which("java") and glob.glob(os.path.join(LIB, "kafka_*.jar")) and HAVE_KAFKA,
                     "needs java, target/cluster-lib/kafka (mvn package) and confluent_kafka")
class ServeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="hotpate-serve-")
        port, cport = free_port(), free_port()
        cls.bootstrap = "127.0.0.1:%d" % port
        props = os.path.join(cls.dir, "server.properties")
        with open(props, "w") as f:  # EmbeddedKafka.brokerProperties: one combined KRaft node
            f.write("\n".join([
                "process.roles=broker,controller", "node.id=1", "controller.quorum.voters=1@127.0.0.1:%d" % cport,
                "listeners=PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d" % (port, cport),
                "advertised.listeners=PLAINTEXT://127.0.0.1:%d" % port, "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "log.dirs=%s" % os.path.join(cls.dir, "data"), "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=1", "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1", "transaction.state.log.num.partitions=1",
                "share.coordinator.state.topic.replication.factor=1", "share.coordinator.state.topic.min.isr=1",
                "group.initial.rebalance.delay.ms=0", "auto.create.topics.enable=false", ""]))
        cp = os.path.join(LIB, "*")
        uuid = base64.urlsafe_b64encode(os.urandom(16)).rstrip(b"=").decode()
        subprocess.run(["java", "-cp", cp, "kafka.tools.StorageTool", "format", "-t", uuid, "-c", props],
                       check=True, capture_output=True, timeout=120)
        cls.log = open(os.path.join(cls.dir, "broker.log"), "w")
        cls.broker = subprocess.Popen(["java", "-Xmx512m", "-cp", cp, "kafka.Kafka", props],
                                      stdout=cls.log, stderr=subprocess.STDOUT)
        from confluent_kafka.admin import AdminClient, NewTopic
        admin = AdminClient({"bootstrap.servers": cls.bootstrap, "log_level": 0})
        deadline = time.time() + 120
        while True:
            try:
                admin.list_topics(timeout=2)
                break
            except Exception:
                if time.time() > deadline or cls.broker.poll() is not None:
                    raise RuntimeError("the broker did not start (%s)" % os.path.join(cls.dir, "broker.log"))
                time.sleep(1)
        for f in admin.create_topics([NewTopic("steps", 1, 1), NewTopic("dists", 1, 1)]).values():
            f.result(60)

    @classmethod
    def tearDownClass(cls):
        cls.broker.terminate()
        try:
            cls.broker.wait(30)
        except subprocess.TimeoutExpired:
            cls.broker.kill()
            cls.broker.wait()
        cls.log.close()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_served_votes_are_the_teachers_votes_and_only_for_open_steps_of_the_run(self):
        from confluent_kafka import Consumer, Producer
        tok = bpe.Tokenizer(os.path.join(VEC, "tokenizer.json"))
        model = peaked_model(tok.vocabulary_size)
        heads = {t: tok.encode(worker.fill(train.TEMPLATE, [s], 4000, ""))
                 for t, s in enumerate(["Re: exmh", "[SAtalk] Compile error", "Re: hello"])}
        far = int(time.time() * 1000) + 600_000

        def st(seq, prefix, run="r", deadline=far):
            return {"runId": run, "sequenceId": seq, "step": len(prefix), "attempt": 0, "prefix": prefix,
                    "prompt": [10, 11], "publicSeed": signed(prf.step_seed(3, "%s/%d" % (run, seq), len(prefix), 0)),
                    "randomnessVersion": 1, "vocabularySize": 600, "issuedAtMs": 0, "deadlineMs": deadline,
                    "label": None}
        steps = [st(0, []), st(1, []), st(0, [40]), st(0, [40, 41]), st(1, [7])]
        ignored = [st(0, [], run="other"), st(2, [], deadline=1)]
        prod = Producer({"bootstrap.servers": self.bootstrap, "log_level": 0})
        for s in steps[:2] + ignored + steps[2:]:
            prod.produce("steps", value=encode_step(s))
        prod.produce("steps", value=b"not a step")
        prod.flush(30)
        teachers = worker.Teachers(model, tok, heads, rows=2, empty=[3])
        logs = []
        answered = worker.serve(teachers, self.bootstrap, "steps", "dists", run="r", group="g1",
                                log=logs.append, stop_after_idle_s=3)
        self.assertEqual(answered, len(steps) * 4)
        self.assertTrue(any("skipping a record" in m for m in logs), logs)
        cons = Consumer({"bootstrap.servers": self.bootstrap, "group.id": "check", "auto.offset.reset": "earliest",
                         "log_level": 0})
        cons.subscribe(["dists"])
        got = {}
        deadline = time.time() + 60
        while len(got) < answered and time.time() < deadline:
            m = cons.poll(1.0)
            if m is not None and not m.error():
                run, seq, step, _, teacher, token = decode_vote(m.value())
                self.assertEqual(m.key(), str(teacher).encode())
                self.assertNotIn((run, seq, step, teacher), got)
                got[(run, seq, step, teacher)] = token
        cons.close()
        want = {}
        fresh = worker.Teachers(model, tok, heads, rows=3, empty=[3])
        for s in steps:
            for a in fresh.answer(s):
                want[(s["runId"], s["sequenceId"], s["step"], a.teacher)] = a.token
        self.assertEqual(got, want)
        self.assertGreater(len(set(want.values())), 2)


if __name__ == "__main__":
    unittest.main()
