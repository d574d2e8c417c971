package org.hotpate.core.util;

import static org.hotpate.core.util.Preconditions.checkNotNull;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The spec parameters one mechanism or scheme accepts ({@code mechanism.params}): the required
 * ones, the optional ones and hints that explain a refused key. Declared by the class that reads
 * the parameters (an ensemble mechanism's entry, a per-teacher scheme's {@code Params}), so the
 * registry and the scheme check the same table without importing each other.
 */
public record ParameterTable(
        String name, List<String> required, List<String> optional, Map<String, String> hints) {
    public ParameterTable {
        checkNotNull("name", name);
        required = List.copyOf(required);
        optional = List.copyOf(optional);
        hints = Map.copyOf(hints);
    }

    /** A table of required parameters only. */
    public static ParameterTable required(String name, String... required) {
        return new ParameterTable(name, List.of(required), List.of(), Map.of());
    }

    /** Every parameter this name accepts, required first. */
    public List<String> parameters() {
        return Stream.concat(required.stream(), optional.stream()).toList();
    }

    /**
     * Checks {@code params}' keys: none unknown, none null, every required one present; the
     * messages list the accepted parameters.
     */
    public void check(Map<String, Double> params) {
        checkNotNull("params", params);
        List<String> accepted = parameters();
        String list = accepted.isEmpty() ? "none" : String.join(", ", accepted);
        for (Map.Entry<String, Double> e : params.entrySet()) {
            if (hints.containsKey(e.getKey())) {
                throw new IllegalArgumentException(
                        "mechanism " + name + " " + hints.get(e.getKey()) + "; accepted: " + list);
            }
            if (!accepted.contains(e.getKey())) {
                throw new IllegalArgumentException(
                        "unknown parameter '"
                                + e.getKey()
                                + "' for mechanism "
                                + name
                                + "; accepted: "
                                + list);
            }
            if (e.getValue() == null) {
                throw new IllegalArgumentException(
                        e.getKey() + " must not be null (mechanism " + name + ")");
            }
        }
        for (String r : required) {
            if (!params.containsKey(r)) {
                throw new IllegalArgumentException(
                        "mechanism " + name + " needs parameter '" + r + "'; accepted: " + list);
            }
        }
    }
}
