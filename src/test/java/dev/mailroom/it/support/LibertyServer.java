package dev.mailroom.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Mailroom on Open Liberty: the server "mailroom" the build laid out with server-config/liberty/configure.sh
 * ({@code mailroom.it.liberty-home}), run in the foreground ({@code server run}) as a child of the test JVM so the test
 * owns the process. Its logs and work area go to {@code <work-dir>/liberty} ({@code WLP_OUTPUT_DIR}), wiped at start.
 * The broker it talks to is given at start: a test override of the connector list configure.sh wrote.
 */
public final class LibertyServer implements AutoCloseable {

    private final Path home;
    private final Path output;
    private final int httpPort;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    private Process process;

    private LibertyServer(Path home, Path output, int httpPort) {
        this.home = home;
        this.output = output;
        this.httpPort = httpPort;
    }

    /**
     * Starts the server against the broker on {@code brokerPort} (its console at {@code consoleUrl}) with this
     * environment besides, returning once {@code GET /api/v1/health} answers 200.
     */
    public static LibertyServer start(Path workDir, int portOffset, int brokerPort, String consoleUrl,
                                      Map<String, String> env) {
        Path home = ArtemisBroker.requiredPath("mailroom.it.liberty-home", "the configured Open Liberty (wlp)");
        Path output = workDir.toAbsolutePath().normalize().resolve("liberty");
        LibertyServer server = new LibertyServer(home, output, 8080 + portOffset);
        try {
            PostgresServer.deleteTree(output);
            Files.createDirectories(output);
            // after configure.sh's file (overrides are read in name order): this run's broker
            Files.writeString(home.resolve("usr/servers/mailroom/configDropins/overrides/zz-it-broker.xml"),
                    "<server><variable name=\"artemis.parameters\" value=\"host=127.0.0.1;port=" + brokerPort
                            + "\"/></server>\n");
        } catch (IOException e) {
            throw new UncheckedIOException("Could not prepare " + output, e);
        }
        List<String> cmd = new ArrayList<>();
        String setpriv = PostgresServer.ChildProcesses.findExecutable("setpriv");
        if (setpriv != null) {
            cmd.addAll(List.of(setpriv, "--pdeathsig", "KILL", "--"));
        }
        cmd.addAll(List.of(home.resolve("bin/server").toString(), "run", "mailroom"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(output.resolve("console.out").toFile()));
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("WLP_OUTPUT_DIR", output.toString());
        pb.environment().put("MAILROOM_HTTP_PORT", Integer.toString(server.httpPort));
        pb.environment().put("MAILROOM_BROKER_USER", ArtemisBroker.MAILROOM_USER);
        pb.environment().put("MAILROOM_BROKER_PASSWORD", ArtemisBroker.MAILROOM_PASSWORD);
        pb.environment().put("MAILROOM_BROKER_CONSOLE_URLS", consoleUrl);
        pb.environment().putAll(env);
        try {
            server.process = PostgresServer.ChildProcesses.start(pb);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start Open Liberty", e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "liberty-stop"));
        server.awaitHealthy(WildFlyServer.DEFAULT_BOOT_TIMEOUT);
        return server;
    }

    public String apiBase() {
        return "http://127.0.0.1:" + httpPort + "/mailroom";
    }

    /** The server's messages.log, for a failure's message. */
    public String messagesLog() {
        try {
            return Files.readString(output.resolve("mailroom/logs/messages.log"));
        } catch (IOException e) {
            return "(no messages.log: " + e.getMessage() + ")";
        }
    }

    private void awaitHealthy(Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        HttpRequest health = HttpRequest.newBuilder(URI.create(apiBase() + "/api/v1/health"))
                .timeout(Duration.ofSeconds(5)).GET().build();
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Open Liberty exited with " + process.exitValue() + "; see "
                        + output.resolve("console.out"));
            }
            try {
                if (http.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            Jobs.sleep(500);
        }
        throw new IllegalStateException("Open Liberty not healthy within " + timeout + "; see " + output);
    }

    @Override
    public synchronized void close() {
        if (process == null || !process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
