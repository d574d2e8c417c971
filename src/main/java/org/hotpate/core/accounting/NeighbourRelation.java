package org.hotpate.core.accounting;

/**
 * The neighbouring relation a per-user (per-teacher) statement is made under (DESIGN.md invariant
 * 10; docs/proofs/replace-one.md).
 *
 * <p>hotpate's relation is {@link #REPLACE_ONE}: two datasets are neighbours when one user's data
 * is replaced by another's, n fixed and public. Under a per-teacher scheme the pair of worlds then
 * differs in two users — the real one (present in one world) and its replacement (present in the
 * other) — and the pair's privacy loss counts the charges of both: a per-user limit (Scheme B's K,
 * Scheme A's τ) planned under replace-one is one that fits the target when <em>twice</em> it is
 * charged ({@link #usersPerPair()} = 2). {@link #ADD_REMOVE} (one user present in one world, absent
 * in the other) is the relation of the literature's statements (Feldman–Zrnic, the derived Theorem
 * 2 of docs/proofs/scheme-a.md); hotpate prints it only labelled, for comparison.
 */
public enum NeighbourRelation {
    /** Replace one user's data by another's (n fixed and public): the system's relation. */
    REPLACE_ONE("replace-one", 2),
    /** Add or remove one user's data (for comparison with the literature; never the guarantee). */
    ADD_REMOVE("add-remove", 1);

    private final String label;
    private final int usersPerPair;

    NeighbourRelation(String label, int usersPerPair) {
        this.label = label;
        this.usersPerPair = usersPerPair;
    }

    /** {@code replace-one} or {@code add-remove}. */
    public String label() {
        return label;
    }

    /**
     * How many users' charges a pair of neighbouring worlds can hold: 2 under replace-one (the real
     * user's in one world, the replacement's in the other), 1 under add/remove.
     */
    public int usersPerPair() {
        return usersPerPair;
    }

    /** The relation named {@code label}; IllegalArgumentException otherwise. */
    public static NeighbourRelation of(String label) {
        for (NeighbourRelation r : values()) {
            if (r.label.equals(label)) {
                return r;
            }
        }
        throw new IllegalArgumentException(
                "the neighbouring relation must be replace-one or add-remove; got '" + label + "'");
    }
}
