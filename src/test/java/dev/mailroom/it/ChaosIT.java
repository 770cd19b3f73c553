package dev.mailroom.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.ArtemisBroker;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.JmsClient;
import dev.mailroom.it.support.PostgresServer;
import dev.mailroom.it.support.WildFlyServer;
import dev.mailroom.testsupport.SmtpTestServer;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The chaos suite (issue 12, "Build" 5): the production shape started once — a replicated Artemis pair made by
 * server-config/artemis, PostgreSQL, a loopback SMTP relay, and two WildFly nodes configured by configure.sh with
 * {@code MAILROOM_BROKER_URL} against that pair and that database (node ids {@code node-a}, {@code node-b}) —
 * then the faults in sequence, each with a bounded load, counted at the SMTP server and in the database after
 * it ({@link ChaosLedger}: every job in exactly one finished state, 0 lost, 0 sent twice, every dead letter with
 * its full envelope). Its own failsafe execution ({@code it-chaos}); {@code bash chaos/run.sh} runs just that and
 * prints the table; the report is {@code <build dir>/chaos/report.json} and {@code report.txt}.
 *
 * <p>Sizes are the by default, and system properties (pom properties {@code chaos.*}) otherwise. The
 * poison flood runs beside the kill -9 run (its own queue, its own report line): the kills are bound by boot
 * times, the flood by the consumers, so together they cost the time of one. The broker scenario fails over to the
 * backup and back again, so the pair is whole after it as before.
 */
@Tag("chaos")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ChaosIT {

    static final String SEND = "mail.send";
    static final String BULK = "mail.send.bulk";
    static final int JOBS = Integer.getInteger("mailroom.chaos.jobs", 10_000);
    static final int KILLS = Integer.getInteger("mailroom.chaos.kills", 10);
    static final int POISON = Integer.getInteger("mailroom.chaos.poison", 10_000);
    static final int POISON_GOOD = Integer.getInteger("mailroom.chaos.poison-good", 1_000);
    static final int FUZZ = Integer.getInteger("mailroom.chaos.fuzz", 1_000);
    static final long SEED = Long.getLong("mailroom.chaos.seed", 20261201L);
    static final Duration DB_OUTAGE = Duration.ofSeconds(Integer.getInteger("mailroom.chaos.db-outage-seconds", 60));
    static final Duration RELAY_OUTAGE = Duration.ofSeconds(Integer.getInteger("mailroom.chaos.relay-outage-seconds", 300));
    static final int LOAD = Integer.getInteger("mailroom.chaos.load", 1_000);
    static final int REDRIVE = Integer.getInteger("mailroom.chaos.redrive", 200);
    static final Duration LEASE_TTL = Duration.ofSeconds(6);

    private static final Instant SUITE_START = Instant.now();
    private static PostgresServer postgres;
    private static SmtpTestServer smtp;
    private static ArtemisBroker.Pair artemis;
    private static final Map<String, WildFlyServer> NODES = new LinkedHashMap<>();
    private static final Map<String, ApiClient> APIS = new LinkedHashMap<>();
    private static ChaosLedger ledger;
    private static JmsClient producer;
    private static final ExecutorService BACKGROUND = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "chaos-background");
        t.setDaemon(true);
        return t;
    });

    /** The poison flood started beside the kill run; awaited and counted by its own test. */
    private static CompletableFuture<Void> flood;
    private static String floodPrefix;
    private static Instant floodStart;

    @BeforeAll
    static void startTheProductionShape() throws Exception {
        Path work = ItEnvironment.workDir().resolve("chaos");
        PostgresServer.deleteTree(work);
        Files.createDirectories(work);
        int offset = ItEnvironment.configuredPortOffset();
        // the pair's ports are 61617/61618 + its offset: the WildFly offset, as in it-remote (so the remote
        // configuration it-remote wrote is reused), unless that puts them past 65535 (a helper's offset 4000)
        int brokerOffset = Integer.getInteger("mailroom.chaos.broker-port-offset",
                61618 + offset <= 65535 ? offset : offset / 10);
        String home = System.getProperty("mailroom.it.server-home");
        // the pair, the remote configuration and PostgreSQL start side by side (a minute or more each here)
        CompletableFuture<ArtemisBroker.Pair> pair = CompletableFuture.supplyAsync(
                () -> ArtemisBroker.startPair(work, brokerOffset), BACKGROUND);
        CompletableFuture<Void> configured = CompletableFuture.runAsync(
                () -> ItEnvironment.configureRemote(Path.of(home), ArtemisBroker.pairUrl(brokerOffset)), BACKGROUND);
        smtp = SmtpTestServer.start();
        postgres = PostgresServer.start(work, false);
        artemis = pair.join();
        configured.join();
        ledger = new ChaosLedger(postgres, smtp);
        producer = artemis.producerClient();
        // side by side: each node boots from its own copy of the configuration directory (WildFly writes its
        // history there at every boot), so neither a boot nor a restart after a kill touches the other's
        List<WildFlyServer> nodes = List.of(node("node-a", offset, work, home), node("node-b", offset + 50, work, home));
        Instant booting = Instant.now();
        CompletableFuture.allOf(nodes.stream().map(n -> CompletableFuture.runAsync(n::start, BACKGROUND))
                .toArray(CompletableFuture[]::new)).join();
        System.err.printf("[chaos] production shape up after %.0f s (both nodes booted in %.0f s)%n",
                since(SUITE_START), since(booting));
    }

    private static WildFlyServer node(String id, int offset, Path work, String home) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("MAILROOM_NODE_ID", id);
        env.put("MAILROOM_BROKER_USER", ArtemisBroker.MAILROOM_USER);
        env.put("MAILROOM_BROKER_PASSWORD", ArtemisBroker.MAILROOM_PASSWORD);
        env.put("MAILROOM_BROKER_CONSOLE_URLS", artemis.consoleUrls());
        env.put("MAILROOM_DB_URL", postgres.jdbcUrl());
        env.put("MAILROOM_DB_USER", postgres.user());
        env.put("MAILROOM_DB_PASSWORD", postgres.password());
        env.put("MAILROOM_DB_DRIVER", "postgresql");
        env.put("MAILROOM_PROVIDER", "smtp");
        env.put("MAILROOM_SMTP_HOST", "127.0.0.1");
        env.put("MAILROOM_SMTP_PORT", Integer.toString(smtp.port()));
        env.put("MAILROOM_SMTP_READ_TIMEOUT_MS", Long.toString(ItEnvironment.SMTP_READ_TIMEOUT.toMillis()));
        // a relay outage closes the breaker again within seconds of the relay's return
        env.put("MAILROOM_BREAKER_DELAY", "3000ms");
        env.put("MAILROOM_LEASE_TTL", LEASE_TTL.toString());
        env.put("MAILROOM_LEASE_HEARTBEAT", "PT2S");
        env.put("MAILROOM_DEADLETTER_SWEEP_INTERVAL", "PT2S");
        env.put("MAILROOM_DEADLETTER_MONITOR_INTERVAL", "PT1S");
        env.put("MAILROOM_STOP_THE_LINE_PROBE_INTERVAL", "PT1S");
        env.put("MAILROOM_POLICY_DEFAULT_SOFT_BOUNCE_DELAYS", "1s,2s,3s");
        env.put("MAILROOM_POLICY_DEFAULT_INTERNAL_DELAYS", "1s");
        Path configuration = work.resolve(id).resolve("configuration");
        PostgresServer.copyTree(Path.of(home, "standalone", "configuration"), configuration);
        WildFlyServer server = WildFlyServer.builder(Path.of(home))
                .config(ItEnvironment.REMOTE_CONFIG)
                .systemProperty("jboss.server.config.dir", configuration.toString())
                .portOffset(offset)
                .baseDir(work.resolve(id))
                .contextRoot("/mailroom")
                .readinessUrl("http://127.0.0.1:" + (8080 + offset) + "/mailroom" + ItEnvironment.HEALTH_PATH)
                .bootTimeout(Duration.ofSeconds(Long.getLong("mailroom.it.boot-timeout-seconds", 600)))
                .environment(env)
                // in-doubt transactions of a killed node are resolved within seconds, not the default 2 minutes
                .systemProperty("RecoveryEnvironmentBean.periodicRecoveryPeriod", "10")
                .systemProperty("RecoveryEnvironmentBean.recoveryBackoffPeriod", "2")
                .build();
        NODES.put(id, server);
        APIS.put(id, new ApiClient(server.baseUrl()));
        return server;
    }

    @AfterAll
    static void reportAndStop() {
        double wall = Duration.between(SUITE_START, Instant.now()).toMillis() / 1000.0;
        if (ledger != null) {
            Path dir = ItEnvironment.workDir().getParent().resolve("chaos");
            ledger.write(dir, wall);
            System.out.println(ledger.table(wall));
            System.err.println(ledger.table(wall));
        }
        if (producer != null) {
            producer.close();
        }
        NODES.values().forEach(s -> {
            try {
                s.stop(Duration.ofSeconds(20));
            } catch (RuntimeException e) {
                System.err.println("[chaos] stopping " + s + " failed: " + e);
            }
        });
        if (artemis != null) {
            artemis.close();
        }
        if (postgres != null) {
            postgres.close();
        }
        if (smtp != null) {
            smtp.close();
        }
        BACKGROUND.shutdownNow();
    }

    private Instant scenarioStart;

    /** Each scenario's wall time is logged and goes into its report line ({@code wall_seconds}): the CI budget. */
    @BeforeEach
    void scenarioStarts() {
        scenarioStart = Instant.now();
        ledger.scenarioStarted();
    }

    @AfterEach
    void scenarioEnded(TestInfo test) {
        System.err.printf("[chaos] %s took %.0f s%n", test.getTestMethod().map(m -> m.getName()).orElse("?"),
                since(scenarioStart));
    }

    // ------------------------------------------------------------------ scenarios

    /**
     * 10,000 jobs over the two nodes; node A, then B, then A... killed with {@code kill -9} while they process,
     * each restarted at once. A node is killed when the other one is back and taking work, so one is always up.
     */
    @Test
    @Order(1)
    void killNineOfAWorkerNodeTenTimesDuringATenThousandJobRun() throws Exception {
        String prefix = Jobs.runPrefix("chaos-kill");
        List<String> ids = Jobs.ids(prefix, JOBS);
        producer.sendAll(SEND, Jobs.jobs(ids));
        startPoisonFlood();
        List<String> broken = new ArrayList<>();
        HeldByConsumers held = HeldByConsumers.sample(SEND);
        List<String> order = List.of("node-a", "node-b");
        CompletableFuture<WildFlyServer> restarting = CompletableFuture.completedFuture(null);
        Instant lastKill = Instant.now();
        int killsWhileProcessing = 0;
        for (int k = 0; k < KILLS; k++) {
            String victim = order.get(k % 2);
            // the other node must be up again (its restart after the previous kill) before this one dies
            restarting.get(Long.getLong("mailroom.it.boot-timeout-seconds", 600) + 60, java.util.concurrent.TimeUnit.SECONDS);
            // ... and the victim must be processing: mails arrive while it is up
            int before = smtp.receivedCount();
            boolean processing = ids.size() > ledger.mails(ids).values().stream().filter(n -> n > 0).count()
                    && awaitQuietly(Duration.ofSeconds(20), () -> smtp.receivedCount() >= before + 20);
            if (processing) {
                killsWhileProcessing++;
            }
            WildFlyServer node = NODES.get(victim);
            node.killHard();
            lastKill = Instant.now();
            System.err.printf("[chaos] kill -9 #%d of %s at %.0f s (%d mails so far, processing: %s)%n", k + 1, victim,
                    since(SUITE_START), smtp.receivedCount(), processing);
            restarting = CompletableFuture.supplyAsync(node::start, BACKGROUND);
        }
        restarting.get(Long.getLong("mailroom.it.boot-timeout-seconds", 600) + 60, java.util.concurrent.TimeUnit.SECONDS);
        awaitFinishedWhileProgressing(prefix, ids, Duration.ofMinutes(3), Duration.ofMinutes(60));
        double recovery = since(lastKill);
        held.stop();
        System.err.println("[chaos] " + held);
        if (held.maxExcess() > HeldByConsumers.SLACK) {
            // a node's consumers buffered jobs they had not started: a kill -9 spends a delivery attempt of each
            broken.add(held.toString());
        }
        awaitDrained();
        if (killsWhileProcessing < KILLS) {
            System.err.printf("[chaos] %d of %d kills came while mails were still arriving (the run ended before the rest)%n",
                    killsWhileProcessing, KILLS);
        }
        assertHeld(ledger.count("kill -9 x" + KILLS + " over 2 nodes", prefix, ids, recovery, broken));
    }

    /** 10,000 poison messages with 1,000 good jobs among them, on the bulk queue, started beside the kill run. */
    private static void startPoisonFlood() {
        floodPrefix = Jobs.runPrefix("chaos-poison");
        floodStart = Instant.now();
        flood = CompletableFuture.runAsync(() -> {
            try (JmsClient client = artemis.producerClient()) {
                int every = Math.max(1, POISON / Math.max(1, POISON_GOOD));
                List<String> batch = new ArrayList<>();
                int good = 0;
                for (int i = 0; i < POISON; i++) {
                    // valid JSON, a message id, no recipient: a schema violation, dead-lettered as poison
                    batch.add("{\"schema_version\":1,\"message_id\":\"" + floodPrefix + "p" + i
                            + "\",\"from\":\"a@example.com\",\"subject\":\"poison\",\"text\":\"no recipient\"}");
                    if (i % every == every - 1 && good < POISON_GOOD) {
                        batch.add(Jobs.job(floodPrefix + "g" + good++));
                    }
                    if (batch.size() >= 500) {
                        client.sendAll(BULK, batch);
                        batch.clear();
                    }
                }
                while (good < POISON_GOOD) {
                    batch.add(Jobs.job(floodPrefix + "g" + good++));
                }
                client.sendAll(BULK, batch);
            }
        }, BACKGROUND);
    }

    @Test
    @Order(2)
    void aFloodOfPoisonAmongGoodJobsIsDeadLetteredWhileTheGoodJobsKeepFlowing() throws Exception {
        assertThat(flood).as("the flood started with the kill run").isNotNull();
        flood.get(5, java.util.concurrent.TimeUnit.MINUTES);
        List<String> poison = Jobs.ids(floodPrefix + "p", POISON);
        List<String> good = Jobs.ids(floodPrefix + "g", POISON_GOOD);
        List<String> all = new ArrayList<>(poison);
        all.addAll(good);
        awaitFinishedWhileProgressing(floodPrefix, all, Duration.ofMinutes(3), Duration.ofMinutes(60));
        double recovery = since(floodStart);
        awaitDrained();
        List<String> broken = new ArrayList<>();
        Map<String, String> states = ledger.states(floodPrefix);
        long poisonDead = poison.stream().filter(id -> "dead_lettered".equals(states.get(id))).count();
        if (poisonDead != POISON) {
            broken.add("poison dead-lettered: " + poisonDead + " of " + POISON);
        }
        // the good jobs flowed during the flood: half of them were at the relay before the last poison was handled
        Set<String> goodMessageIds = new HashSet<>(good.stream().map(Jobs::smtpMessageId).toList());
        List<Instant> goodTimes = smtp.received().stream().filter(m -> goodMessageIds.contains(m.messageId()))
                .map(SmtpTestServer.ReceivedMail::at).sorted().toList();
        Instant lastPoison = lastDeadLetterAt(floodPrefix + "p");
        if (goodTimes.size() < POISON_GOOD || lastPoison == null
                || !goodTimes.get(POISON_GOOD / 2).isBefore(lastPoison)) {
            broken.add("good jobs did not flow during the flood (" + goodTimes.size() + " sent, median at "
                    + (goodTimes.isEmpty() ? null : goodTimes.get(goodTimes.size() / 2)) + ", last poison at "
                    + lastPoison + ")");
        }
        assertHeld(ledger.count("poison flood " + POISON + " + " + POISON_GOOD + " good", floodPrefix, all, recovery,
                broken));
    }

    /**
     * 1,000 malformed jobs from the seeded schema-driven {@link JobFuzzer}: every one dead-lettered with a reason
     * and its bytes, none mailed, no 5xx reading them back, no ERROR with a stack trace in either node's log.
     */
    @Test
    @Order(3)
    void malformedJobsFromASeededFuzzerAreAllDeadLetteredWithoutAServerError() throws Exception {
        String prefix = Jobs.runPrefix("chaos-fuzz");
        List<JobFuzzer.Case> cases = new JobFuzzer(SEED).cases(prefix, FUZZ);
        System.err.printf("[chaos] fuzz seed %d: %s%n", SEED, JobFuzzer.summary(cases));
        Map<String, Long> logOffsets = logOffsets();
        Instant start = Instant.now();
        Map<String, JobFuzzer.Case> bySha = new LinkedHashMap<>();
        List<String> texts = new ArrayList<>();
        for (JobFuzzer.Case c : cases) {
            bySha.put(MalformedJobsIT.sha256(c.body()), c);
            if (c.text()) {
                texts.add(new String(c.body(), StandardCharsets.UTF_8));
            } else {
                producer.sendBytes(SEND, c.body());
            }
        }
        producer.sendAll(SEND, texts);
        Map<String, ChaosLedger.DeadLetter> dead = Awaitility.await("every fuzzed job dead-lettered")
                .atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1))
                .until(() -> ledger.deadLettersBySha(bySha.keySet(), start.minusSeconds(5)), d -> d.size() == bySha.size());
        double recovery = since(start);
        awaitDrained();
        List<String> broken = new ArrayList<>();
        int withoutReason = 0;
        for (ChaosLedger.DeadLetter d : dead.values()) {
            if (!d.complete() || !"poison".equals(d.reason())) {
                withoutReason++;
            }
        }
        if (withoutReason > 0) {
            broken.add(withoutReason + " fuzzed dead letters without reason poison and a full envelope");
        }
        if (dead.size() != bySha.size()) {
            broken.add("distinct fuzz bodies dead-lettered: " + dead.size() + " of " + bySha.size());
        }
        // read back through the API as an operator would: no 5xx for any of them
        ApiClient api = APIS.get(liveNode());
        int serverErrors = 0;
        for (ChaosLedger.DeadLetter d : dead.values()) {
            HttpResponse<String> r = api.get("/api/v1/dead-letters/" + d.id() + "?reveal=true");
            HttpResponse<String> j = api.get("/api/v1/jobs/" + URLEncoder.encode(d.messageId(), StandardCharsets.UTF_8));
            if (r.statusCode() >= 500 || j.statusCode() >= 500) {
                serverErrors++;
                broken.add("5xx reading " + d.messageId() + ": " + r.statusCode() + "/" + j.statusCode());
            }
        }
        for (String page : List.of("/api/v1/dead-letters?queue=mail.send&reason=poison&limit=1000",
                "/api/v1/jobs?q=" + URLEncoder.encode(prefix, StandardCharsets.UTF_8))) {
            int status = api.get(page).statusCode();
            if (status >= 500) {
                serverErrors++;
                broken.add("5xx on " + page + ": " + status);
            }
        }
        List<String> errors = errorsWithStackTraces(logOffsets);
        errors.forEach(e -> broken.add("server.log: " + e));
        List<String> ids = cases.stream().map(JobFuzzer.Case::messageId).filter(java.util.Objects::nonNull).toList();
        ChaosLedger.Line line = ledger.count("fuzz " + FUZZ + " malformed (seed " + SEED + ")", prefix, ids, recovery,
                broken);
        // the line counts the jobs with a readable message id; the bodies without one are counted by their hash
        System.err.printf("[chaos] fuzz: %d bodies, %d dead-lettered by hash, %d with a message id, %d 5xx, %d ERRORs%n",
                bySha.size(), dead.size(), ids.size(), serverErrors, errors.size());
        assertThat(line.sent()).as("fuzzed jobs mailed").isZero();
        assertHeld(line);
    }

    /** PostgreSQL stopped for 60 s while 1,000 jobs are being sent; the line stops and goes on when it is back. */
    @Test
    @Order(4)
    void postgresStoppedForSixtySecondsUnderLoad() throws Exception {
        String prefix = Jobs.runPrefix("chaos-db");
        List<String> ids = Jobs.ids(prefix, LOAD);
        smtp.setDelayBeforeReply(Duration.ofMillis(20)); // the load is still going when the database goes
        Instant back;
        try {
            loadUnderWay(ids);
            postgres.stopForOutage();
            Instant down = Instant.now();
            try {
                long left = DB_OUTAGE.minus(Duration.between(down, Instant.now())).toMillis();
                Thread.sleep(Math.max(0, left)); // the outage lasts as long as the scenario says
            } finally {
                postgres.startAgain();
                back = Instant.now();
            }
        } finally {
            smtp.setDelayBeforeReply(Duration.ZERO);
        }
        awaitFinished(prefix, ids, Duration.ofMinutes(5));
        double recovery = since(back);
        awaitDrained();
        assertHeld(ledger.count("postgresql down " + DB_OUTAGE.toSeconds() + " s", prefix, ids, recovery, List.of()));
    }

    /** The relay stops listening for 5 minutes while 1,000 jobs are being sent; nothing dead-letters, all go after. */
    @Test
    @Order(5)
    void theRelayStoppedForFiveMinutesUnderLoad() throws Exception {
        String prefix = Jobs.runPrefix("chaos-relay");
        List<String> ids = Jobs.ids(prefix, LOAD);
        smtp.setDelayBeforeReply(Duration.ofMillis(20));
        Instant back;
        int abandonedBefore = smtp.abandonedCount();
        try {
            loadUnderWay(ids);
            int port = smtp.stopListening();
            Instant down = Instant.now();
            try {
                Thread.sleep(Math.max(0, RELAY_OUTAGE.minus(Duration.between(down, Instant.now())).toMillis()));
            } finally {
                smtp.startListening(port);
                back = Instant.now();
            }
        } finally {
            smtp.setDelayBeforeReply(Duration.ZERO);
        }
        awaitFinished(prefix, ids, Duration.ofMinutes(5));
        double recovery = since(back);
        awaitDrained();
        System.err.printf("[chaos] relay: %d DATA transfers abandoned by the relay's stop%n",
                smtp.abandonedCount() - abandonedBefore);
        List<String> broken = new ArrayList<>();
        long dead = ledger.states(prefix).values().stream().filter("dead_lettered"::equals).count();
        if (dead > 0) {
            broken.add(dead + " jobs dead-lettered by a relay outage (a systemic failure pauses, it never dead-letters)");
        }
        assertHeld(ledger.count("relay down " + RELAY_OUTAGE.toSeconds() + " s", prefix, ids, recovery, broken));
    }

    /**
     * 200 jobs dead-lettered (the relay refused them by policy), redriven by a run on one node that is killed with
     * {@code kill -9} midway; the other node takes the run over when the lease runs out and finishes it.
     */
    @Test
    @Order(6)
    void aRedriveRunKilledMidRunIsResumedOnTheOtherNode() throws Exception {
        String prefix = Jobs.runPrefix("chaos-redrive");
        List<String> ids = Jobs.ids(prefix, REDRIVE);
        smtp.setOutage(550, "5.7.1 message refused by policy");
        Instant start = Instant.now();
        try {
            // a recipient of their own: a refusal read as a bad recipient would suppress it for the later scenarios
            producer.sendAll(BULK, ids.stream().map(id -> Jobs.jobTo(id, List.of("redrive@example.com"))).toList());
            awaitFinished(prefix, ids, Duration.ofMinutes(3));
        } finally {
            smtp.setOutage(null, null);
        }
        List<Long> deadLetterIds = new ArrayList<>();
        ledger.deadLetters(prefix).forEach(d -> deadLetterIds.add(d.id()));
        assertThat(deadLetterIds).as("dead letters to redrive").hasSize(REDRIVE);

        String runner = liveNode();
        String other = runner.equals("node-a") ? "node-b" : "node-a";
        ApiClient api = APIS.get(runner);
        ObjectNode body = api.mapper().createObjectNode();
        RedriveScenario.ids(body.putObject("filter"), deadLetterIds);
        body.put("skip_sample", true);
        body.put("rate_per_second", 20.0);
        body.put("reason", "chaos: the relay's policy was fixed");
        String id = api.postJson("/api/v1/redrives", body.toString(), 201).path("id").asText();
        api.postJson("/api/v1/redrives/" + id + "/run", "", 202);
        Awaitility.await("a fifth of the run published").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
                .until(() -> published(api.getJson("/api/v1/redrives/" + id)) >= REDRIVE / 5);
        String ranOn = redriveNode(id);
        WildFlyServer victim = NODES.get(ranOn);
        victim.killHard();
        Instant killed = Instant.now();
        System.err.printf("[chaos] redrive %s killed on %s with %d published%n", id, ranOn,
                published(APIS.get(other).getJson("/api/v1/redrives/" + id)));
        ApiClient survivor = APIS.get(ranOn.equals("node-a") ? "node-b" : "node-a");
        JsonNode record = survivor.awaitJson("/api/v1/redrives/" + id,
                RedriveScenario.status("completed", "stopped").and(RedriveScenario.allOutcomes("sent", "unknown")),
                Duration.ofMinutes(3));
        double recovery = since(killed);
        awaitFinished(prefix, ids, Duration.ofMinutes(2));
        awaitDrained();
        List<String> broken = new ArrayList<>();
        if (!"completed".equals(record.path("status").asText())) {
            broken.add("redrive " + id + " ended " + record.path("status").asText());
        }
        if (!redriveNode(id).equals(ranOn.equals("node-a") ? "node-b" : "node-a")) {
            broken.add("redrive " + id + " was not finished by the other node (" + redriveNode(id) + ")");
        }
        ChaosLedger.Line line = ledger.count("redrive killed mid-run, resumed", prefix, ids, recovery, broken);
        // the killed node comes back while the next scenario runs (its boot meets the broker's failover)
        CompletableFuture.runAsync(victim::start, BACKGROUND);
        assertHeld(line);
        assertThat(line.sent()).as("redriven jobs mailed").isEqualTo(REDRIVE);
    }

    /**
     * The primary broker killed with {@code kill -9} while 1,000 jobs are being sent: both nodes (and the producer)
     * fail over to the backup, which takes over from its replica; then, with the second half of the jobs under way,
     * the primary is started again on its own instance, copies the journal back from the backup and takes over
     * again (fail-back), the backup going back to being its replica. Every job is counted as in every scenario;
     * mails after the fail-back went through the primary (the backup is passive again), whose send queue shows the
     * nodes' consumers. The pair is whole again afterwards, so the scenarios after this one run on it as before.
     */
    @Test
    @Order(7)
    void thePrimaryBrokerKilledUnderLoadFailsOverToTheBackupAndBack() throws Exception {
        String prefix = Jobs.runPrefix("chaos-broker");
        List<String> ids = Jobs.ids(prefix, LOAD);
        ArtemisBroker primary = artemis.primary();
        ArtemisBroker backup = artemis.backup();
        List<String> broken = new ArrayList<>();
        smtp.setDelayBeforeReply(Duration.ofMillis(20));
        Instant killed;
        Instant failedBack;
        int mailsAtFailBack;
        long backupLogAtRestart;
        try {
            loadUnderWay(ids.subList(0, LOAD / 2));
            long backupLog = backup.logLength();
            primary.killHard();
            killed = Instant.now();
            backup.awaitLogAfter(backupLog, Duration.ofSeconds(180), "AMQ221007", "AMQ221010"); // now active
            System.err.printf("[chaos] backup active %d ms after the primary's kill -9%n",
                    Duration.between(killed, Instant.now()).toMillis());
            // the backup serves: mails keep arriving after its takeover
            int atTakeover = smtp.receivedCount();
            if (!awaitQuietly(Duration.ofSeconds(120), () -> smtp.receivedCount() >= atTakeover + LOAD / 20)) {
                broken.add("no mail for 120 s after the backup took over");
            }
            // the second half goes through the backup and is under way while the primary comes back
            producer.sendAll(SEND, Jobs.jobs(ids.subList(LOAD / 2, LOAD)));
            long primaryLog = primary.logLength();
            backupLogAtRestart = backup.logLength();
            Instant restarted = Instant.now();
            primary.restart();
            primary.awaitLogAfter(primaryLog, Duration.ofSeconds(300), "AMQ221007", "AMQ221010"); // active again
            failedBack = Instant.now();
            mailsAtFailBack = smtp.receivedCount();
            long unfinished = LOAD - ledger.finished(prefix, ids);
            System.err.printf("[chaos] primary active again (fail-back) %.1f s after its restart, %d jobs of the run"
                    + " not yet finished%n", Duration.between(restarted, failedBack).toMillis() / 1000.0, unfinished);
            if (unfinished == 0) {
                System.err.println("[chaos] the fail-back came after the last job finished: not under load this time");
            }
            awaitFinished(prefix, ids, Duration.ofMinutes(5));
        } finally {
            smtp.setDelayBeforeReply(Duration.ZERO);
        }
        double recovery = since(killed);
        awaitDrained();
        try {
            backup.awaitLogAfter(backupLogAtRestart, Duration.ofSeconds(300), "AMQ221024"); // replica synchronised again
        } catch (IllegalStateException e) {
            broken.add("the backup did not become the primary's synchronised replica again within 300 s");
        }
        int consumers = primary.jolokia(Map.of("type", "read", "mbean", primary.queueMBean(SEND),
                "attribute", "ConsumerCount"), ArtemisBroker.ADMIN_USER, ArtemisBroker.ADMIN_PASSWORD).asInt();
        System.err.printf("[chaos] after the fail-back: %d mails since, %d consumers of %s on the primary%n",
                smtp.receivedCount() - mailsAtFailBack, consumers, SEND);
        if (consumers == 0) {
            broken.add("no consumer of " + SEND + " on the primary after the fail-back: the nodes did not come back");
        }
        long unknown = ledger.states(prefix).values().stream().filter("unknown"::equals).count();
        if (unknown > 0) {
            // the provider's acceptance is committed on its own: a failover after it is not an ambiguous send
            broken.add(unknown + " jobs left unknown (possibly sent) by the failover or the fail-back");
        }
        assertHeld(ledger.count("primary broker killed, failover and back", prefix, ids, recovery, broken));
    }

    // ------------------------------------------------------------------ helpers

    /**
     * Samples, every second while a scenario runs, how many messages of a send queue the broker counts as delivered
     * to a consumer and not yet acknowledged ({@code DeliveringCount}) beside how many consumers it has. Every such
     * message held by a node that dies has its delivery count left raised by the broker (a failed client may have
     * seen it), so it must be a message in {@code onMessage} (or in a transaction still completing), never one
     * buffered ahead: at most a few more than the consumers. With the client's default consumer window (1 MiB) a
     * node held hundreds of jobs per session.
     */
    static final class HeldByConsumers {
        /** Deliveries beyond one per consumer that are not a buffer: transactions of the previous message finishing. */
        static final int SLACK = 8;
        private final String queue;
        private volatile boolean running = true;
        private volatile int maxDelivering;
        private volatile int consumersAtMax;
        private volatile int maxExcess;
        private volatile int samples;

        private HeldByConsumers(String queue) {
            this.queue = queue;
        }

        static HeldByConsumers sample(String queue) {
            HeldByConsumers h = new HeldByConsumers(queue);
            BACKGROUND.execute(h::run);
            return h;
        }

        private void run() {
            while (running) {
                try {
                    ArtemisBroker broker = artemis.active();
                    JsonNode v = broker.jolokia(Map.of("type", "read", "mbean", broker.queueMBean(queue),
                                    "attribute", List.of("DeliveringCount", "ConsumerCount")),
                            ArtemisBroker.ADMIN_USER, ArtemisBroker.ADMIN_PASSWORD);
                    int delivering = v.path("DeliveringCount").asInt();
                    int consumers = v.path("ConsumerCount").asInt();
                    samples++;
                    if (delivering > maxDelivering) {
                        maxDelivering = delivering;
                        consumersAtMax = consumers;
                    }
                    maxExcess = Math.max(maxExcess, delivering - consumers);
                } catch (RuntimeException e) {
                    // the broker is failing over or busy: the next sample
                }
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        void stop() {
            running = false;
        }

        int maxExcess() {
            return maxExcess;
        }

        @Override
        public String toString() {
            return queue + ": at most " + maxDelivering + " deliveries held by " + consumersAtMax
                    + " consumers at once (most beyond one per consumer: " + maxExcess + ", allowed " + SLACK + "; "
                    + samples + " samples of the broker's DeliveringCount)";
        }
    }

    private static void assertHeld(ChaosLedger.Line line) {
        assertThat(line.lost()).as(line.scenario() + ": lost").isZero();
        assertThat(line.duplicates()).as(line.scenario() + ": duplicates").isZero();
        assertThat(line.broken()).as(line.scenario() + ": broken invariants").isEmpty();
    }

    /** Sends the scenario's jobs and returns once a tenth of them reached the relay: the fault then comes under load. */
    private static void loadUnderWay(List<String> ids) {
        int before = smtp.receivedCount();
        producer.sendAll(SEND, Jobs.jobs(ids));
        awaitQuietly(Duration.ofSeconds(120), () -> smtp.receivedCount() >= before + ids.size() / 10);
    }

    /**
     * Waits (bounded) until every job of the run is in a finished state. When the bound passes the scenario is
     * still counted: its report line then names the jobs that did not finish.
     */
    private static void awaitFinished(String prefix, List<String> ids, Duration timeout) {
        try {
            Awaitility.await(ids.size() + " jobs of " + prefix + " finished").atMost(timeout)
                    .pollInterval(Duration.ofSeconds(1)).ignoreExceptions() // the database may be coming back
                    .until(() -> ledger.finished(prefix, ids) == ids.size());
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            System.err.printf("[chaos] %s: not every job finished within %s%n", prefix, timeout);
        }
    }

    /**
     * Waits until every job of the run is in a finished state for as long as the run keeps finishing jobs: it gives
     * up when none finished for {@code stall} (a stuck run) or at {@code cap}. For the big runs (the kill run, the
     * flood), whose length is set by how fast the consumers go on this machine under load, not by the fault. When
     * it gives up the scenario is still counted: its report line names the jobs that did not finish.
     */
    private static void awaitFinishedWhileProgressing(String prefix, List<String> ids, Duration stall, Duration cap) {
        int[] best = {-1};
        Instant[] progressAt = {Instant.now()};
        try {
            Awaitility.await(ids.size() + " jobs of " + prefix + " finished while they progress").atMost(cap)
                    .pollInterval(Duration.ofSeconds(2)).ignoreExceptions() // the database may be coming back
                    .until(() -> {
                        int finished = ledger.finished(prefix, ids);
                        if (finished > best[0]) {
                            best[0] = finished;
                            progressAt[0] = Instant.now();
                        }
                        return finished == ids.size() || Duration.between(progressAt[0], Instant.now()).compareTo(stall) > 0;
                    });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            System.err.printf("[chaos] %s: not every job finished within %s%n", prefix, cap);
        }
        if (best[0] < ids.size()) {
            System.err.printf("[chaos] %s: %d of %d finished; none more for %s%n", prefix, best[0], ids.size(), stall);
        }
    }

    /** Waits (bounded) until no send queue holds anything, as the live nodes see the broker. */
    private static void awaitDrained() {
        try {
            Jobs.awaitSendQueuesDrained(APIS.get(liveNode()), Duration.ofMinutes(1));
        } catch (org.awaitility.core.ConditionTimeoutException | AssertionError e) {
            // best effort before the count (the count is the check): right after a fail-back the primary's console
            // may not answer yet, and GET /api/v1/queues says 503 broker_unavailable
            System.err.println("[chaos] send queues not seen drained within 1 min: " + e.getMessage());
        }
    }

    private static boolean awaitQuietly(Duration timeout, java.util.concurrent.Callable<Boolean> condition) {
        ConditionFactory c = Awaitility.await().atMost(timeout).pollInterval(Duration.ofMillis(100));
        try {
            c.until(condition);
            return true;
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            return false;
        }
    }

    private static String liveNode() {
        return NODES.entrySet().stream().filter(e -> e.getValue().isRunning()).map(Map.Entry::getKey).findFirst()
                .orElseThrow(() -> new IllegalStateException("no node is running"));
    }

    private static double since(Instant t) {
        return Duration.between(t, Instant.now()).toMillis() / 1000.0;
    }

    private static long published(JsonNode record) {
        return RedriveScenario.entries(record, null).stream().filter(e -> !e.path("published_at").isNull()).count();
    }

    private static String redriveNode(String id) throws Exception {
        try (Connection c = postgres.connect();
             PreparedStatement s = c.prepareStatement("select node from redrive where id = ?")) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
                assertThat(r.next()).isTrue();
                return r.getString(1);
            }
        }
    }

    private static Instant lastDeadLetterAt(String prefix) throws Exception {
        try (Connection c = postgres.connect();
             PreparedStatement s = c.prepareStatement("select max(failed_at) from dead_letter where message_id like ?")) {
            s.setString(1, prefix + "%");
            try (ResultSet r = s.executeQuery()) {
                r.next();
                java.sql.Timestamp t = r.getTimestamp(1);
                return t == null ? null : t.toInstant();
            }
        }
    }

    /** Where each node's server.log ends now. */
    private static Map<String, Long> logOffsets() throws IOException {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Map.Entry<String, WildFlyServer> e : NODES.entrySet()) {
            Path log = e.getValue().serverLog();
            m.put(e.getKey(), Files.exists(log) ? Files.size(log) : 0L);
        }
        return m;
    }

    /** ERROR lines followed by a stack trace, written to either node's server.log since the offsets. */
    private static List<String> errorsWithStackTraces(Map<String, Long> offsets) throws IOException {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, WildFlyServer> e : NODES.entrySet()) {
            Path log = e.getValue().serverLog();
            if (!Files.exists(log)) {
                continue;
            }
            byte[] all = Files.readAllBytes(log);
            int from = (int) Math.min(all.length, offsets.getOrDefault(e.getKey(), 0L));
            String[] lines = new String(all, from, all.length - from, StandardCharsets.UTF_8).split("\n");
            for (int i = 0; i < lines.length; i++) {
                if (lines[i].contains(" ERROR ") && i + 1 < lines.length
                        && (lines[i + 1].startsWith("\tat ") || lines[i + 1].matches("^[\\w.$]+(Exception|Error).*"))) {
                    out.add(e.getKey() + ": " + lines[i].substring(0, Math.min(300, lines[i].length())));
                }
            }
        }
        return out;
    }
}
