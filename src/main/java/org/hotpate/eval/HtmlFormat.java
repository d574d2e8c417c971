package org.hotpate.eval;

import java.util.Locale;

/** Text in the evaluation reports' HTML ({@code report.html} of both workloads). */
public final class HtmlFormat {
    private HtmlFormat() {}

    /** {@code v} with {@code digits} decimals (root locale). */
    public static String fmt(double v, int digits) {
        return String.format(Locale.ROOT, "%." + digits + "f", v);
    }

    /** {@code s} escaped for HTML text and attribute values. */
    public static String esc(String s) {
        return s.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;");
    }
}
