package org.hotpate.stream.ops;

/** Renders token ids as text: 100..999 are Planet-Z numbers (digits), others {@code <tokN>}. */
public final class TokenText {
    private TokenText() {}

    public static String render(int[] tokens) {
        StringBuilder sb = new StringBuilder();
        for (int t : tokens) {
            if (sb.length() > 0) {
                sb.append(' ');
            }
            sb.append(t >= 100 && t <= 999 ? Integer.toString(t) : "<tok" + t + ">");
        }
        return sb.toString();
    }
}
