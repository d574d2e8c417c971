package org.hotpate.stream.config;

import java.io.Serializable;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The value of every declared option of a spec ({@link JobOptions}), by key: what the spec gave,
 * else the option's default; a derived option the spec left out has no value. Immutable and
 * serializable (operators receive parts of the configuration).
 */
public final class OptionValues implements Serializable {
    private static final long serialVersionUID = 1L;

    private final Map<String, Object> values;

    private OptionValues(Map<String, Object> values) {
        this.values = values;
    }

    /** The values read for every declared option (absent: a derived option left out). */
    static OptionValues of(Map<String, Object> values) {
        return new OptionValues(new TreeMap<>(values));
    }

    /** Every option at its default. */
    public static OptionValues defaults() {
        Map<String, Object> m = new TreeMap<>();
        for (Option<?> o : JobOptions.ALL) {
            if (!o.isDerived()) {
                m.put(o.key(), o.defaultValue());
            }
        }
        return new OptionValues(m);
    }

    /** The value of {@code o}; {@link IllegalStateException} for a derived option left out. */
    @SuppressWarnings("unchecked")
    public <T> T get(Option<T> o) {
        Object v = values.get(o.key());
        if (v == null) {
            throw new IllegalStateException(o.key() + " is derived: use find() or the config");
        }
        return (T) v;
    }

    /** The value of {@code o}, empty for a derived option the spec left out. */
    @SuppressWarnings("unchecked")
    public <T> Optional<T> find(Option<T> o) {
        return Optional.ofNullable((T) values.get(o.key()));
    }

    /** A copy with {@code o} = {@code v} (validated against its declaration; null: derived). */
    public <T> OptionValues with(Option<T> o, T v) {
        Map<String, Object> m = new TreeMap<>(values);
        if (v == null) {
            if (!o.isDerived()) {
                throw new IllegalArgumentException(o.key() + " has no derived value");
            }
            m.remove(o.key());
        } else {
            o.validate(v);
            m.put(o.key(), v);
        }
        return new OptionValues(m);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OptionValues v && v.values.equals(values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() { // no secrets live here: passwords are named by variable
        return values.toString();
    }
}
