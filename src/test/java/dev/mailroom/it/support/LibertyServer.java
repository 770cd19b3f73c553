package dev.mailroom.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Mailroom on Open Liberty: the server "mailroom" the build laid out with server-config/liberty/configure.sh
 * ({@code mailroom.it.liberty-home}), run in the foreground ({@code server run}, which execs the server JVM) as a child
 * of the test JVM so the test owns the process. Its logs, H2 files and transaction log go to
 * {@code <work-dir>/liberty} ({@code WLP_OUTPUT_DIR}), wiped by {@link #start(Path, int, int, String, Map)} and kept
 * across {@link #killHard()} and {@link #restart()}. The broker it talks to is given at start: a test override of the
 * connector list configure.sh wrote.
 */
public final class LibertyServer implements MailroomServer {

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);
    /**
     * As ItEnvironment's WildFly: 600 s, or {@code -Dmailroom.it.boot-timeout-seconds}. A restart after a kill -9 took
     * 125 s on the 2-core machine with other builds running, twice the first boot.
     */
    private static final Duration BOOT_TIMEOUT = Duration.ofSeconds(Long.getLong("mailroom.it.boot-timeout-seconds", 600));

    private final Path home;
    private final Path output;
    private final int httpPort;
    private final Map<String, String> env;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    private Process process;
    private Thread shutdownHook;

    private LibertyServer(Path home, Path output, int httpPort, Map<String, String> env) {
        this.home = home;
        this.output = output;
        this.httpPort = httpPort;
        this.env = Map.copyOf(env);
    }

    /**
     * Starts a new server against the broker on {@code brokerPort} (its console at {@code consoleUrl}) with this
     * environment besides, on an empty output directory, returning once {@code GET /api/v1/health} answers 200.
     */
    public static LibertyServer start(Path workDir, int portOffset, int brokerPort, String consoleUrl,
                                      Map<String, String> env) {
        Path home = ArtemisBroker.requiredPath("mailroom.it.liberty-home", "the configured Open Liberty (wlp)");
        Path output = workDir.toAbsolutePath().normalize().resolve("liberty");
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
        Map<String, String> all = new java.util.LinkedHashMap<>();
        all.put("MAILROOM_BROKER_USER", ArtemisBroker.MAILROOM_USER);
        all.put("MAILROOM_BROKER_PASSWORD", ArtemisBroker.MAILROOM_PASSWORD);
        all.put("MAILROOM_BROKER_CONSOLE_URLS", consoleUrl);
        all.putAll(env);
        return new LibertyServer(home, output, 8080 + portOffset, all).start();
    }

    @Override
    public synchronized LibertyServer start() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("Open Liberty is already running (pid " + process.pid() + ")");
        }
        List<String> cmd = new ArrayList<>();
        String setpriv = PostgresServer.ChildProcesses.findExecutable("setpriv");
        if (setpriv != null) {
            cmd.addAll(List.of(setpriv, "--pdeathsig", "KILL", "--"));
        }
        cmd.addAll(List.of(home.resolve("bin/server").toString(), "run", "mailroom"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(output.resolve("console.out").toFile()));
        pb.environment().keySet().removeIf(k -> k.startsWith("MAILROOM_"));
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("WLP_OUTPUT_DIR", output.toString());
        pb.environment().put("MAILROOM_HTTP_PORT", Integer.toString(httpPort));
        pb.environment().putAll(env);
        Instant begin = Instant.now();
        awaitPortFree("before starting Open Liberty");
        appendConsole("==== [it-harness] start at " + begin);
        try {
            process = PostgresServer.ChildProcesses.start(pb);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start Open Liberty", e);
        }
        if (shutdownHook == null) {
            shutdownHook = new Thread(this::stop, "liberty-stop");
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
        awaitHealthy(BOOT_TIMEOUT);
        WildFlyServer.log("Open Liberty ready at " + baseUrl() + " after "
                + Duration.between(begin, Instant.now()).toMillis() + " ms (pid " + process.pid() + ")");
        return this;
    }

    @Override
    public String baseUrl() {
        return "http://127.0.0.1:" + httpPort + "/mailroom";
    }

    /** Same as {@link #baseUrl()}: where the API's paths begin. */
    public String apiBase() {
        return baseUrl();
    }

    @Override
    public Path log() {
        return output.resolve("mailroom/logs/messages.log");
    }

    /** The server's configuration directory ({@code usr/servers/mailroom}), as configure.sh laid it out. */
    public Path configDir() {
        return home.resolve("usr/servers/mailroom");
    }

    /** The server's messages.log, for a failure's message. */
    public String messagesLog() {
        try {
            return Files.readString(log());
        } catch (IOException e) {
            return "(no messages.log: " + e.getMessage() + ")";
        }
    }

    /** SIGKILL to the server JVM ({@code server run} execs it, so it is the child itself) and whatever it started. */
    @Override
    public synchronized void killHard() {
        if (process == null || !process.isAlive()) {
            return;
        }
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        waitFor(Duration.ofSeconds(30));
        awaitPortFree("after killing Open Liberty");
        appendConsole("==== [it-harness] killed with SIGKILL at " + Instant.now());
        WildFlyServer.log("Open Liberty killed (SIGKILL)");
    }

    /** SIGTERM: Liberty stops its endpoints and lets the deliveries in flight end; SIGKILL after 60 s. */
    @Override
    public synchronized void stop() {
        if (process == null || !process.isAlive()) {
            return;
        }
        process.destroy();
        if (!waitFor(STOP_TIMEOUT)) {
            WildFlyServer.log("Open Liberty did not stop within " + STOP_TIMEOUT.toSeconds() + " s after SIGTERM");
            killHard();
        }
    }

    @Override
    public void close() {
        stop();
    }

    private boolean waitFor(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void awaitHealthy(Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        HttpRequest health = HttpRequest.newBuilder(URI.create(baseUrl() + "/api/v1/health"))
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

    private void awaitPortFree(String when) {
        Instant deadline = Instant.now().plusSeconds(30);
        while (PostgresServer.isListening(httpPort)) {
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("Port " + httpPort + " still in use " + when + "; find it with `ss -ltnp`");
            }
            Jobs.sleep(250);
        }
    }

    private void appendConsole(String line) {
        try {
            Files.writeString(output.resolve("console.out"), line + System.lineSeparator(), StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException ignored) {
            // best effort: the marker only helps a reader of the log
        }
    }
}
