package org.hotpate.eval;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import java.util.Map;

/**
 * {@code evaluation.json} of an {@link Evaluation.Result}: the contract shape (thresholds,
 * coordinated/independent coverage, sparsity and tv first; extra keys after).
 */
final class ReportJson {
    /** Builds the tree and writes the file (indented). */
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ReportJson() {}

    static ObjectNode toJson(Evaluation.Result r, Map<String, Object> workload, String command) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode th = root.putArray("thresholds");
        Arrays.stream(r.thresholds()).forEach(th::add);
        root.set(
                "coordinated",
                curves(
                        r.coverageCoordinated(),
                        r.sparsityCoordinated(),
                        r.tvCoordinated(),
                        r.tvWithFailCoordinated(),
                        r.steps().stream()
                                .mapToDouble(s -> s.coordinated().meanMaxCount())
                                .average()
                                .orElse(0)));
        root.set(
                "independent",
                curves(
                        r.coverageIndependent(),
                        r.sparsityIndependent(),
                        r.tvIndependent(),
                        r.tvWithFailIndependent(),
                        r.steps().stream()
                                .mapToDouble(s -> s.independent().meanMaxCount())
                                .average()
                                .orElse(0)));
        root.set("workload", JSON.valueToTree(workload));
        putArray(root, "robustMass", r.robustMass());
        r.yield()
                .ifPresent(
                        y -> {
                            ObjectNode o = root.putObject("yield");
                            o.put("threshold", y.threshold());
                            o.put("teachers", y.teachers());
                            o.put("commonTokens", y.commonTokens());
                            o.put("draws", y.draws());
                            putArray(o, "alphas", y.alphas());
                            putArray(o, "coordinated", y.coordinated());
                            putArray(o, "independent", y.independent());
                            putArray(o, "theory", y.theory());
                        });
        if (!r.privacy().isEmpty() || !r.privacyNote().isEmpty()) {
            ObjectNode p = root.putObject("privacyEfficiency");
            if (!r.privacy().isEmpty()) {
                p.put("epsilon", workloadDouble(workload, "epsilon"));
                p.put("delta", workloadDouble(workload, "delta"));
            }
            p.put("accounting", "data-independent RDP, improved conversion, budget filter");
            p.put("usefulToken", "released token equals the noise-free plurality of its histogram");
            if (!r.privacyNote().isEmpty()) {
                p.put("note", r.privacyNote());
            }
            ArrayNode ms = p.putArray("mechanisms");
            for (PrivacyEfficiency.Result m : r.privacy()) {
                ObjectNode o = ms.addObject();
                o.put("mechanism", m.mechanism());
                o.set("coordinated", JSON.valueToTree(m.coordinated()));
                o.set("independent", JSON.valueToTree(m.independent()));
                if (m.ratio() == null) {
                    o.putNull("ratio");
                } else {
                    o.put("ratio", m.ratio());
                }
                putNullable(o, "expectedRatio", m.expectedRatio());
                putNullable(o, "distinctRatio", m.distinctRatio());
            }
        }
        if (r.steps().size() > 1) {
            ArrayNode steps = root.putArray("steps");
            for (Evaluation.StepResult s : r.steps()) {
                ObjectNode o = steps.addObject();
                o.set("workload", JSON.valueToTree(s.ensemble().params()));
                o.put("teachers", s.ensemble().size());
                o.put("largestAverageProbability", s.largestAverageProbability());
                o.set(
                        "coordinated",
                        curves(
                                s.coordinated().coverage(),
                                toDouble(s.coordinated().sparsity()),
                                s.coordinated().tv(),
                                s.coordinated().tvWithFail(),
                                s.coordinated().meanMaxCount()));
                o.set(
                        "independent",
                        curves(
                                s.independent().coverage(),
                                toDouble(s.independent().sparsity()),
                                s.independent().tv(),
                                s.independent().tvWithFail(),
                                s.independent().meanMaxCount()));
                putArray(o, "robustMass", s.robustMass());
            }
        }
        ObjectNode t = root.putObject("timings");
        t.put("drawSeconds", round(r.drawSeconds(), 2));
        t.put("privacySeconds", round(r.privacySeconds(), 2));
        root.put("command", command);
        return root;
    }

    private static void putNullable(ObjectNode o, String key, Double v) {
        if (v == null) {
            o.putNull(key);
        } else {
            o.put(key, v);
        }
    }

    private static double workloadDouble(Map<String, Object> w, String key) {
        Object v = w.get(key);
        return v instanceof Number num ? num.doubleValue() : Double.NaN;
    }

    private static ObjectNode curves(
            double[] coverage,
            double[] sparsity,
            double[] tv,
            double[] tvWithFail,
            double meanMax) {
        ObjectNode o = JSON.createObjectNode();
        putArray(o, "coverage", coverage);
        ArrayNode sp = o.putArray("sparsity");
        for (double s : sparsity) {
            if (s == Math.rint(s)) {
                sp.add((long) s);
            } else {
                sp.add(s);
            }
        }
        putArray(o, "tv", tv);
        putArray(o, "tvWithFail", tvWithFail);
        o.put("meanMaxCount", meanMax);
        return o;
    }

    private static void putArray(ObjectNode o, String key, double[] values) {
        ArrayNode a = o.putArray(key);
        for (double v : values) {
            a.add(v);
        }
    }

    private static double[] toDouble(int[] a) {
        return Arrays.stream(a).asDoubleStream().toArray();
    }

    private static double round(double v, int digits) {
        double f = Math.pow(10, digits);
        return Math.round(v * f) / f;
    }
}
