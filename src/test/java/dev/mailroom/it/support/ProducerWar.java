package dev.mailroom.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.awaitility.Awaitility;

/**
 * The example producer application ({@code dev.mailroom.examples.producer}) as a WAR of its own, deployed beside
 * Mailroom in the same WildFly: its classes, the client jar the build made ({@code mailroom-client.jar}) and the
 * client's schema validator, with Jackson from WildFly's modules, as a producer would package it. Deployed by WildFly's
 * deployment scanner (a file in {@code standalone/deployments}), so the server's configuration never names it; the
 * environment removes a WAR a dead test run left there before it boots a server.
 */
public final class ProducerWar {

    public static final String NAME = "example-producer.war";
    private static final String PACKAGE = "dev/mailroom/examples/producer/";

    private ProducerWar() {
    }

    /** The client jar the build made beside the WAR. */
    public static Path clientJar() {
        Path jar = Path.of(System.getProperty("mailroom.it.client-jar", "target/mailroom-client.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " does not exist: mvn package builds it (maven-jar-plugin, client-jar)");
        }
        return jar;
    }

    /**
     * Builds the WAR into the server's deployment folder and waits for the deployment scanner to deploy it; returns
     * its base URL ({@code http://127.0.0.1:<port>/example-producer}).
     */
    public static String deploy(WildFlyServer server) {
        Path deployments = deployments(server.home());
        removeLeftovers(server.home());
        Path staged = deployments.resolveSibling(NAME + ".staged");
        build(staged);
        try {
            // the scanner must never see a half-written archive
            Files.move(staged, deployments.resolve(NAME), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        awaitMarker(deployments, ".deployed");
        return "http://127.0.0.1:" + server.httpPort() + "/example-producer";
    }

    /** Removes the WAR; the scanner undeploys it. */
    public static void undeploy(WildFlyServer server) {
        Path deployments = deployments(server.home());
        try {
            Files.deleteIfExists(deployments.resolve(NAME));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        awaitMarker(deployments, ".undeployed");
        removeLeftovers(server.home());
    }

    /**
     * Deletes the WAR and the scanner's markers a test run that died before {@link #undeploy} left in the server's
     * deployment folder, so no later boot deploys it (the environment calls this before every boot).
     */
    public static void removeLeftovers(Path serverHome) {
        try (Stream<Path> files = Files.list(deployments(serverHome))) {
            for (Path f : files.filter(f -> f.getFileName().toString().startsWith(NAME)).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path deployments(Path serverHome) {
        return serverHome.resolve("standalone/deployments");
    }

    private static void awaitMarker(Path deployments, String marker) {
        Awaitility.await(NAME + marker).atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(250)).until(() -> {
            Path failed = deployments.resolve(NAME + ".failed");
            if (Files.exists(failed)) {
                throw new IllegalStateException(NAME + " failed to deploy: " + Files.readString(failed));
            }
            return Files.exists(deployments.resolve(NAME + marker));
        });
    }

    private static void build(Path war) {
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(war))) {
            Path classes = codeSource(ProducerWar.class);
            try (Stream<Path> files = Files.list(classes.resolve(PACKAGE))) {
                for (Path f : files.sorted().toList()) {
                    add(zip, "WEB-INF/classes/" + PACKAGE + f.getFileName(), Files.readAllBytes(f));
                }
            }
            add(zip, "WEB-INF/lib/mailroom-client.jar", Files.readAllBytes(clientJar()));
            for (String type : List.of("com.networknt.schema.JsonSchema", "com.ethlo.time.ITU")) {
                Path jar = codeSource(Class.forName(type));
                add(zip, "WEB-INF/lib/" + jar.getFileName(), Files.readAllBytes(jar));
            }
            add(zip, "WEB-INF/beans.xml", """
                    <beans xmlns="https://jakarta.ee/xml/ns/jakartaee" version="4.0" bean-discovery-mode="annotated"/>
                    """.getBytes(StandardCharsets.UTF_8));
            add(zip, "WEB-INF/jboss-deployment-structure.xml", """
                    <jboss-deployment-structure xmlns="urn:jboss:deployment-structure:1.2">
                      <deployment>
                        <dependencies>
                          <module name="com.fasterxml.jackson.core.jackson-core"/>
                          <module name="com.fasterxml.jackson.core.jackson-annotations"/>
                          <module name="com.fasterxml.jackson.core.jackson-databind"/>
                          <module name="com.fasterxml.jackson.datatype.jackson-datatype-jsr310"/>
                        </dependencies>
                      </deployment>
                    </jboss-deployment-structure>
                    """.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot build " + war, e);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the client's dependencies are not on the test classpath", e);
        }
    }

    private static void add(ZipOutputStream zip, String name, byte[] content) throws IOException {
        zip.putNextEntry(new ZipEntry(name));
        zip.write(content);
        zip.closeEntry();
    }

    private static Path codeSource(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
