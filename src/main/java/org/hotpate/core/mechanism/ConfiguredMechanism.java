package org.hotpate.core.mechanism;

import static org.hotpate.core.util.Preconditions.checkArgument;

import java.io.Serializable;
import java.util.Map;
import java.util.TreeMap;
import org.hotpate.core.noise.UniformSource;

/**
 * A run's mechanism as its spec names it ({@code mechanism.name} and {@code mechanism.params}, or
 * what {@code auto} chose): a {@link MechanismRegistry} name and its parameters. What an operator
 * receives instead of the configuration; the mechanism itself is built per step, with that step's
 * secret-keyed noise.
 */
public record ConfiguredMechanism(String name, Map<String, Double> params) implements Serializable {
    public ConfiguredMechanism {
        checkArgument(name != null && !name.isBlank(), "mechanism.name must not be empty");
        params = new TreeMap<>(params);
    }

    /** Its registry entry: kind, parameter table, factory. */
    public MechanismRegistry.Entry entry() {
        return MechanismRegistry.get(name);
    }

    /** An ensemble mechanism or a per-teacher scheme. */
    public MechanismRegistry.Kind kind() {
        return entry().kind();
    }

    /** The ensemble mechanism, drawing its DP noise from {@code noise}. */
    public AggregationMechanism create(int vocabularySize, int teachers, UniformSource noise) {
        return entry().create(params, vocabularySize, teachers, noise);
    }
}
