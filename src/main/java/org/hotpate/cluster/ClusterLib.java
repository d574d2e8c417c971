package org.hotpate.cluster;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Where the jars of a local cluster are: {@code target/cluster-lib/flink} (the Flink runtime as
 * flink-dist's {@code lib/} would hold it), {@code target/cluster-lib/kafka} (the broker), both
 * copied from Maven Central by {@code mvn package}, and the slim job jar {@code
 * target/hotpate-<version>-cluster.jar} that is submitted to the cluster.
 *
 * <p>{@code target} is the directory of the jar (or classes directory) this code runs from, unless
 * the system property {@code hotpate.target} names another.
 */
public record ClusterLib(Path flink, Path kafka, Path clusterJar) {

    /** The build's cluster jars; a clear error when the build did not make them. */
    public static ClusterLib locate() {
        Path target = targetDir();
        ClusterLib lib =
                new ClusterLib(
                        target.resolve("cluster-lib/flink"),
                        target.resolve("cluster-lib/kafka"),
                        findClusterJar(target));
        for (Path p : new Path[] {lib.flink(), lib.kafka()}) {
            if (!Files.isDirectory(p)) {
                throw new IllegalStateException(
                        p
                                + " is missing: build with ./hotpate --help or mvn package (it copies"
                                + " Flink's and Kafka's jars from Maven Central)");
            }
        }
        return lib;
    }

    /** The slim job jar, or a clear error when it was not built. */
    public Path requireClusterJar() {
        if (clusterJar == null || !Files.isRegularFile(clusterJar)) {
            throw new IllegalStateException(
                    "the cluster job jar (target/hotpate-*-cluster.jar) is missing: build with"
                            + " ./hotpate --help or mvn package");
        }
        return clusterJar;
    }

    static Path targetDir() {
        String explicit = System.getProperty("hotpate.target");
        if (explicit != null && !explicit.isBlank()) {
            return Path.of(explicit).toAbsolutePath();
        }
        try {
            Path here =
                    Path.of(
                            ClusterLib.class
                                    .getProtectionDomain()
                                    .getCodeSource()
                                    .getLocation()
                                    .toURI());
            return here.toAbsolutePath().getParent(); // target/classes or target/<jar>
        } catch (URISyntaxException | RuntimeException e) {
            return Path.of("target").toAbsolutePath();
        }
    }

    private static Path findClusterJar(Path target) {
        try (Stream<Path> s = Files.list(target)) {
            return s.filter(p -> p.getFileName().toString().matches("hotpate-.*-cluster\\.jar"))
                    .findFirst()
                    .map(Path::toAbsolutePath)
                    .orElse(null);
        } catch (IOException e) {
            return null;
        }
    }
}
