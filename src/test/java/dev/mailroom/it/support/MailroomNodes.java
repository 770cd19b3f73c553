package dev.mailroom.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * Two Mailroom nodes on the WildFly installation the build configured ({@code SeveralNodesIT}, {@code ChaosIT}):
 * {@code node-a} at the port offset, {@code node-b} 50 above it, each with its own {@code MAILROOM_NODE_ID} and its
 * own server base directory {@code <work>/<id>/} ({@code jboss.server.base.dir}): data, log and temp, a copy of the
 * installation's configuration directory and a deployments directory of its own holding a copy of the WAR.
 *
 * <p>Why nothing is shared: WildFly writes its configuration history into the configuration directory at every boot,
 * and its early boot log (before the logging subsystem starts) goes to the file named in that directory's
 * {@code logging.properties}, which WildFly rewrites with the absolute path of the last server that booted from it:
 * with one shared directory each node's first lines landed in the other node's (or an earlier execution's)
 * {@code server.log}; each copy's {@code logging.properties} names the node's own log from the start. And each
 * node's deployment scanner watches its deployments directory every 5 s and keeps its markers there: with one shared
 * directory a node booting rewrote {@code mailroom.war.deployed} under the running one, whose scanner then undeployed
 * and deployed Mailroom again (its deliveries in flight failed with {@code WFLYEJB0421 Invocation cannot proceed as
 * component is shutting down}, logged by the resource adapter as {@code AMQ154004 Failed to deliver message}, each
 * costing its job a delivery attempt). Separate, the two nodes also boot side by side.
 */
public final class MailroomNodes {

    public static final List<String> IDS = List.of("node-a", "node-b");
    /** How far apart the nodes' port offsets are. */
    public static final int OFFSET_STEP = 50;

    private final Map<String, WildFlyServer> servers = new LinkedHashMap<>();
    private final Map<String, ApiClient> apis = new LinkedHashMap<>();

    private MailroomNodes() {
    }

    public static Builder builder(Path work) {
        return new Builder(work);
    }

    /** The nodes by id, in order ({@code node-a}, {@code node-b}). */
    public Map<String, WildFlyServer> servers() {
        return servers;
    }

    /** An API client of each node, by id. */
    public Map<String, ApiClient> apis() {
        return apis;
    }

    public WildFlyServer server(String id) {
        return servers.get(id);
    }

    public ApiClient api(String id) {
        return apis.get(id);
    }

    /** The other node's id. */
    public String other(String id) {
        return IDS.get(0).equals(id) ? IDS.get(1) : IDS.get(0);
    }

    /** The first node that is running. */
    public String liveNode() {
        return servers.entrySet().stream().filter(e -> e.getValue().isRunning()).map(Map.Entry::getKey).findFirst()
                .orElseThrow(() -> new IllegalStateException("no node is running"));
    }

    /** Boots every node at once and returns when all answer (a failure of either is thrown). */
    public void startSideBySide() {
        List<CompletableFuture<WildFlyServer>> boots = new ArrayList<>();
        for (WildFlyServer s : servers.values()) {
            boots.add(CompletableFuture.supplyAsync(s::start));
        }
        try {
            CompletableFuture.allOf(boots.toArray(CompletableFuture[]::new)).join();
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    /** Stops every node (each gracefully within the timeout, else killed); reports failures without throwing. */
    public void stopAll(Duration timeout) {
        for (WildFlyServer s : servers.values()) {
            try {
                s.stop(timeout);
            } catch (RuntimeException e) {
                System.err.println("[it-support] stopping " + s + " failed: " + e);
            }
        }
    }

    public static final class Builder {
        private final Path work;
        private String config = "standalone-mailroom.xml";
        private int portOffset = ItEnvironment.configuredPortOffset();
        private final Map<String, String> environment = new LinkedHashMap<>();
        private final Map<String, String> systemProperties = new LinkedHashMap<>();
        private Duration bootTimeout = Duration.ofSeconds(Long.getLong("mailroom.it.boot-timeout-seconds", 600));

        private Builder(Path work) {
            this.work = work;
            // in-doubt transactions of a killed node are resolved within seconds, not the default 2 minutes
            systemProperties.put("RecoveryEnvironmentBean.periodicRecoveryPeriod", "10");
            systemProperties.put("RecoveryEnvironmentBean.recoveryBackoffPeriod", "2");
        }

        /** The server configuration file (default {@code standalone-mailroom.xml}). */
        public Builder config(String config) {
            this.config = config;
            return this;
        }

        /** {@code node-a}'s port offset; {@code node-b}'s is {@value #OFFSET_STEP} above it. */
        public Builder portOffset(int portOffset) {
            this.portOffset = portOffset;
            return this;
        }

        /** Environment of both nodes ({@code MAILROOM_NODE_ID} is set per node). */
        public Builder environment(Map<String, String> env) {
            environment.putAll(env);
            return this;
        }

        public Builder env(String name, String value) {
            environment.put(name, value);
            return this;
        }

        public Builder systemProperty(String name, String value) {
            systemProperties.put(name, value);
            return this;
        }

        public Builder bootTimeout(Duration bootTimeout) {
            this.bootTimeout = bootTimeout;
            return this;
        }

        /** Creates both nodes (their configuration directories copied now); starts nothing. */
        public MailroomNodes build() {
            String home = System.getProperty("mailroom.it.server-home");
            if (home == null || home.isBlank()) {
                throw new IllegalStateException("System property mailroom.it.server-home is not set: run the "
                        + "integration tests through Maven (mvn verify)");
            }
            MailroomNodes nodes = new MailroomNodes();
            for (int i = 0; i < IDS.size(); i++) {
                String id = IDS.get(i);
                int offset = portOffset + i * OFFSET_STEP;
                Path dir = work.resolve(id);
                Map<String, String> env = new LinkedHashMap<>(environment);
                env.put("MAILROOM_NODE_ID", id);
                WildFlyServer server = WildFlyServer.builder(Path.of(home))
                        .config(config)
                        .systemProperty("jboss.server.base.dir", ownServerBase(Path.of(home), dir).toString())
                        .systemProperties(systemProperties)
                        .portOffset(offset)
                        .baseDir(dir)
                        .contextRoot("/mailroom")
                        .readinessUrl("http://127.0.0.1:" + (8080 + offset) + "/mailroom" + ItEnvironment.HEALTH_PATH)
                        .bootTimeout(bootTimeout)
                        .environment(env)
                        .build();
                nodes.servers.put(id, server);
                nodes.apis.put(id, new ApiClient(server.baseUrl()));
            }
            return nodes;
        }

        /**
         * {@code <dir>} as a server base directory: {@code configuration}, a copy of the installation's whose
         * {@code logging.properties} writes the early boot log to {@code <dir>/log/server.log}, and
         * {@code deployments} with a copy of each deployment (not its markers).
         */
        public static Path ownServerBase(Path home, Path dir) {
            Path configuration = dir.resolve("configuration");
            PostgresServer.copyTree(home.resolve("standalone/configuration"), configuration);
            Path logging = configuration.resolve("logging.properties");
            try {
                if (Files.exists(logging)) {
                    String own = dir.resolve("log").resolve("server.log").toAbsolutePath().normalize().toString();
                    String fixed = Files.readString(logging).lines()
                            .map(l -> l.startsWith("handler.FILE.fileName=") ? "handler.FILE.fileName=" + own : l)
                            .collect(Collectors.joining("\n", "", "\n"));
                    Files.writeString(logging, fixed);
                }
                Path deployments = Files.createDirectories(dir.resolve("deployments"));
                try (var all = Files.list(home.resolve("standalone/deployments"))) {
                    for (Path d : all.filter(p -> p.toString().endsWith(".war") && Files.isRegularFile(p)).toList()) {
                        Files.copy(d, deployments.resolve(d.getFileName()), StandardCopyOption.REPLACE_EXISTING,
                                StandardCopyOption.COPY_ATTRIBUTES);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Could not prepare the server base directory " + dir, e);
            }
            return dir.toAbsolutePath().normalize();
        }
    }
}
