package dev.mailroom.it.support;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.mailroom.testsupport.SmtpTestServer;

/**
 * The integration-test environment of one failsafe JVM, started lazily and once by the first {@link #get()}:
 * Mailroom deployed on the WildFly that the build provisioned, plus what the profile needs.
 *
 * <p>System properties (set by failsafe, see pom.xml):
 * <ul>
 *   <li>{@code mailroom.it.profile}: {@code default} (the embedded default exactly as the README runs it: no
 *       {@code MAILROOM_*} environment at all, so sandbox provider and H2), {@code h2} (SMTP provider against a
 *       loopback {@link SmtpTestServer}, H2, {@link #H2_CONSUMERS} consumers on {@code mail.send}) or
 *       {@code postgres} (SMTP as for h2, database a real {@link PostgresServer}).</li>
 *   <li>{@code mailroom.it.server-home}: the configured WildFly ({@code standalone-mailroom.xml}, mailroom.war
 *       in {@code standalone/deployments}).</li>
 *   <li>{@code mailroom.it.port-offset} (default 100), {@code mailroom.it.work-dir} (default
 *       {@code <build dir>/it-work}), {@code mailroom.it.boot-timeout-seconds} (default 600: a quiet machine boots in ~30 s, a 2-core machine shared by several builds has taken over 240 s).</li>
 * </ul>
 * The server's data, log and temp dirs are {@code <work-dir>/<profile>/{data,log,tmp}}, wiped when the JVM first
 * starts the environment (and then kept across {@code server().killHard()} / {@code server().restart()}).
 * Everything is stopped by one JVM shutdown hook, the server first. If starting fails, every later
 * {@link #get()} in the JVM fails at once with the same cause instead of booting again.
 */
public final class ItEnvironment implements Mailroom {

    public static final String PROFILE_DEFAULT = "default";
    public static final String PROFILE_H2 = "h2";
    /**
     * {@code MAILROOM_CONSUMERS} of the h2 profile's server: per-key order is specified for 8 consumers, and its IT
     * and its kill -9 run there (docs/job-contract.md "An ordering key"); the other profiles keep 4, the default (http: 1).
     */
    public static final int H2_CONSUMERS = 8;
    public static final String PROFILE_POSTGRES = "postgres";
    /** HTTP API provider against a WireMock server in the test JVM, one consumer session. */
    public static final String PROFILE_HTTP = "http";
    /**
     * As h2, plus a provider chain: {@code mail.send} goes to {@link #PRIMARY_RELAY} (a second loopback
     * SMTP server, {@link #primaryRelay()}) and fails over to {@code smtp} ({@link #smtp()});
     * {@code mail.send.bulk} has {@code smtp} alone. Breakers: delay {@link #BREAKER_DELAY}, volume 4.
     */
    public static final String PROFILE_BREAKERS = "breakers";
    /**
     * The production topology on one node: a replicated Artemis pair ({@link ArtemisBroker}), PostgreSQL through
     * an XA datasource, SMTP as for h2, WildFly configured by configure.sh with {@code MAILROOM_BROKER_URL}
     * ({@code standalone-mailroom-remote.xml}).
     */
    public static final String PROFILE_REMOTE = "remote";
    /** The configuration file configure.sh writes for the remote profile. */
    public static final String REMOTE_CONFIG = "standalone-mailroom-remote.xml";
    public static final String PRIMARY_RELAY = "relay-a";
    public static final java.time.Duration BREAKER_DELAY = java.time.Duration.ofSeconds(3);
    /** A template that does not parse: jobs using it make the handler throw (the broker backstop). */
    public static final String BROKEN_TEMPLATE_ID = "it-broken";
    /** The Svix secret of the {@code generic} webhook profile (every profile but {@code default}). */
    public static final String WEBHOOK_SECRET = "whsec_aXQtd2ViaG9vay1zZWNyZXQtMDEyMzQ1Njc4OQ==";
    /** The webhook body limit of the IT servers, small so the oversized case costs little. */
    public static final int WEBHOOK_MAX_BYTES = 65536;

    public static final String HEALTH_PATH = "/api/v1/health";

    private static ItEnvironment instance;
    private static RuntimeException startFailure;

    private final String profile;
    private final Path workDir;
    private final Path profileDir;
    /** The SMTP provider's read timeout in the SMTP executions. */
    public static final Duration SMTP_READ_TIMEOUT = Duration.ofSeconds(4);

    private final SmtpTestServer smtp;
    private final PostgresServer postgres;
    private final WildFlyServer server;
    private final ApiClient api;
    private JmsClient jms;
    private WireMockServer http;
    private WireMockServer files;
    private AlertReceiver alerts;
    private SmtpTestServer primaryRelay;
    private ArtemisBroker.Pair artemis;

    /** The remote broker pair in profile {@code remote}; null elsewhere. */
    public ArtemisBroker.Pair artemis() {
        return artemis;
    }

    /** The primary relay of {@code mail.send}'s chain in profile {@code breakers}; null elsewhere. */
    public SmtpTestServer primaryRelay() {
        return primaryRelay;
    }

    /** The alert webhook receiver Mailroom posts to; null in profile {@code default}. */
    @Override
    public AlertReceiver alerts() {
        return alerts;
    }

    /**
     * The test's own file server that jobs' attachments by reference are fetched from: its {@link #FILES_PATH} is the
     * server's one allowed prefix. Null in profile {@code default}.
     */
    public WireMockServer files() {
        return files;
    }

    /** Where {@link #files()} serves attachments: {@code mailroom.attachments.allowed-prefixes} is this, under it. */
    public static final String FILES_PATH = "/files/";

    /** The API key the http profile's server sends as {@code Authorization: Bearer}. */
    public static final String HTTP_API_KEY = "it-api-key";

    private ItEnvironment(String profile, Path workDir, Path profileDir, SmtpTestServer smtp, PostgresServer postgres,
                          WildFlyServer server) {
        this.profile = profile;
        this.workDir = workDir;
        this.profileDir = profileDir;
        this.smtp = smtp;
        this.postgres = postgres;
        this.server = server;
        this.api = new ApiClient(server.baseUrl());
    }

    /** The environment of this JVM, started on first use. */
    public static synchronized ItEnvironment get() {
        if (instance != null) {
            return instance;
        }
        if (startFailure != null) {
            throw new IllegalStateException("The integration-test environment failed to start earlier in this JVM: "
                    + startFailure.getMessage(), startFailure);
        }
        try {
            instance = start();
            return instance;
        } catch (RuntimeException e) {
            startFailure = e;
            throw e;
        }
    }

    public String profile() {
        return profile;
    }

    public boolean isPostgres() {
        return PROFILE_POSTGRES.equals(profile) || PROFILE_REMOTE.equals(profile);
    }

    @Override
    public WildFlyServer server() {
        return server;
    }

    /** The SMTP server Mailroom sends to; null in profile {@code default}. */
    @Override
    public SmtpTestServer smtp() {
        return smtp;
    }

    /** The HTTP API Mailroom sends to; null unless profile {@code http}. */
    public WireMockServer http() {
        return http;
    }

    /** The database server; null unless profile {@code postgres}. */
    public PostgresServer postgres() {
        return postgres;
    }

    /** A shared JMS client on the server's Artemis port (reconnects by itself after a server restart). */
    @Override
    public synchronized JmsClient jms() {
        if (jms == null || jms.isClosed()) {
            jms = artemis != null
                    ? new JmsClient(artemis.brokerUrl(), ArtemisBroker.MAILROOM_USER, ArtemisBroker.MAILROOM_PASSWORD)
                    : JmsClient.forPort(server.artemisPort());
        }
        return jms;
    }

    @Override
    public ApiClient api() {
        return api;
    }

    public Path profileDir() {
        return profileDir;
    }

    public Path workDirectory() {
        return workDir;
    }

    @Override
    public String toString() {
        return "ItEnvironment[" + profile + ", " + server.baseUrl() + (smtp != null ? ", smtp :" + smtp.port() : "")
                + (postgres != null ? ", " + postgres : "") + "]";
    }

    // ------------------------------------------------------------------ configuration

    /**
     * {@code mailroom.it.work-dir}, or {@code <build dir>/it-work} next to the compiled test classes (so a build
     * with {@code -Dbuild.dir=...} stays inside its own directory), or {@code target/it-work}.
     */
    public static Path workDir() {
        String configured = System.getProperty("mailroom.it.work-dir");
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured).toAbsolutePath().normalize();
        }
        try {
            Path classes = Path.of(ItEnvironment.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (Files.isDirectory(classes) && classes.getParent() != null) {
                return classes.getParent().resolve("it-work");
            }
        } catch (URISyntaxException | RuntimeException ignored) {
            // fall through
        }
        return Path.of("target", "it-work").toAbsolutePath();
    }

    public static String configuredProfile() {
        String p = System.getProperty("mailroom.it.profile", PROFILE_DEFAULT).trim();
        if (!p.equals(PROFILE_DEFAULT) && !p.equals(PROFILE_H2) && !p.equals(PROFILE_POSTGRES) && !p.equals(PROFILE_HTTP)
                && !p.equals(PROFILE_BREAKERS) && !p.equals(PROFILE_REMOTE)) {
            throw new IllegalStateException("Unknown mailroom.it.profile '" + p
                    + "' (expected default, h2, postgres, http, breakers or remote)");
        }
        return p;
    }

    public static int configuredPortOffset() {
        return Integer.getInteger("mailroom.it.port-offset", 100);
    }

    // ------------------------------------------------------------------ start and stop

    private static ItEnvironment start() {
        Instant begin = Instant.now();
        String profile = configuredProfile();
        int offset = configuredPortOffset();
        String home = System.getProperty("mailroom.it.server-home");
        if (home == null || home.isBlank()) {
            throw new IllegalStateException("System property mailroom.it.server-home is not set: run the integration "
                    + "tests through Maven (mvn verify), which provisions the server and sets it");
        }
        Path serverHome = Path.of(home);
        Path war = serverHome.resolve("standalone/deployments/mailroom.war");
        if (!Files.exists(war)) {
            throw new IllegalStateException(war + " does not exist: the server at " + serverHome
                    + " is not provisioned (mvn package runs server-config/wildfly/configure.sh)");
        }
        ProducerWar.removeLeftovers(serverHome);
        Path workDir = workDir();
        Path profileDir = workDir.resolve(profile);
        try {
            PostgresServer.deleteTree(profileDir);
            Files.createDirectories(profileDir);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not prepare " + profileDir, e);
        }

        SmtpTestServer smtp = null;
        SmtpTestServer primaryRelay = null;
        WireMockServer http = null;
        WireMockServer files = null;
        AlertReceiver alerts = null;
        PostgresServer postgres = null;
        WildFlyServer server = null;
        ArtemisBroker.Pair artemis = null;
        try {
            Map<String, String> env = new LinkedHashMap<>();
            if (PROFILE_HTTP.equals(profile)) {
                http = new WireMockServer(WireMockConfiguration.options().bindAddress("127.0.0.1").dynamicPort()
                        .containerThreads(40));
                http.start();
                env.put("MAILROOM_PROVIDER", "http");
                env.put("MAILROOM_HTTP_PROFILE", "generic");
                env.put("MAILROOM_HTTP_BASE_URL", "http://127.0.0.1:" + http.port());
                env.put("MAILROOM_HTTP_API_KEY", HTTP_API_KEY);
                env.put("MAILROOM_HTTP_REQUEST_TIMEOUT_MS", "2000");
                // one consumer session: a job waiting for its retry must not hold up the others
                env.put("MAILROOM_CONSUMERS", "1");
            } else if (!PROFILE_DEFAULT.equals(profile)) {
                smtp = SmtpTestServer.start();
                env.putAll(ItSettings.smtp(smtp.port()));
            }
            if (PROFILE_H2.equals(profile)) {
                env.put("MAILROOM_CONSUMERS", Integer.toString(H2_CONSUMERS));
            }
            if (PROFILE_BREAKERS.equals(profile)) {
                primaryRelay = SmtpTestServer.start();
                env.put("MAILROOM_PROVIDERS_MAIL_SEND", PRIMARY_RELAY + ",smtp");
                env.put("MAILROOM_PROVIDER_RELAY_A_KIND", "smtp");
                env.put("MAILROOM_PROVIDER_RELAY_A_HOST", "127.0.0.1");
                env.put("MAILROOM_PROVIDER_RELAY_A_PORT", Integer.toString(primaryRelay.port()));
                env.put("MAILROOM_PROVIDER_RELAY_A_READ_TIMEOUT_MS", "2000");
                env.put("MAILROOM_BREAKER_DELAY", BREAKER_DELAY.toMillis() + "ms");
                env.put("MAILROOM_BREAKER_REQUEST_VOLUME", "4");
                env.put("MAILROOM_BREAKER_WAIT_SPREAD", "5s");
            }
            if (!PROFILE_DEFAULT.equals(profile)) {
                files = new WireMockServer(WireMockConfiguration.options().bindAddress("127.0.0.1").dynamicPort());
                files.start();
                // an IP literal: the prefix names the loopback address, so it may be fetched from
                env.put("MAILROOM_ATTACHMENTS_ALLOWED_PREFIXES", "http://127.0.0.1:" + files.port() + FILES_PATH);
                env.put("MAILROOM_ATTACHMENTS_TIMEOUT", "3s");
                alerts = AlertReceiver.start();
                env.putAll(ItSettings.operations(alerts.url(), profileDir));
            }
            String config = "standalone-mailroom.xml";
            java.util.concurrent.CompletableFuture<ArtemisBroker.Pair> pair = null;
            java.util.concurrent.CompletableFuture<Void> configured = null;
            if (PROFILE_REMOTE.equals(profile)) {
                // the pair, the remote configuration and PostgreSQL (below) start side by side: each takes a minute
                // or more on a busy 2-core machine
                pair = java.util.concurrent.CompletableFuture.supplyAsync(() -> ArtemisBroker.startPair(workDir, offset));
                configured = java.util.concurrent.CompletableFuture.runAsync(
                        () -> configureRemote(serverHome, ArtemisBroker.pairUrl(offset)));
                config = REMOTE_CONFIG;
                env.put("MAILROOM_BROKER_USER", ArtemisBroker.MAILROOM_USER);
                env.put("MAILROOM_BROKER_PASSWORD", ArtemisBroker.MAILROOM_PASSWORD);
            }
            if (PROFILE_POSTGRES.equals(profile) || PROFILE_REMOTE.equals(profile)) {
                try {
                    postgres = PostgresServer.start(workDir, false);
                } finally {
                    if (pair != null) {
                        artemis = pair.join();
                        configured.join();
                        env.put("MAILROOM_BROKER_CONSOLE_URLS", artemis.consoleUrls());
                    }
                }
                env.put("MAILROOM_DB_URL", postgres.jdbcUrl());
                env.put("MAILROOM_DB_USER", postgres.user());
                env.put("MAILROOM_DB_PASSWORD", postgres.password());
                env.put("MAILROOM_DB_DRIVER", "postgresql");
            }
            server = WildFlyServer.builder(serverHome)
                    .config(config)
                    .portOffset(offset)
                    .baseDir(profileDir)
                    .contextRoot("/mailroom")
                    .readinessUrl("http://127.0.0.1:" + (8080 + offset) + "/mailroom" + HEALTH_PATH)
                    .bootTimeout(Duration.ofSeconds(Long.getLong("mailroom.it.boot-timeout-seconds", 600)))
                    .environment(env)
                    // resolve in-doubt transactions left by a kill -9 within seconds, not the default 2 minutes
                    .systemProperty("RecoveryEnvironmentBean.periodicRecoveryPeriod", "10")
                    .systemProperty("RecoveryEnvironmentBean.recoveryBackoffPeriod", "2")
                    .shutdownHook(false)
                    .build();
            server.start();
            ItEnvironment environment = new ItEnvironment(profile, workDir, profileDir, smtp, postgres, server);
            environment.http = http;
            environment.files = files;
            environment.alerts = alerts;
            environment.primaryRelay = primaryRelay;
            environment.artemis = artemis;
            // one hook, so the order is right: server first, then what it uses
            // (killed JVMs: the server and postgres also get a parent-death signal)
            Runtime.getRuntime().addShutdownHook(new Thread(environment::shutdown, "it-environment-stop"));
            System.err.println("[it-support] " + environment + " ready in "
                    + Duration.between(begin, Instant.now()).toMillis() + " ms");
            return environment;
        } catch (RuntimeException | Error e) {
            stopQuietly(server, postgres, smtp);
            if (artemis != null) {
                artemis.close();
            }
            if (primaryRelay != null) {
                primaryRelay.close();
            }
            if (http != null) {
                http.stop();
            }
            if (files != null) {
                files.stop();
            }
            if (alerts != null) {
                alerts.close();
            }
            throw e;
        }
    }

    /**
     * Writes {@link #REMOTE_CONFIG} with server-config/wildfly/configure.sh and {@code MAILROOM_BROKER_URL}, the
     * way an operator switches a node to a remote broker; skipped when the file is newer than the embedded
     * configuration the build wrote and was made for the same URL (a configure run costs 10-100 s here).
     */
    public static void configureRemote(Path serverHome, String brokerUrl) {
        Path cfg = serverHome.resolve("standalone/configuration");
        Path remote = cfg.resolve(REMOTE_CONFIG);
        Path marker = cfg.resolve(REMOTE_CONFIG + ".url");
        try {
            if (Files.exists(remote) && Files.exists(marker) && Files.readString(marker).equals(brokerUrl)
                    && Files.getLastModifiedTime(remote).compareTo(
                            Files.getLastModifiedTime(cfg.resolve("standalone-mailroom.xml"))) > 0) {
                return;
            }
            Path scripts = ArtemisBroker.requiredPath("mailroom.it.wildfly-config", "server-config/wildfly");
            Path pgJar = ArtemisBroker.requiredPath("mailroom.it.postgresql-jar", "the JDBC driver jar");
            Path out = workDir().resolve("configure-remote.out");
            Files.createDirectories(out.getParent());
            ProcessBuilder pb = new ProcessBuilder("bash", scripts.resolve("configure.sh").toString(),
                    serverHome.toString(), pgJar.toString())
                    .redirectErrorStream(true).redirectOutput(out.toFile());
            pb.environment().keySet().removeIf(k -> k.startsWith("MAILROOM_"));
            pb.environment().put("MAILROOM_BROKER_URL", brokerUrl);
            pb.environment().put("MAILROOM_SERVER_CONFIG", REMOTE_CONFIG);
            pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
            Process p = pb.start();
            if (!p.waitFor(300, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException("configure.sh for the remote broker failed; output " + out + ":\n"
                        + PostgresServer.tail(out, 30));
            }
            Files.writeString(marker, brokerUrl);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not configure " + remote, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private void shutdown() {
        JmsClient client;
        synchronized (this) {
            client = jms;
        }
        if (client != null) {
            try {
                client.close();
            } catch (RuntimeException ignored) {
                // server already gone
            }
        }
        stopQuietly(server, postgres, smtp);
        if (artemis != null) {
            artemis.close();
        }
        if (primaryRelay != null) {
            try {
                primaryRelay.close();
            } catch (RuntimeException e) {
                System.err.println("[it-support] stopping the primary relay failed: " + e);
            }
        }
        if (http != null) {
            http.stop();
        }
        if (files != null) {
            files.stop();
        }
    }

    private static void stopQuietly(WildFlyServer server, PostgresServer postgres, SmtpTestServer smtp) {
        if (server != null) {
            try {
                server.stop(Duration.ofSeconds(20));
            } catch (RuntimeException e) {
                System.err.println("[it-support] stopping WildFly failed: " + e);
            }
        }
        if (postgres != null) {
            try {
                postgres.stop();
            } catch (RuntimeException e) {
                System.err.println("[it-support] stopping PostgreSQL failed: " + e);
            }
        }
        if (smtp != null) {
            try {
                smtp.close();
            } catch (Exception e) {
                System.err.println("[it-support] stopping the SMTP test server failed: " + e);
            }
        }
    }
}
