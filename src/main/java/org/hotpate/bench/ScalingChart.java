package org.hotpate.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The scaling plot of docs/performance.md: against the ensemble size n (log axis), the time per
 * step (n / throughput, and the p50 step latency) and the checkpointed state bytes per teacher, by
 * operator.
 */
final class ScalingChart {
    private static final Color[] COLORS = {
        new Color(0xC0392B),
        new Color(0x2471A3),
        new Color(0x27AE60),
        new Color(0x8E44AD),
        new Color(0xD35400),
        new Color(0x7F8C8D)
    };

    private ScalingChart() {}

    static void write(Path png, String payload, List<ObjectNode> rows) throws IOException {
        XYSeries perStep = new XYSeries("time per step = n / throughput (ms)");
        XYSeries latency = new XYSeries("step latency p50 (ms)");
        Map<String, XYSeries> state = new TreeMap<>();
        XYSeries total = new XYSeries("state bytes per teacher: all operators");
        for (ObjectNode r : rows) {
            double n = r.get("teachers").asDouble();
            perStep.add(n, r.get("time_per_step_ms").asDouble());
            if (r.get("latency_ms_p50").asDouble() > 0) {
                latency.add(n, r.get("latency_ms_p50").asDouble());
            }
            if (r.get("state_bytes_per_teacher").asDouble() > 0) {
                total.add(n, r.get("state_bytes_per_teacher").asDouble());
            }
            Iterator<Map.Entry<String, JsonNode>> it = r.get("state_bytes").fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                double perTeacher = e.getValue().asDouble() / n;
                if (perTeacher >= 1) {
                    state.computeIfAbsent(e.getKey(), k -> new XYSeries(k + " (bytes per teacher)"))
                            .add(n, perTeacher);
                }
            }
        }
        XYSeriesCollection time = new XYSeriesCollection();
        time.addSeries(perStep);
        time.addSeries(latency);
        XYSeriesCollection bytes = new XYSeriesCollection();
        bytes.addSeries(total);
        state.values().forEach(bytes::addSeries);

        LogAxis x = logAxis("teachers n");
        CombinedDomainXYPlot plot = new CombinedDomainXYPlot(x);
        plot.setGap(12);
        plot.add(subplot(time, logAxis("ms")), 1);
        plot.add(subplot(bytes, logAxis("bytes per teacher")), 1);
        JFreeChart chart =
                new JFreeChart(
                        "Pipeline scaling (" + payload + "): time per step and state per teacher",
                        JFreeChart.DEFAULT_TITLE_FONT,
                        plot,
                        true);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(png.toFile(), chart, 800, 640);
    }

    private static XYPlot subplot(XYSeriesCollection data, LogAxis y) {
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, true);
        for (int i = 0; i < data.getSeriesCount(); i++) {
            r.setSeriesPaint(i, COLORS[i % COLORS.length]);
            r.setSeriesStroke(i, new BasicStroke(2f));
        }
        XYPlot p = new XYPlot(data, null, y, r);
        p.setBackgroundPaint(Color.WHITE);
        p.setDomainGridlinePaint(new Color(0xDDDDDD));
        p.setRangeGridlinePaint(new Color(0xDDDDDD));
        return p;
    }

    private static LogAxis logAxis(String label) {
        LogAxis a = new LogAxis(label);
        a.setBase(10);
        a.setSmallestValue(1e-3);
        a.setNumberFormatOverride(new DecimalFormat("#,##0.##"));
        a.setTickUnit(new NumberTickUnit(1.0), false, false);
        a.setAutoTickUnitSelection(false);
        a.setMinorTickCount(9);
        a.setMinorTickMarksVisible(true);
        return a;
    }
}
