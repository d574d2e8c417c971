package org.hotpate.teachers.records;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import org.hotpate.model.PrivateRecord;

/**
 * The one validator of private records, used by the driver for file lines and by the job for
 * records read from the topic (any producer may write it), so both agree on what is valid. Pure:
 * Jackson only.
 *
 * <p>A record is valid when its user is a non-blank JSON scalar (numbers and booleans become their
 * text) and its text is a non-empty JSON string of at most {@code max-text-bytes} UTF-8 bytes; the
 * label (a scalar, else none) and event time (epoch ms number or ISO-8601 string, else none) are
 * optional and never reject a record. A file line must also be valid UTF-8 and a JSON object.
 */
public final class RecordValidator {
    /** Reasons written to the rejected topic's {@code reason} field. */
    public static final String NOT_UTF8 = "NOT_UTF8";

    public static final String NOT_JSON_OBJECT = "NOT_JSON_OBJECT";
    public static final String MISSING_USER = "MISSING_USER";
    public static final String MISSING_TEXT = "MISSING_TEXT";
    public static final String TEXT_NOT_STRING = "TEXT_NOT_STRING";
    public static final String EMPTY_TEXT = "EMPTY_TEXT";
    public static final String TEXT_TOO_LONG = "TEXT_TOO_LONG";
    public static final String UNKNOWN_USER = "UNKNOWN_USER";

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * A valid record or the reason it is not, and the user id it names ({@code user}: the record's
     * user when valid; for an invalid record the user id read before it failed, or null when it has
     * none — a line that is not JSON, or whose user field is missing or blank, belongs to no user).
     * A records run counts n over every user id present, valid records or not (issue 30 item 7).
     */
    public record Result(PrivateRecord record, String reason, String detail, String user) {
        public boolean valid() {
            return record != null;
        }

        static Result ok(PrivateRecord r) {
            return new Result(r, null, null, r.user());
        }

        static Result bad(String reason, String detail) {
            return new Result(null, reason, detail, null);
        }

        static Result bad(String reason, String detail, String user) {
            return new Result(null, reason, detail, user == null || user.isBlank() ? null : user);
        }
    }

    private final RecordFields fields;

    public RecordValidator(RecordFields fields) {
        this.fields = fields;
    }

    public RecordFields fields() {
        return fields;
    }

    /** Validates one line of a JSONL file (its raw bytes, without the line end). */
    public Result line(byte[] bytes) {
        String s;
        try {
            s =
                    StandardCharsets.UTF_8
                            .newDecoder()
                            .onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT)
                            .decode(ByteBuffer.wrap(bytes))
                            .toString();
        } catch (CharacterCodingException e) {
            return Result.bad(NOT_UTF8, "the line is not valid UTF-8");
        }
        JsonNode node;
        try {
            node = JSON.readTree(s);
        } catch (JsonProcessingException e) {
            return Result.bad(NOT_JSON_OBJECT, "not JSON: " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject()) {
            return Result.bad(
                    NOT_JSON_OBJECT,
                    "not a JSON object: " + (node == null ? "empty" : node.getNodeType()));
        }
        return object(node);
    }

    /** Validates a parsed JSON object. */
    public Result object(JsonNode o) {
        JsonNode user = field(o, fields.userField());
        if (user == null || user.isNull() || !user.isValueNode()) {
            return Result.bad(
                    MISSING_USER,
                    "user field '" + fields.userField() + "' is missing or not a scalar");
        }
        JsonNode text = field(o, fields.textField());
        if (text == null || text.isNull()) {
            return Result.bad(
                    MISSING_TEXT,
                    "text field '" + fields.textField() + "' is missing",
                    user.asText());
        }
        if (!text.isTextual()) {
            return Result.bad(
                    TEXT_NOT_STRING,
                    "text field '" + fields.textField() + "' is a " + text.getNodeType(),
                    user.asText());
        }
        String label = "";
        if (fields.labelled()) {
            JsonNode l = field(o, fields.labelField());
            label = l != null && l.isValueNode() && !l.isNull() ? l.asText() : "";
        }
        long time = -1;
        if (!fields.timeField().isEmpty()) {
            time = time(field(o, fields.timeField()));
        }
        return record(new PrivateRecord(user.asText(), text.asText(), label, time));
    }

    /** Validates a decoded record (from the topic, or from a JSON object). */
    public Result record(PrivateRecord r) {
        if (r.user() == null || r.user().isBlank()) {
            return Result.bad(MISSING_USER, "the user is blank");
        }
        if (r.text() == null) {
            return Result.bad(MISSING_TEXT, "the text is missing", r.user());
        }
        if (r.text().isEmpty()) {
            return Result.bad(EMPTY_TEXT, "the text is empty", r.user());
        }
        int bytes = r.text().getBytes(StandardCharsets.UTF_8).length;
        if (bytes > fields.maxTextBytes()) {
            return Result.bad(
                    TEXT_TOO_LONG,
                    "the text has "
                            + bytes
                            + " UTF-8 bytes; records.max-text-bytes is "
                            + fields.maxTextBytes(),
                    r.user());
        }
        return Result.ok(
                new PrivateRecord(
                        r.user(), r.text(), r.label() == null ? "" : r.label(), r.eventTimeMs()));
    }

    /** The field by exact top-level name, else by dotted path. */
    static JsonNode field(JsonNode o, String name) {
        if (o.has(name)) {
            return o.get(name);
        }
        if (!name.contains(".")) {
            return null;
        }
        JsonNode n = o;
        for (String part : name.split("\\.", -1)) {
            if (n == null || !n.isObject()) {
                return null;
            }
            n = n.get(part);
        }
        return n;
    }

    private static long time(JsonNode t) {
        if (t == null || t.isNull()) {
            return -1;
        }
        if (t.isIntegralNumber()) {
            return t.asLong();
        }
        if (t.isTextual()) {
            try {
                return Instant.parse(t.asText()).toEpochMilli();
            } catch (DateTimeParseException e) {
                return -1;
            }
        }
        return -1;
    }
}
