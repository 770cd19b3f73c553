package dev.mailroom.it.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A standalone ActiveMQ Artemis broker for tests: the distribution the build unpacks from Maven Central
 * ({@code org.apache.activemq:apache-artemis:<artemis.dist.version>:zip:bin}, system property
 * {@code mailroom.it.artemis-home}), an instance made by {@code server-config/artemis/create-broker.sh} (the
 * script operators and docker/compose.yaml use: {@code artemis create} plus Mailroom's broker.properties, users
 * and roles), run on loopback with {@code bin/artemis run}.
 *
 * <p>{@link #startPair} starts a replicated primary and backup; {@link #killHard()} is a {@code kill -9}.
 * Ports: core acceptors {@code 61617+offset} and {@code 61618+offset} (less 40000 when that passes 65535, as
 * with an offset of 5000), consoles (Jolokia) {@code 18161+offset}
 * and {@code 18162+offset}, so helpers with different port offsets do not collide, and the acceptors stay
 * above the ephemeral range (a reconnecting client cannot self-connect to them). The broker processes get a
 * parent-death signal and a JVM shutdown hook.
 */
public final class ArtemisBroker implements AutoCloseable {

    public static final String ADMIN_USER = "admin";
    public static final String ADMIN_PASSWORD = "admin-pass";
    /** Mailroom's broker user (role mailroom), the same credentials as the embedded default's. */
    public static final String MAILROOM_USER = JmsClient.DEFAULT_USER;
    public static final String MAILROOM_PASSWORD = JmsClient.DEFAULT_PASSWORD;
    public static final String PRODUCER_USER = "producer";
    public static final String PRODUCER_PASSWORD = "producer-pass";
    private static final Duration CREATE_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(300);
    private static final Duration POLL = Duration.ofMillis(250);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String name;
    private final Path instance;
    private final int port;
    private final int consolePort;
    private final Path runLog;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    private Process process;
    private Thread shutdownHook;
    private SmallDisk dataDisk;
    /** The proxy on this broker's announced port, if it has one: it refuses while the broker is down. */
    private TcpFaultProxy front;

    private ArtemisBroker(String name, Path instance, int port, int consolePort) {
        this.name = name;
        this.instance = instance;
        this.port = port;
        this.consolePort = consolePort;
        this.runLog = instance.resolve("run.log");
    }

    /**
     * A replicated primary and backup; {@link #close()} stops both. With {@code primaryProxy} (else null) the
     * primary's port is a {@link TcpFaultProxy} of the harness in front of the primary's own acceptor, so that
     * everything reaching the primary by the port it announces (the clients, and the backup: spare its pid to keep it
     * replicating) goes through it.
     */
    public record Pair(ArtemisBroker primary, ArtemisBroker backup, TcpFaultProxy primaryProxy) implements AutoCloseable {

        /** The client URL of the pair as Mailroom takes it ({@code MAILROOM_BROKER_URL}). */
        public String brokerUrl() {
            return url(primary.port, backup.port);
        }

        /** The broker consoles, primary first ({@code MAILROOM_BROKER_CONSOLE_URLS}). */
        public String consoleUrls() {
            return primary.consoleUrl() + "," + backup.consoleUrl();
        }

        /** The broker that serves clients now: the primary while it lives, the backup after a failover. */
        public ArtemisBroker active() {
            return primary.isAlive() ? primary : backup;
        }

        /** A JMS client of the pair as an application submitting jobs would use it (user producer). */
        public JmsClient producerClient() {
            return new JmsClient(brokerUrl(), PRODUCER_USER, PRODUCER_PASSWORD);
        }

        @Override
        public void close() {
            backup.close();
            primary.close();
            if (primaryProxy != null) {
                primaryProxy.close();
            }
        }
    }

    /** The client URL of the pair {@link #startPair} starts with this port offset, known before it starts. */
    public static String pairUrl(int portOffset) {
        return url(acceptorPort(61617, portOffset), acceptorPort(61618, portOffset));
    }

    /** {@code base + offset}, brought below 65536 for large offsets (61617 + 5000 is no port). */
    static int acceptorPort(int base, int portOffset) {
        int port = base + portOffset;
        return port > 65535 ? port - 40000 : port;
    }

    private static String url(int primaryPort, int backupPort) {
        return "(tcp://127.0.0.1:" + primaryPort + ",tcp://127.0.0.1:" + backupPort + ")?ha=true&reconnectAttempts=-1";
    }

    /**
     * Creates (afresh, under {@code <workDir>/artemis-<offset>/}) and starts a primary and a backup, returning when
     * the primary is active and the backup has synchronised with it.
     */
    public static Pair startPair(Path workDir, int portOffset) {
        return startPair(workDir, portOffset, false, 0);
    }

    /**
     * As {@link #startPair(Path, int)}; with {@code proxied} the primary is reached through {@link Pair#primaryProxy};
     * with {@code primaryDiskMegabytes} above 0 the primary's data directory (journal, bindings, paging, large
     * messages) is a {@link SmallDisk} of that size ({@link #dataDisk}).
     */
    public static Pair startPair(Path workDir, int portOffset, boolean proxied, int primaryDiskMegabytes) {
        Instant begin = Instant.now();
        Path base = workDir.toAbsolutePath().normalize().resolve("artemis-" + portOffset);
        try {
            PostgresServer.deleteTree(base);
            Files.createDirectories(base);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not prepare " + base, e);
        }
        ArtemisBroker primary = new ArtemisBroker("primary", base.resolve("primary"), acceptorPort(61617, portOffset),
                18161 + portOffset);
        ArtemisBroker backup = new ArtemisBroker("backup", base.resolve("backup"), acceptorPort(61618, portOffset),
                18162 + portOffset);
        // `artemis create` takes seconds each (it hashes the admin password): both at once
        CompletableFuture<Void> p = CompletableFuture.runAsync(() -> primary.create("primary", backup.port));
        CompletableFuture<Void> b = CompletableFuture.runAsync(() -> backup.create("backup", primary.port));
        p.join();
        b.join();
        TcpFaultProxy proxy = proxied ? primary.behindProxy(portOffset) : null;
        if (primaryDiskMegabytes > 0) {
            primary.dataDisk = SmallDisk.prepare(primary.instance.resolve("data"), primaryDiskMegabytes);
            log("Artemis primary's data: " + primary.dataDisk);
        }
        // both JVMs boot at once: a replicating backup waits for its primary (it never becomes active before it has
        // synchronised with one), so the two boots overlap instead of following each other
        primary.start();
        backup.start();
        try {
            primary.awaitLog("AMQ221007", START_TIMEOUT); // Server is now active
            backup.awaitLog("AMQ221024", START_TIMEOUT); // Backup server ... is synchronized with primary
        } catch (RuntimeException e) {
            new Pair(primary, backup, proxy).close();
            throw e;
        }
        log("Artemis pair ready in " + Duration.between(begin, Instant.now()).toMillis() + " ms: primary :"
                + primary.port + " (console :" + primary.consolePort + "), backup :" + backup.port + " (console :"
                + backup.consolePort + ")");
        return new Pair(primary, backup, proxy);
    }

    /**
     * Moves the primary's acceptor to a free port and puts a proxy on the port it had, which the broker goes on
     * announcing (its connector) to clients and backup alike: a client that follows the announced topology meets the
     * proxy too.
     */
    private TcpFaultProxy behindProxy(int portOffset) {
        // outside the ephemeral range (32768-60999 here), as the pair's own ports: while the primary is down (its kill
        // scenario), a port of that range is free for the proxy's own connection to it to take as its source port,
        // a TCP self-connect that answers nothing (measured: the nodes' failover waited 30 s per attempt, minutes in
        // all, with a port the OS had picked)
        int inner = acceptorPort(61620, portOffset);
        Path xml = instance.resolve("etc/broker.xml");
        try {
            String text = Files.readString(xml);
            String acceptor = "<acceptor name=\"artemis\">tcp://127.0.0.1:" + port + "?";
            if (!text.contains(acceptor)) {
                throw new IllegalStateException("no acceptor " + acceptor + " in " + xml);
            }
            Files.writeString(xml, text.replace(acceptor, "<acceptor name=\"artemis\">tcp://127.0.0.1:" + inner + "?"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        front = TcpFaultProxy.start("broker " + name, port, inner);
        front.mirrorTheServersListening();
        return front;
    }

    /** The small filesystem of the broker's data directory, if it was given one (and could have it). */
    public java.util.Optional<SmallDisk> dataDisk() {
        return java.util.Optional.ofNullable(dataDisk).filter(d -> d.unavailable() == null);
    }

    /** Why the broker has no small data disk although one was asked for, else null. */
    public String dataDiskUnavailable() {
        return dataDisk == null ? "none was asked for" : dataDisk.unavailable();
    }

    /** The broker JVM's pid while it runs. */
    public synchronized java.util.OptionalLong pid() {
        return isAlive() ? java.util.OptionalLong.of(process.pid()) : java.util.OptionalLong.empty();
    }

    /**
     * Creates (afresh, under {@code <workDir>/artemis-single-<offset>/}) and starts one broker without a peer, as
     * Open Liberty's embedded default runs one (server-config/liberty/run.sh).
     */
    public static ArtemisBroker startSingle(Path workDir, int portOffset) {
        Path base = workDir.toAbsolutePath().normalize().resolve("artemis-single-" + portOffset);
        try {
            PostgresServer.deleteTree(base);
            Files.createDirectories(base);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not prepare " + base, e);
        }
        ArtemisBroker broker = new ArtemisBroker("single", base.resolve("single"), acceptorPort(61619, portOffset),
                18163 + portOffset);
        broker.create("single", 0);
        broker.start();
        try {
            broker.awaitLog("AMQ221007", START_TIMEOUT); // Server is now active
        } catch (RuntimeException e) {
            broker.close();
            throw e;
        }
        log("Artemis single broker ready: :" + broker.port + " (console :" + broker.consolePort + ")");
        return broker;
    }

    public String name() {
        return name;
    }

    public int port() {
        return port;
    }

    public String consoleUrl() {
        return "http://127.0.0.1:" + consolePort;
    }

    public Path instance() {
        return instance;
    }

    public synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** Waits until the broker's log shows the message id (e.g. {@code AMQ221010}: a backup became active). */
    public void awaitLog(String messageId, Duration timeout) {
        awaitLogAfter(0, timeout, messageId);
    }

    /** How long the broker's log is now: what {@link #awaitLogAfter} looks past. */
    public long logLength() {
        try {
            return Files.exists(runLog) ? Files.size(runLog) : 0L;
        } catch (IOException e) {
            return 0L;
        }
    }

    /**
     * As {@link #awaitLog}, for any of these messages logged after the log was {@code from} bytes long (a restarted
     * broker logs its messages again); returns the one found.
     */
    public String awaitLogAfter(long from, Duration timeout, String... anyOf) {
        String text = String.join(" or ", anyOf);
        Instant deadline = Instant.now().plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            String log = logAfter(from);
            for (String t : anyOf) {
                if (log.contains(t)) {
                    return t;
                }
            }
            if (!isAlive()) {
                throw new IllegalStateException("Artemis " + name + " exited while waiting for " + text + "; log "
                        + runLog + ":\n" + PostgresServer.tail(runLog, 40));
            }
            sleep(POLL);
        }
        throw new IllegalStateException("Artemis " + name + " did not log " + text + " within "
                + timeout.toSeconds() + " s; log " + runLog + ":\n" + PostgresServer.tail(runLog, 40));
    }

    /** The lines of the broker's log written after it was {@code from} bytes long that contain the text (at most 5, and how many). */
    public String logAfter(long from, String text) {
        List<String> lines = logAfter(from).lines().filter(l -> l.contains(text)).toList();
        if (lines.isEmpty()) {
            return "";
        }
        return lines.size() + " x " + text + ": " + String.join(" | ", lines.subList(0, Math.min(5, lines.size())));
    }

    private String logAfter(long from) {
        try {
            if (!Files.exists(runLog)) {
                return "";
            }
            byte[] all = Files.readAllBytes(runLog);
            int start = (int) Math.min(all.length, Math.max(0, from));
            return new String(all, start, all.length - start, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * Starts the broker again on its own instance after a {@link #killHard}: a primary (check-for-active-server)
     * finds its backup active, copies its journal from it and fails back.
     */
    public synchronized void restart() {
        if (isAlive()) {
            throw new IllegalStateException("Artemis " + name + " is running");
        }
        start();
        log("Artemis " + name + " started again");
    }

    public boolean logContains(String text) {
        try {
            return Files.exists(runLog) && Files.readString(runLog, StandardCharsets.UTF_8).contains(text);
        } catch (IOException e) {
            return false;
        }
    }

    /** {@code kill -9} of the broker JVM; returns when it is gone. */
    public synchronized void killHard() {
        if (process == null) {
            return;
        }
        process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (front != null) {
            front.stopListeningWhileTheServerIsDown(); // its port refuses, as a dead broker's does, until it is back
        }
        log("Artemis " + name + " killed (kill -9)");
    }

    /**
     * One request to the broker's own management API, Jolokia on the console port ({@code /console/jolokia}), as
     * the given user. Returns the answer's {@code value}; throws when the status is not 200.
     */
    public JsonNode jolokia(Map<String, Object> request, String user, String password) {
        try {
            HttpRequest r = HttpRequest.newBuilder(URI.create(consoleUrl() + "/console/jolokia/"))
                    .timeout(Duration.ofSeconds(10))
                    .header("Content-Type", "application/json")
                    // Artemis's jolokia-access.xml checks the origin strictly
                    .header("Origin", "http://127.0.0.1")
                    .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                            (user + ":" + password).getBytes(StandardCharsets.UTF_8)))
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(request)))
                    .build();
            HttpResponse<String> response = http.send(r, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("Jolokia on " + name + " answered HTTP " + response.statusCode());
            }
            JsonNode answer = JSON.readTree(response.body());
            if (answer.path("status").asInt() != 200) {
                throw new IllegalStateException("Jolokia on " + name + ": " + answer.path("error").asText());
            }
            return answer.get("value");
        } catch (IOException e) {
            throw new UncheckedIOException("Jolokia on " + name + " did not answer", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** The MBean name of a queue on this broker (address = queue name, anycast, as broker.properties makes them). */
    public String queueMBean(String queue) {
        return "org.apache.activemq.artemis:broker=\"" + name + "\",component=addresses,address=\"" + queue
                + "\",subcomponent=queues,routing-type=\"anycast\",queue=\"" + queue + "\"";
    }

    /** Stops the broker (SIGTERM, then kill -9 after 30 s). Idempotent. */
    @Override
    public synchronized void close() {
        removeShutdownHook();
        if (process != null && process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    killHard();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                killHard();
            }
        }
        if (dataDisk != null) {
            dataDisk.close();
        }
    }

    @Override
    public String toString() {
        return "Artemis[" + name + " :" + port + "]";
    }

    // ------------------------------------------------------------------ internals

    private void create(String role, int peerPort) {
        Path artemisHome = requiredPath("mailroom.it.artemis-home", "the unpacked Artemis distribution");
        Path script = requiredPath("mailroom.it.artemis-config", "server-config/artemis").resolve("create-broker.sh");
        Map<String, String> env = new LinkedHashMap<>();
        env.put("MAILROOM_ARTEMIS_NAME", name);
        env.put("MAILROOM_ARTEMIS_HOST", "127.0.0.1");
        env.put("MAILROOM_ARTEMIS_PORT", Integer.toString(port));
        env.put("MAILROOM_ARTEMIS_CONSOLE_PORT", Integer.toString(consolePort));
        if (peerPort > 0) {
            env.put("MAILROOM_ARTEMIS_PEER", "tcp://127.0.0.1:" + peerPort);
        }
        env.put("MAILROOM_ARTEMIS_MEMORY", "384M");
        env.put("MAILROOM_ARTEMIS_CLUSTER_PASSWORD", "it-cluster-pass");
        env.put("MAILROOM_ARTEMIS_ADMIN_USER", ADMIN_USER);
        env.put("MAILROOM_ARTEMIS_ADMIN_PASSWORD", ADMIN_PASSWORD);
        env.put("MAILROOM_BROKER_USER", MAILROOM_USER);
        env.put("MAILROOM_BROKER_PASSWORD", MAILROOM_PASSWORD);
        env.put("MAILROOM_PRODUCER_USER", PRODUCER_USER);
        env.put("MAILROOM_PRODUCER_PASSWORD", PRODUCER_PASSWORD);
        run(List.of("bash", script.toString(), artemisHome.toString(), instance.toString(), role), env,
                instance.getParent().resolve(name + ".create.out"), CREATE_TIMEOUT, "create-broker.sh " + role);
    }

    private synchronized void start() {
        List<String> cmd = new ArrayList<>();
        String setpriv = PostgresServer.ChildProcesses.findExecutable("setpriv");
        if (setpriv != null) {
            cmd.addAll(List.of(setpriv, "--pdeathsig", "KILL", "--"));
        }
        if (dataDisk != null && dataDisk.unavailable() == null) {
            cmd.addAll(dataDisk.launchPrefix()); // execs on: still the one process
        }
        // bin/artemis execs the JVM, so the process is the broker itself
        cmd.addAll(List.of(instance.resolve("bin/artemis").toString(), "run"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(runLog.toFile()));
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().remove("JAVA_ARGS");
        try {
            process = PostgresServer.ChildProcesses.start(pb);
            if (dataDisk != null) {
                dataDisk.serverStarted(process.pid());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start Artemis " + name, e);
        }
        if (shutdownHook == null) {
            shutdownHook = new Thread(this::close, "artemis-stop-" + name);
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
    }

    private synchronized void removeShutdownHook() {
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException ignored) {
                // already shutting down
            }
            shutdownHook = null;
        }
    }

    private static void run(List<String> cmd, Map<String, String> env, Path out, Duration timeout, String what) {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(out.toFile()));
        pb.environment().putAll(env);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        try {
            Process p = PostgresServer.ChildProcesses.start(pb);
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(what + " did not finish within " + timeout.toSeconds() + " s");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(what + " failed with exit code " + p.exitValue() + ":\n"
                        + PostgresServer.tail(out, 30));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not run " + what, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    static Path requiredPath(String property, String what) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("System property " + property + " (" + what + ") is not set: run the "
                    + "integration tests through Maven (mvn verify)");
        }
        Path p = Path.of(value).toAbsolutePath().normalize();
        if (!Files.exists(p)) {
            throw new IllegalStateException(property + " = " + p + " does not exist (mvn package unpacks it)");
        }
        return p;
    }

    private static void sleep(Duration d) {
        WildFlyServer.sleep(d);
    }

    private static void log(String msg) {
        WildFlyServer.log(msg);
    }
}
