package org.hotpate.stream.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import java.util.Properties;
import java.util.ServiceLoader;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.hotpate.stream.HotPateJob;
import org.hotpate.stream.config.JobSpec;
import org.junit.jupiter.api.Test;

class BoundPrometheusReporterFactoryTest {
    @Test
    void theEmbeddedClustersReporterBindsLoopbackByDefault() {
        Configuration c =
                HotPateJob.flinkConfiguration(
                        JobSpec.parse("flink: {metrics-port: 9999}", "x"), "file:///cp", "/tmp/x");
        assertThat(c.getString("metrics.reporter.prom.factory.class", null))
                .isEqualTo(BoundPrometheusReporterFactory.class.getName());
        assertThat(c.getString("metrics.reporter.prom.host", null)).isEqualTo("127.0.0.1");
        Configuration open =
                HotPateJob.flinkConfiguration(
                        JobSpec.parse("flink: {metrics-port: 9999, metrics-host: 0.0.0.0}", "x"),
                        "file:///cp",
                        "/tmp/x");
        assertThat(open.getString("metrics.reporter.prom.host", null)).isEqualTo("0.0.0.0");
        assertThatThrownBy(() -> JobSpec.parse("flink: {metrics-host: ''}", "x"))
                .hasMessageContaining("flink.metrics-host");
    }

    @Test
    void flinkFindsTheFactoryByServiceLoader() {
        assertThat(ServiceLoader.load(MetricReporterFactory.class).stream())
                .anyMatch(p -> p.type() == BoundPrometheusReporterFactory.class);
    }

    @Test
    void theReporterServesOnLoopbackOnly() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Properties p = new Properties();
        p.setProperty("port", Integer.toString(port));
        BoundPrometheusReporterFactory.Reporter r =
                (BoundPrometheusReporterFactory.Reporter)
                        new BoundPrometheusReporterFactory().createMetricReporter(p);
        try {
            assertThat(r.host()).isEqualTo("127.0.0.1");
            assertThat(r.port()).isEqualTo(port);
            HttpResponse<String> res =
                    HttpClient.newHttpClient()
                            .send(
                                    HttpRequest.newBuilder(
                                                    URI.create(
                                                            "http://127.0.0.1:"
                                                                    + port
                                                                    + "/metrics"))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString());
            assertThat(res.statusCode()).isEqualTo(200);
            Optional<InetAddress> other = nonLoopbackAddress();
            if (other.isPresent()) {
                assertThatThrownBy(
                                () -> {
                                    try (Socket s = new Socket()) {
                                        s.connect(new InetSocketAddress(other.get(), port), 2000);
                                    }
                                })
                        .as("not reachable on " + other.get())
                        .isInstanceOf(IOException.class);
            }
        } finally {
            r.close();
        }
    }

    private static Optional<InetAddress> nonLoopbackAddress() throws IOException {
        return NetworkInterface.networkInterfaces()
                .filter(
                        i -> {
                            try {
                                return i.isUp() && !i.isLoopback();
                            } catch (IOException e) {
                                return false;
                            }
                        })
                .flatMap(NetworkInterface::inetAddresses)
                .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress())
                .findFirst();
    }
}
