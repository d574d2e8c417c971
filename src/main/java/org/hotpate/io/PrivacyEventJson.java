package org.hotpate.io;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.hotpate.core.privacy.PrivacyEvent;

/**
 * A PrivacyEvent as compact JSON ({@code {"type":"Gaussian","sigma":4.0,"l2Sensitivity":1.41}}):
 * the reducer hands the event to the run's accountant in this form (core records are not Flink
 * POJOs), and the ledger and results carry it readably. Types are looked up among the permitted
 * subclasses of the sealed interface, so events added to core need no change here.
 */
public final class PrivacyEventJson {
    private static final ObjectMapper MAPPER =
            new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private PrivacyEventJson() {}

    public static String encode(PrivacyEvent e) {
        return tree(e).toString();
    }

    /**
     * The event as it may be published (results, ledger): data-dependent parts — the vote-count
     * profile of PATE events — are removed, because the counts are private.
     */
    public static String encodePublic(PrivacyEvent e) {
        return strip(tree(e)).toString();
    }

    private static JsonNode strip(JsonNode n) {
        if (n instanceof ObjectNode o) {
            o.remove("profile");
            o.remove("countsDescending");
            for (JsonNode child : o) {
                strip(child);
            }
        } else if (n instanceof ArrayNode a) {
            for (JsonNode child : a) {
                strip(child);
            }
        }
        return n;
    }

    public static PrivacyEvent decode(String json) {
        try {
            return fromTree(MAPPER.readTree(json));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a privacy event: " + json, e);
        }
    }

    private static JsonNode tree(PrivacyEvent e) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("type", e.getClass().getSimpleName());
        if (e instanceof PrivacyEvent.Composed c) {
            ArrayNode arr = n.putArray("events");
            for (PrivacyEvent inner : c.events()) {
                arr.add(tree(inner));
            }
        } else {
            n.setAll((ObjectNode) MAPPER.valueToTree(e));
        }
        return n;
    }

    private static PrivacyEvent fromTree(JsonNode n) throws JsonProcessingException {
        String type = n.path("type").asText("");
        if (type.equals("Composed")) {
            List<PrivacyEvent> events = new ArrayList<>();
            for (JsonNode inner : n.path("events")) {
                events.add(fromTree(inner));
            }
            return new PrivacyEvent.Composed(events);
        }
        for (Class<?> c : PrivacyEvent.class.getPermittedSubclasses()) {
            if (c.getSimpleName().equals(type)) {
                ObjectNode copy = ((ObjectNode) n).deepCopy();
                copy.remove("type");
                return (PrivacyEvent) MAPPER.treeToValue(copy, c);
            }
        }
        throw new IllegalArgumentException("unknown privacy event type '" + type + "'");
    }
}
