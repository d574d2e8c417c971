package org.hotpate.stream.ops;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.exporter.HTTPServer;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.util.Iterator;
import java.util.Properties;
import org.apache.flink.metrics.prometheus.AbstractPrometheusReporter;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.apache.flink.util.PortRange;

/**
 * Flink's Prometheus reporter bound to one address. Flink 2.2's {@code PrometheusReporter} has only
 * a {@code port} option and binds every interface ({@code new InetSocketAddress(port)}); this one
 * reads {@code host} too (default {@value #DEFAULT_HOST}: the metrics are operator-only) and
 * otherwise behaves the same — the first free port of the {@code port} range, Flink's metric
 * translation ({@link AbstractPrometheusReporter}), the same log line. Configured by {@code
 * metrics.reporter.<name>.factory.class} (found through {@code META-INF/services}).
 */
public final class BoundPrometheusReporterFactory implements MetricReporterFactory {
    /** The default bind address. */
    public static final String DEFAULT_HOST = "127.0.0.1";

    @Override
    public MetricReporter createMetricReporter(Properties properties) {
        return new Reporter(
                properties.getProperty("host", DEFAULT_HOST),
                new PortRange(properties.getProperty("port", "9249")));
    }

    /** The reporter: Flink's metric translation, served on {@code host}. */
    public static final class Reporter extends AbstractPrometheusReporter {
        private final HTTPServer server;
        private final String host;
        private final int port;

        Reporter(String host, PortRange ports) {
            CollectorRegistry registry = registryOf(this);
            Iterator<Integer> it = ports.getPortsIterator();
            HTTPServer started = null;
            int bound = -1;
            while (it.hasNext() && started == null) {
                int p = it.next();
                try {
                    started = new HTTPServer(new InetSocketAddress(host, p), registry, true);
                    bound = p;
                } catch (IOException e) {
                    log.debug(
                            "Could not start PrometheusReporter HTTP server on {}:{}.", host, p, e);
                }
            }
            if (started == null) {
                throw new RuntimeException(
                        "Could not start PrometheusReporter HTTP server on "
                                + host
                                + " on any port in "
                                + ports);
            }
            this.server = started;
            this.host = host;
            this.port = bound;
            // LocalCluster reads the port from this line (as Flink's reporter writes it).
            log.info("Started PrometheusReporter HTTP server on port {} ({}).", bound, host);
        }

        /** The port the server bound. */
        public int port() {
            return port;
        }

        /** The address the server bound. */
        public String host() {
            return host;
        }

        @Override
        public void close() {
            server.stop();
            super.close();
        }

        /** The reporter's registry (package-private in Flink's class; one per reporter). */
        private static CollectorRegistry registryOf(AbstractPrometheusReporter r) {
            try {
                Field f = AbstractPrometheusReporter.class.getDeclaredField("registry");
                f.setAccessible(true);
                return (CollectorRegistry) f.get(r);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(
                        "flink-metrics-prometheus changed: no registry field", e);
            }
        }
    }
}
