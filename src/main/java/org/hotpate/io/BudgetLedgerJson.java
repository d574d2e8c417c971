package org.hotpate.io;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.TeacherSpend;

/**
 * The JSON of the local budget-ledger files (format version 1): a run's entry ({@code
 * "kind":"run"}, {@link BudgetLedgerIo}) and a teacher's entry ({@code "kind":"teacher"}).
 */
public final class BudgetLedgerJson {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int FORMAT_VERSION = 1;

    private BudgetLedgerJson() {}

    /** A run's entry as the local ledger's JSON. */
    public static String toJson(BudgetRecord r) {
        ObjectNode o = JSON.createObjectNode();
        o.put("version", FORMAT_VERSION);
        o.put("kind", BudgetRecord.RUN);
        o.put("dataset", r.dataset());
        o.put("runId", r.runId());
        o.put("differentiallyPrivate", r.differentiallyPrivate());
        o.put("mechanism", r.mechanism());
        ArrayNode orders = o.putArray("orders");
        for (double v : r.orders()) {
            orders.add(v);
        }
        ArrayNode rdp = o.putArray("rdp");
        for (double v : r.rdp()) {
            rdp.add(v);
        }
        o.put("approxDelta", r.approxDelta());
        o.put("delta", r.delta());
        o.put("releases", r.releases());
        o.put("answered", r.answered());
        if (Double.isFinite(r.epsilon())) {
            o.put("epsilon", r.epsilon());
        } else {
            o.putNull("epsilon");
        }
        o.put("updatedAtMs", r.updatedAtMs());
        ArrayNode plan = o.putArray("datasetPlan");
        for (double v : r.datasetPlan()) {
            plan.add(v);
        }
        if (r.priorSlack() > 0) {
            o.put("priorSlack", r.priorSlack()); // absent: 0 (entries without a prior)
        }
        return o.toString();
    }

    /** Parses {@link #toJson}; throws IllegalArgumentException on anything else. */
    public static BudgetRecord fromJson(String json) throws IOException {
        JsonNode o = JSON.readTree(json);
        if (o == null || o.path("version").asInt(-1) != FORMAT_VERSION) {
            throw new IllegalArgumentException("not a version-1 budget ledger entry");
        }
        if (!BudgetRecord.RUN.equals(o.path("kind").asText())) {
            throw new IllegalArgumentException("not a run entry: kind " + o.path("kind"));
        }
        return new BudgetRecord(
                required(o, "dataset").asText(),
                required(o, "runId").asText(),
                required(o, "differentiallyPrivate").asBoolean(),
                o.path("mechanism").asText(""),
                doubles(required(o, "orders")),
                doubles(required(o, "rdp")),
                required(o, "approxDelta").asDouble(),
                required(o, "delta").asDouble(),
                required(o, "releases").asLong(),
                o.path("answered").asLong(0),
                o.path("epsilon").isNull()
                        ? Double.POSITIVE_INFINITY
                        : required(o, "epsilon").asDouble(),
                o.path("updatedAtMs").asLong(0),
                o.has("datasetPlan") ? doubles(o.get("datasetPlan")) : new double[0],
                o.path("priorSlack").asDouble(0));
    }

    /** A teacher's entry as the local ledger's JSON ({@code "kind":"teacher"}). */
    public static String teacherToJson(TeacherSpend t) {
        ObjectNode o = JSON.createObjectNode();
        o.put("version", FORMAT_VERSION);
        o.put("kind", BudgetRecord.TEACHER);
        o.put("dataset", t.dataset());
        o.put("teacherId", t.teacherId());
        o.put("plan", t.plan());
        o.put("charges", t.charges());
        o.put("pending", t.pending());
        o.put("entryVersion", t.version()); // "version" is the format's
        o.put("epsilon", t.epsilon());
        o.put("delta", t.delta());
        o.put("retired", t.retired());
        o.put("runId", t.runId());
        o.put("updatedAtMs", t.updatedAtMs());
        return o.toString();
    }

    /** Parses {@link #teacherToJson}; throws IllegalArgumentException on anything else. */
    public static TeacherSpend teacherFromJson(String json) throws IOException {
        JsonNode o = JSON.readTree(json);
        if (o == null || o.path("version").asInt(-1) != FORMAT_VERSION) {
            throw new IllegalArgumentException("not a version-1 budget ledger entry");
        }
        if (!BudgetRecord.TEACHER.equals(o.path("kind").asText())) {
            throw new IllegalArgumentException("not a teacher entry: kind " + o.path("kind"));
        }
        return new TeacherSpend(
                required(o, "dataset").asText(),
                required(o, "teacherId").asLong(),
                required(o, "plan").asText(),
                required(o, "charges").asLong(),
                o.path("pending").asLong(0), // absent in entries written before it existed
                o.path("entryVersion").asLong(0),
                required(o, "epsilon").asDouble(),
                required(o, "delta").asDouble(),
                required(o, "retired").asBoolean(),
                required(o, "runId").asText(),
                o.path("updatedAtMs").asLong(0));
    }

    private static JsonNode required(JsonNode o, String field) {
        JsonNode n = o.get(field);
        if (n == null) {
            throw new IllegalArgumentException("missing field " + field);
        }
        return n;
    }

    private static double[] doubles(JsonNode arr) {
        if (!arr.isArray()) {
            throw new IllegalArgumentException("expected an array; got " + arr);
        }
        double[] d = new double[arr.size()];
        for (int i = 0; i < d.length; i++) {
            if (!arr.get(i).isNumber()) {
                throw new IllegalArgumentException("expected numbers; got " + arr.get(i));
            }
            d[i] = arr.get(i).asDouble();
        }
        return d;
    }
}
