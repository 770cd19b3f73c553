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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A WildFly server run the way an operator runs it: {@code <home>/bin/standalone.sh -c <config> -b 127.0.0.1
 * -bmanagement 127.0.0.1 -Djboss.socket.binding.port-offset=<offset> ...}, as a child process of the test JVM.
 *
 * <ul>
 *   <li>Loopback only; ports are the WildFly defaults plus the offset (HTTP 8080, management 9990, Artemis core
 *       61616).</li>
 *   <li>Data, log and temp dirs are given by the caller; they survive {@link #killHard()} and {@link #restart()}
 *       (H2 files and the Artemis journal live in the data dir), exactly like a crash and restart in production.</li>
 *   <li>The inherited environment is cleaned of every {@code MAILROOM_*} variable; then the caller's environment
 *       is added, so the server sees exactly the configuration the test asks for.</li>
 *   <li>stdout and stderr of the script and the server go to {@link #consoleLog()} (appended across restarts,
 *       each start marked). Every wait has a timeout and fails with the tail of that log.</li>
 *   <li>The script runs with {@code LAUNCH_JBOSS_IN_BACKGROUND=1} (it relays SIGTERM to the server JVM) and, where
 *       {@code setpriv} exists, with a parent-death signal, so a SIGKILLed test JVM takes the server down too.
 *       A JVM shutdown hook stops it otherwise.</li>
 * </ul>
 */
public final class WildFlyServer implements MailroomServer {

    /** 240 s, or {@code -Dmailroom.it.boot-timeout-seconds}: a machine shared by several builds may boot slower. */
    public static final Duration DEFAULT_BOOT_TIMEOUT = Duration.ofSeconds(Long.getLong("mailroom.it.boot-timeout-seconds", 240));
    public static final Duration GRACEFUL_STOP_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration KILL_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration PORT_FREE_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(250);

    private final Builder settings;
    private final Path consoleLog;
    private final HttpClient http;
    private Process script;
    private ProcessHandle java;
    private int starts;
    private Duration lastBootTime;
    private Thread shutdownHook;

    private WildFlyServer(Builder settings) {
        this.settings = settings;
        this.consoleLog = settings.logDir.resolve("console.log");
        this.http = HttpClient.newBuilder()
                .proxy(HttpClient.Builder.NO_PROXY)
                .connectTimeout(Duration.ofSeconds(2))
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    public static Builder builder(Path home) {
        return new Builder(home);
    }

    // ------------------------------------------------------------------ accessors

    public int portOffset() {
        return settings.portOffset;
    }

    public int httpPort() {
        return 8080 + settings.portOffset;
    }

    public int httpsPort() {
        return 8443 + settings.portOffset;
    }

    public int managementPort() {
        return 9990 + settings.portOffset;
    }

    /** The Artemis core (remote acceptor) port, 61616 + offset (less 40000 past 65535: an offset of 5000). */
    public int artemisPort() {
        return artemisBase() + settings.portOffset;
    }

    /** The port of the socket binding mailroom-artemis before the offset ({@code mailroom.artemis.port}). */
    private int artemisBase() {
        return 61616 + settings.portOffset > 65535 ? 61616 - 40000 : 61616;
    }

    /** {@code http://127.0.0.1:<http>/mailroom} (the context root of the deployed WAR). */
    @Override
    public String baseUrl() {
        return "http://127.0.0.1:" + httpPort() + settings.contextRoot;
    }

    public Path consoleLog() {
        return consoleLog;
    }

    /** WildFly's own server.log (in the log dir). */
    public Path serverLog() {
        return settings.logDir.resolve("server.log");
    }

    @Override
    public Path log() {
        return serverLog();
    }

    public Path home() {
        return settings.home;
    }

    public Path dataDir() {
        return settings.dataDir;
    }

    public Path logDir() {
        return settings.logDir;
    }

    public Map<String, String> environment() {
        return Map.copyOf(settings.environment);
    }

    /** PID of the server JVM while it runs. */
    public synchronized OptionalLong javaPid() {
        return java != null && java.isAlive() ? OptionalLong.of(java.pid()) : OptionalLong.empty();
    }

    /** How long the last start took until the readiness URL answered 200. */
    public synchronized Duration lastBootTime() {
        return lastBootTime;
    }

    public synchronized boolean isRunning() {
        return script != null && script.isAlive();
    }

    // ------------------------------------------------------------------ lifecycle

    /** Starts the server and waits until the readiness URL answers 200. */
    @Override
    public synchronized WildFlyServer start() {
        Instant begin = launch();
        awaitReady(begin);
        lastBootTime = Duration.between(begin, Instant.now());
        log("WildFly ready at " + settings.readinessUrl + " after " + lastBootTime.toMillis() + " ms (start #" + starts
                + ", java pid " + java.pid() + ", console " + consoleLog + ")");
        return this;
    }

    /**
     * Starts the server and waits until it says its boot is over, well or with errors ({@code WFLYSRV0025} or
     * {@code WFLYSRV0026}), without waiting for the application: for a test that expects the deployment refused.
     *
     * @return the console log up to then
     */
    public synchronized String startAndAwaitBootEnd() {
        Instant begin = launch();
        Instant deadline = begin.plus(settings.bootTimeout);
        while (Instant.now().isBefore(deadline)) {
            String console = readConsole();
            if (console.contains("WFLYSRV0025") || console.contains("WFLYSRV0026")) {
                java = findJava().orElse(null);
                return console;
            }
            if (!script.isAlive()) {
                throw new IllegalStateException("WildFly exited with code " + script.exitValue() + " while booting;"
                        + " console log " + consoleLog + ":\n" + PostgresServer.tail(consoleLog, 60));
            }
            sleep(POLL);
        }
        killHard();
        throw new IllegalStateException("WildFly did not finish booting within " + settings.bootTimeout.toSeconds()
                + " s; it was killed. Console log " + consoleLog + ":\n" + PostgresServer.tail(consoleLog, 60));
    }

    private String readConsole() {
        try {
            return Files.exists(consoleLog) ? Files.readString(consoleLog) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Instant launch() {
        if (isRunning()) {
            throw new IllegalStateException("WildFly is already running (pid " + script.pid() + ")");
        }
        awaitPortsFree("before starting WildFly");
        starts++;
        Instant begin = Instant.now();
        try {
            Files.createDirectories(settings.dataDir);
            Files.createDirectories(settings.logDir);
            Files.createDirectories(settings.tempDir);
            appendConsole("==== [it-harness] start #" + starts + " at " + begin + ": " + String.join(" ", command()));
            ProcessBuilder pb = new ProcessBuilder(command())
                    .directory(settings.home.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(consoleLog.toFile()));
            environment(pb.environment());
            script = PostgresServer.ChildProcesses.start(pb);
            java = null;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start " + settings.home.resolve("bin/standalone.sh"), e);
        }
        if (settings.shutdownHook && shutdownHook == null) {
            shutdownHook = new Thread(this::stopAtJvmExit, "wildfly-stop-" + httpPort());
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
        return begin;
    }

    /**
     * Starts the server again with the same settings, data, log and temp dirs (H2 files and the Artemis journal
     * survive). If it is still running it is first stopped gracefully.
     */
    @Override
    public synchronized WildFlyServer restart() {
        if (isRunning()) {
            stop();
        }
        return start();
    }

    /**
     * SIGKILL to the server JVM (found among the script's descendants) and then to the script, as in a crash;
     * waits until both are gone and the HTTP, management and Artemis ports are free.
     */
    @Override
    public synchronized void killHard() {
        if (script == null) {
            return;
        }
        Instant begin = Instant.now();
        ProcessHandle j = findJava().orElse(null);
        if (j != null) {
            j.destroyForcibly();
            awaitGone(j, KILL_TIMEOUT, "server JVM after SIGKILL");
        }
        // anything else the script started, then the script itself
        script.descendants().forEach(ProcessHandle::destroyForcibly);
        script.destroyForcibly();
        awaitGone(script.toHandle(), KILL_TIMEOUT, "standalone.sh after SIGKILL");
        awaitPortsFree("after killing WildFly");
        appendConsole("==== [it-harness] killed with SIGKILL (java pid " + (j == null ? "?" : j.pid()) + ") at "
                + Instant.now());
        log("WildFly killed (SIGKILL) in " + Duration.between(begin, Instant.now()).toMillis() + " ms");
        java = null;
    }

    /**
     * SIGSTOP to the server JVM: every thread stops where it is (a long GC pause, a VM migration), its sockets and
     * database sessions stay open and its transactions hold their locks. {@link #thaw()} (SIGCONT) lets it go on.
     */
    public synchronized void freeze() {
        signal("STOP");
        appendConsole("==== [it-harness] frozen with SIGSTOP at " + Instant.now());
    }

    /** SIGCONT to a server JVM {@link #freeze() frozen} before. */
    public synchronized void thaw() {
        signal("CONT");
        appendConsole("==== [it-harness] thawed with SIGCONT at " + Instant.now());
    }

    private void signal(String name) {
        long pid = findJava().orElseThrow(() -> new IllegalStateException("no server JVM to send SIG" + name)).pid();
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + pid + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        log("WildFly java pid " + pid + " sent SIG" + name);
    }

    /** Graceful shutdown: SIGTERM to the server JVM, up to 60 s, then {@link #killHard()}. Idempotent. */
    @Override
    public synchronized void stop() {
        stop(GRACEFUL_STOP_TIMEOUT);
    }

    public synchronized void stop(Duration timeout) {
        if (script == null || (!script.isAlive() && (java == null || !java.isAlive()))) {
            java = null;
            return;
        }
        Instant begin = Instant.now();
        ProcessHandle j = findJava().orElse(null);
        if (j != null) {
            j.destroy(); // SIGTERM: WildFly shuts down gracefully
        } else {
            script.destroy(); // SIGTERM: the script relays it to the JVM (or it never started one)
        }
        boolean gone = (j == null || waitGone(j, timeout))
                && waitGone(script.toHandle(), remaining(begin, timeout).plusSeconds(5));
        if (!gone) {
            log("WildFly did not stop within " + timeout.toSeconds() + " s after SIGTERM; killing it");
            killHard();
        } else {
            awaitPortsFree("after stopping WildFly");
            log("WildFly stopped in " + Duration.between(begin, Instant.now()).toMillis() + " ms");
        }
        java = null;
    }

    @Override
    public void close() {
        stop();
        removeShutdownHook();
    }

    @Override
    public String toString() {
        return "WildFly[" + settings.home + ", offset " + settings.portOffset + ", " + settings.config + "]";
    }

    // ------------------------------------------------------------------ internals

    private List<String> command() {
        List<String> cmd = new ArrayList<>();
        String setpriv = PostgresServer.ChildProcesses.findExecutable("setpriv");
        if (setpriv != null) {
            // SIGTERM to the script if the test JVM dies without running its shutdown hooks (e.g. SIGKILL)
            cmd.addAll(List.of(setpriv, "--pdeathsig", "TERM", "--"));
        }
        cmd.add("/bin/sh");
        cmd.add(settings.home.resolve("bin/standalone.sh").toString());
        cmd.addAll(List.of("-c", settings.config, "-b", "127.0.0.1", "-bmanagement", "127.0.0.1",
                "-Djboss.socket.binding.port-offset=" + settings.portOffset,
                "-Djboss.server.data.dir=" + settings.dataDir,
                "-Djboss.server.log.dir=" + settings.logDir,
                "-Djboss.server.temp.dir=" + settings.tempDir));
        if (artemisBase() != 61616) {
            cmd.add("-Dmailroom.artemis.port=" + artemisBase());
        }
        settings.systemProperties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        return cmd;
    }

    private void environment(Map<String, String> env) {
        env.keySet().removeIf(k -> k.startsWith("MAILROOM_"));
        env.remove("JBOSS_PIDFILE");
        env.remove("JBOSS_HOME");
        env.remove("JBOSS_BASE_DIR");
        env.remove("JBOSS_LOG_DIR");
        env.remove("JBOSS_CONFIG_DIR");
        env.remove("DEBUG");
        env.remove("GC_LOG");
        env.put("LAUNCH_JBOSS_IN_BACKGROUND", "1");
        String javaHome = env.get("JAVA_HOME");
        if (javaHome == null || !Files.isExecutable(Path.of(javaHome, "bin", "java"))) {
            env.put("JAVA_HOME", System.getProperty("java.home"));
        }
        // JAVA_OPTS replaces standalone.conf's defaults, so repeat the ones that matter
        env.put("JAVA_OPTS", settings.javaOpts
                + " -Djava.net.preferIPv4Stack=true -Djboss.modules.system.pkgs=org.jboss.byteman"
                + " -Djava.awt.headless=true");
        env.putAll(settings.environment);
    }

    private void awaitReady(Instant begin) {
        Instant deadline = begin.plus(settings.bootTimeout);
        HttpRequest request = HttpRequest.newBuilder(settings.readinessUrl).timeout(Duration.ofSeconds(5)).GET().build();
        String lastAnswer = "no answer yet";
        while (Instant.now().isBefore(deadline)) {
            if (!script.isAlive()) {
                throw new IllegalStateException("WildFly exited with code " + script.exitValue()
                        + " while booting (waiting for 200 from " + settings.readinessUrl + "); console log "
                        + consoleLog + ":\n" + PostgresServer.tail(consoleLog, 60));
            }
            java = findJava().orElse(null);
            try {
                HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200 && java != null) {
                    return;
                }
                lastAnswer = "HTTP " + r.statusCode() + ": " + abbreviate(r.body(), 300);
            } catch (IOException e) {
                lastAnswer = e.toString();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                killHard();
                throw new IllegalStateException("Interrupted while waiting for WildFly to boot", e);
            }
            sleep(POLL);
        }
        String tail = PostgresServer.tail(consoleLog, 60);
        killHard();
        throw new IllegalStateException("WildFly did not answer 200 on " + settings.readinessUrl + " within "
                + settings.bootTimeout.toSeconds() + " s (last: " + lastAnswer + "); it was killed. Console log "
                + consoleLog + ":\n" + tail);
    }

    /**
     * The server JVM: the descendant of the script running {@code jboss-modules.jar} (the script also runs
     * short-lived {@code java -version} probes while it starts, which must not be mistaken for the server).
     */
    private Optional<ProcessHandle> findJava() {
        if (java != null && java.isAlive()) {
            return Optional.of(java);
        }
        if (script == null) {
            return Optional.empty();
        }
        return script.descendants()
                .filter(ProcessHandle::isAlive)
                .filter(WildFlyServer::isServerJvm)
                .findFirst();
    }

    private static boolean isServerJvm(ProcessHandle h) {
        ProcessHandle.Info info = h.info();
        boolean java = info.command().map(c -> c.endsWith("/java") || c.equals("java")).orElse(false);
        if (!java) {
            return false;
        }
        Optional<String[]> args = info.arguments();
        if (args.isPresent()) {
            for (String arg : args.get()) {
                if (arg.endsWith("jboss-modules.jar") || arg.equals("org.jboss.as.standalone")) {
                    return true;
                }
            }
            return false;
        }
        // arguments unavailable: fall back to /proc
        try {
            return Files.readString(Path.of("/proc", Long.toString(h.pid()), "cmdline")).contains("jboss-modules.jar");
        } catch (IOException e) {
            return false;
        }
    }

    private void awaitPortsFree(String when) {
        Instant deadline = Instant.now().plus(PORT_FREE_TIMEOUT);
        List<Integer> busy = busyPorts();
        while (!busy.isEmpty() && Instant.now().isBefore(deadline)) {
            sleep(POLL);
            busy = busyPorts();
        }
        if (!busy.isEmpty()) {
            throw new IllegalStateException("Ports " + busy + " on 127.0.0.1 are still in use " + when + " (waited "
                    + PORT_FREE_TIMEOUT.toSeconds() + " s). Another server (a leftover from an earlier run?) is "
                    + "listening; find it with `ss -ltnp`. Console log " + consoleLog + ":\n"
                    + PostgresServer.tail(consoleLog, 20));
        }
    }

    private List<Integer> busyPorts() {
        // a port past 65535 cannot be bound: a large offset with a remote broker (no embedded acceptor)
        return List.of(httpPort(), managementPort(), artemisPort()).stream()
                .filter(port -> port <= 65535 && PostgresServer.isListening(port))
                .collect(Collectors.toList());
    }

    private void awaitGone(ProcessHandle h, Duration timeout, String what) {
        if (!waitGone(h, timeout)) {
            throw new IllegalStateException(what + " (pid " + h.pid() + ") still running after "
                    + timeout.toSeconds() + " s; console log " + consoleLog + ":\n" + PostgresServer.tail(consoleLog, 30));
        }
    }

    /** Waits until the process has exited (a zombie that nobody reaps counts as gone). */
    private static boolean waitGone(ProcessHandle h, Duration timeout) {
        try {
            h.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return isZombie(h.pid());
        } catch (java.util.concurrent.ExecutionException e) {
            return !h.isAlive();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !h.isAlive();
        }
    }

    private static boolean isZombie(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            int close = stat.lastIndexOf(')');
            return close > 0 && stat.length() > close + 2 && stat.charAt(close + 2) == 'Z';
        } catch (IOException e) {
            return true; // no such process
        }
    }

    private void stopAtJvmExit() {
        shutdownHook = null; // we are it; removeShutdownHook is not allowed now
        try {
            stop(Duration.ofSeconds(20));
        } catch (RuntimeException e) {
            log("Stopping " + this + " at JVM exit failed: " + e);
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

    private void appendConsole(String line) {
        try {
            Files.writeString(consoleLog, line + System.lineSeparator(), StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException ignored) {
            // best effort
        }
    }

    private static Duration remaining(Instant begin, Duration timeout) {
        Duration left = timeout.minus(Duration.between(begin, Instant.now()));
        return left.isNegative() ? Duration.ZERO : left;
    }

    private static String abbreviate(String s, int max) {
        if (s == null) {
            return "";
        }
        s = s.replaceAll("\\s+", " ");
        return s.length() <= max ? s : s.substring(0, max) + "...";
    }

    static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }

    static void log(String msg) {
        System.err.println("[it-support] " + msg);
    }

    // ------------------------------------------------------------------ builder

    public static final class Builder {
        private final Path home;
        private String config = "standalone-mailroom.xml";
        private int portOffset = 100;
        private Path dataDir;
        private Path logDir;
        private Path tempDir;
        private String contextRoot = "/mailroom";
        private URI readinessUrl;
        private Duration bootTimeout = DEFAULT_BOOT_TIMEOUT;
        private String javaOpts = "-Xms256m -Xmx768m";
        private boolean shutdownHook = true;
        private final Map<String, String> environment = new LinkedHashMap<>();
        private final Map<String, String> systemProperties = new LinkedHashMap<>();

        private Builder(Path home) {
            this.home = home.toAbsolutePath().normalize();
        }

        /** Server configuration file in {@code standalone/configuration} (default standalone-mailroom.xml). */
        public Builder config(String config) {
            this.config = Objects.requireNonNull(config);
            return this;
        }

        public Builder portOffset(int portOffset) {
            this.portOffset = portOffset;
            return this;
        }

        /** Sets data, log and temp dirs to {@code <dir>/data}, {@code <dir>/log}, {@code <dir>/tmp}. */
        public Builder baseDir(Path dir) {
            return dataDir(dir.resolve("data")).logDir(dir.resolve("log")).tempDir(dir.resolve("tmp"));
        }

        public Builder dataDir(Path dataDir) {
            this.dataDir = dataDir.toAbsolutePath().normalize();
            return this;
        }

        public Builder logDir(Path logDir) {
            this.logDir = logDir.toAbsolutePath().normalize();
            return this;
        }

        public Builder tempDir(Path tempDir) {
            this.tempDir = tempDir.toAbsolutePath().normalize();
            return this;
        }

        /** Context root used by {@link WildFlyServer#baseUrl()} (default {@code /mailroom}). */
        public Builder contextRoot(String contextRoot) {
            this.contextRoot = contextRoot.startsWith("/") || contextRoot.isEmpty() ? contextRoot : "/" + contextRoot;
            return this;
        }

        /** URL that must answer HTTP 200 for the server to count as started (default {@code http://127.0.0.1:<http>/}). */
        public Builder readinessUrl(String url) {
            this.readinessUrl = URI.create(url);
            return this;
        }

        public Builder bootTimeout(Duration bootTimeout) {
            this.bootTimeout = bootTimeout;
            return this;
        }

        /** JVM options of the server (default {@code -Xms256m -Xmx768m}). */
        public Builder javaOpts(String javaOpts) {
            this.javaOpts = javaOpts;
            return this;
        }

        public Builder environment(Map<String, String> env) {
            this.environment.putAll(env);
            return this;
        }

        public Builder env(String name, String value) {
            this.environment.put(name, value);
            return this;
        }

        public Builder systemProperties(Map<String, String> props) {
            props.forEach(this::systemProperty);
            return this;
        }

        public Builder systemProperty(String name, String value) {
            this.systemProperties.put(name, value);
            return this;
        }

        /** Whether to register a JVM shutdown hook that stops the server (default true). */
        public Builder shutdownHook(boolean shutdownHook) {
            this.shutdownHook = shutdownHook;
            return this;
        }

        /** Validates the settings without starting anything. */
        public WildFlyServer build() {
            Path script = home.resolve("bin/standalone.sh");
            if (!Files.isRegularFile(script)) {
                throw new IllegalStateException("No WildFly at " + home + " (" + script + " missing). "
                        + "Integration tests need the server unpacked and configured by `mvn package`.");
            }
            Path configFile = home.resolve("standalone/configuration").resolve(config);
            if (!Files.isRegularFile(configFile)) {
                throw new IllegalStateException("Server configuration " + configFile + " missing");
            }
            if (dataDir == null) {
                dataDir(home.resolve("standalone/data"));
            }
            if (logDir == null) {
                logDir(home.resolve("standalone/log"));
            }
            if (tempDir == null) {
                tempDir(home.resolve("standalone/tmp"));
            }
            if (readinessUrl == null) {
                readinessUrl = URI.create("http://127.0.0.1:" + (8080 + portOffset) + "/");
            }
            // standalone.sh word-splits and evals its options: keep them simple
            for (Path p : List.of(home, dataDir, logDir, tempDir)) {
                requireShellSafe(p.toString(), "path");
            }
            systemProperties.forEach((k, v) -> requireShellSafe(k + "=" + v, "system property"));
            requireShellSafe(config, "config");
            return new WildFlyServer(this);
        }

        /** Builds and starts (see {@link WildFlyServer#start()}). */
        public WildFlyServer start() {
            return build().start();
        }

        private static void requireShellSafe(String s, String what) {
            if (!s.matches("[A-Za-z0-9_./:,=@%+-]*")) {
                throw new IllegalArgumentException(what + " '" + s + "' contains characters standalone.sh cannot "
                        + "pass through (whitespace, quotes, $, ...)");
            }
        }
    }
}
