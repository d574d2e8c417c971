"""The wire format of steps and answers: the standard-library Avro codec of external_teacher.py
(checked against schemas/vectors/), plus the ModelVote answer (union branch 2)."""
import io
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import external_teacher as codec  # noqa: E402

codec.STEP_FP = codec.fingerprint("generation_step")
codec.DIST_FP = codec.fingerprint("teacher_distribution")

decode_step = codec.decode_step
encode_sparse = codec.encode_sparse_distribution


def encode_model_vote(step, teacher_id, token, randomness_version, sent_at_ms):
    """A MODEL_VOTE answer: the teacher's own coordinated vote (-1 = abstain)."""
    out = io.BytesIO()
    out.write(b"\xc3\x01" + codec.DIST_FP)
    codec.write_string(out, step["runId"])
    codec.write_long(out, step["sequenceId"])
    codec.write_long(out, step["step"])
    codec.write_long(out, step["attempt"])
    codec.write_long(out, teacher_id)
    codec.write_long(out, 2)  # union branch: ModelVote
    codec.write_long(out, token)
    codec.write_long(out, randomness_version)
    codec.write_long(out, sent_at_ms)
    return out.getvalue()
