package dev.mailroom.it.topology;

import dev.mailroom.it.support.ArtemisBroker;
import dev.mailroom.it.support.ChaosLedger;
import dev.mailroom.it.support.Jobs;
import dev.mailroom.it.support.SmallDisk;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;

/**
 * ChaosIT's full disk, on its topology: the primary broker's data directory (journal, bindings, paging, large
 * messages) is a small filesystem of its own ({@link SmallDisk}, {@link #MEGABYTES} MiB, made at set-up), which a
 * filler file brings to {@link #FILL} of its size under {@code chaos.load} jobs, above the broker's
 * {@code max-disk-usage} (90%), for {@code chaos.broker-outage-seconds}: once the broker has been seen blocking
 * producers, the filler fills it to the brim and keeps it there (taking whatever the broker frees) for the rest of the
 * outage, so the broker's own writes (a journal file it creates, a page, a large message) meet ENOSPC; then the filler
 * goes. Artemis blocks every producer without a bound above its limit (its address-full policy PAGE: a full disk
 * blocks, it neither drops nor refuses): the producer beside the load ({@link ChaosProducer}, Mailroom's client with a
 * send timeout) must be refused within its bound ("not accepted, try later"), never told accepted for a job that is
 * lost, and be let through when space returns; the jobs it was refused, sent again with their ids, go once. The nodes
 * go on consuming; nothing may be dead-lettered or lost; the fault must be seen by an operator: the broker logging that
 * it blocks producers (AMQ222210) and a node's health check naming the broker's full disk. Should the primary stop
 * itself on an I/O error at the brim (its backup then takes over), the harness starts it again once the space is back,
 * as an orchestrator would, and it must fail back as after a kill: active again, the backup its synchronised replica,
 * the nodes' consumers on it. Where the harness can make no small filesystem the scenario is skipped, saying why.
 */
final class FullDiskScenario {

    static final int MEGABYTES = 256;
    static final double FILL = 0.95;
    /** How often the filler takes back what the broker freed while the disk is at the brim. */
    private static final Duration KEEP_FULL = Duration.ofMillis(100);

    private FullDiskScenario() {
    }

    static ChaosLedger.Line run() throws Exception {
        ArtemisBroker primary = ChaosIT.artemis().primary();
        Assumptions.assumeTrue(primary.dataDisk().isPresent(),
                () -> "the broker's data has no small filesystem: " + primary.dataDiskUnavailable());
        SmallDisk disk = primary.dataDisk().orElseThrow();
        long brokerLog = primary.logLength();
        Map<String, Long> logs = ChaosIT.logOffsets();
        List<String> health = new ArrayList<>();
        ChaosProducer producer = new ChaosProducer(Jobs.runPrefix("chaos-fulldisk-producer"), "the broker's full disk");
        Brim brim = new Brim(disk, primary, brokerLog);
        ChaosLedger.Line line = ChaosIT.outageWithoutDeadLetters("chaos-fulldisk", "broker disk full "
                        + BrokerHangScenario.OUTAGE.toSeconds() + " s, then to the brim", BrokerHangScenario.OUTAGE, () -> {
                    fill(disk, FILL, "the broker's data filesystem");
                    producer.start();
                }, () -> {
                    brim.end();
                    producer.stop();
                }, "the broker blocking producers for its disk (AMQ222210) and a node's health naming that disk",
                () -> brim.seen(!primary.logAfter(brokerLog, "AMQ222210").isEmpty() && healthNamesTheDisk(health)),
                false);
        System.err.printf("[chaos] full disk: %s; a node's health said: %s; the broker: %s | %s | %s%n", disk,
                health.isEmpty() ? "nothing" : health.get(0), primary.logAfter(brokerLog, "AMQ222210"),
                primary.logAfter(brokerLog, "AMQ222212"), primary.logAfter(brokerLog, "AMQ222211"));
        ChaosIT.logLines(logs, "AMQ212054").stream().limit(2).forEach(l -> System.err.println("[chaos] " + l));
        List<String> broken = new ArrayList<>();
        brim.report(broken);
        ChaosLedger.Line produced = producer.count();
        ChaosIT.assertHeld(produced);
        org.assertj.core.api.Assertions.assertThat(broken).as("the brim and the primary after it").isEmpty();
        org.assertj.core.api.Assertions.assertThat(producer.notAccepted()).as("attempts refused within the producer's"
                + " send timeout while the disk was full").isPositive();
        org.assertj.core.api.Assertions.assertThat(produced.jobs()).as("jobs accepted once space returned").isPositive();
        return line;
    }

    /**
     * The outage's second phase: the disk to the brim once the first (above the limit) has been seen, kept full until
     * the outage ends; then the filler goes, and a primary that stopped itself meanwhile is started again.
     */
    private static final class Brim {
        private final SmallDisk disk;
        private final ArtemisBroker primary;
        private final long brokerLog;
        private final long backupLog;
        private SmallDisk.Brim full;
        private Instant reached;
        private Instant restarted;
        private long primaryLogAtRestart;
        private long backupLogAtRestart;

        Brim(SmallDisk disk, ArtemisBroker primary, long brokerLog) {
            this.disk = disk;
            this.primary = primary;
            this.brokerLog = brokerLog;
            this.backupLog = ChaosIT.artemis().backup().logLength();
        }

        /** Passes the first phase's verdict on; once it holds, fills to the brim (once). */
        synchronized boolean seen(boolean firstPhase) throws IOException {
            if (firstPhase && full == null) {
                full = disk.keepFull(KEEP_FULL);
                reached = Instant.now();
                System.err.printf("[chaos] the broker's data filesystem filled to the brim: %.1f%% used%n",
                        disk.usage() * 100);
            }
            return firstPhase || full != null;
        }

        /** The outage's end: the filler goes; a primary that stopped itself is started again, as an orchestrator does. */
        synchronized void end() {
            if (full != null) {
                full.close();
            }
            free(disk, "the broker's data filesystem");
            if (full != null && stoppedItself()) {
                primary.killHard(); // what is left of it (a JVM whose server stopped), and its port refusing
                backupLogAtRestart = ChaosIT.artemis().backup().logLength();
                primaryLogAtRestart = primary.logLength();
                restarted = Instant.now();
                primary.restart();
            }
        }

        private boolean stoppedItself() {
            return !primary.isAlive() || !primary.logAfter(brokerLog, "AMQ221002").isEmpty();
        }

        /** What the broker did at the brim; a primary started again must have failed back. */
        void report(List<String> broken) {
            if (full == null) {
                broken.add("the disk never went to the brim: the first phase was not seen");
                return;
            }
            System.err.printf("[chaos] at the brim from %s: the filler took %d KiB again; the primary %s; its log: %s"
                            + " | %s | %s; the backup: %s%n", reached, full.takenAgain() / 1024,
                    restarted == null ? "kept running" : "stopped itself and was started again at " + restarted,
                    primary.logAfter(brokerLog, "AMQ222037"), primary.logAfter(brokerLog, "AMQ222010"),
                    primary.logAfter(brokerLog, "AMQ221002"), backupActive());
            if (restarted == null) {
                return;
            }
            if (backupActive().isEmpty()) {
                broken.add("the primary stopped itself at the brim but the backup did not take over (AMQ221007)");
            }
            try {
                primary.awaitLogAfter(primaryLogAtRestart, Duration.ofSeconds(300), "AMQ221007", "AMQ221010");
            } catch (IllegalStateException e) {
                broken.add("the primary started again after its full disk did not become active: " + e.getMessage());
                return;
            }
            ChaosIT.awaitDrained();
            int consumers = ChaosIT.pairWholeAgain(backupLogAtRestart, broken);
            System.err.printf("[chaos] the primary started again at %s, active again (fail-back): %s; %d consumers on it%n",
                    restarted, primary.logAfter(primaryLogAtRestart, "AMQ221007"), consumers);
        }

        /** The backup's log saying it became active since the scenario began (empty when it did not). */
        private String backupActive() {
            ArtemisBroker backup = ChaosIT.artemis().backup();
            return backup.logAfter(backupLog, "AMQ221007") + backup.logAfter(backupLog, "AMQ221010");
        }
    }

    /** Fills {@code disk} to {@code share} (1: to the brim) and says so, naming it {@code what}. */
    static void fill(SmallDisk disk, double share, String what) {
        try {
            double usage = disk.fill(share);
            System.err.printf("[chaos] %s filled to %.1f%%%n", what, usage * 100);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Removes the filler of {@code disk} and says how full it is then. */
    static void free(SmallDisk disk, String what) {
        try {
            disk.free();
            System.err.printf("[chaos] filler removed: %s %.1f%% used%n", what, disk.usage() * 100);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether a running node's health check says the broker's disk is full (the first answer kept). */
    private static boolean healthNamesTheDisk(List<String> seen) {
        return ChaosIT.NODES.entrySet().stream().filter(n -> n.getValue().isRunning()).anyMatch(n -> {
            dev.mailroom.it.support.ApiClient api = ChaosIT.APIS.get(n.getKey());
            String broker;
            try { // 503 while a part is down: the body says which
                broker = api.mapper().readTree(api.get("/api/v1/health").body()).path("checks").path("broker").asText();
            } catch (IOException e) {
                return false;
            }
            if (broker.contains("disk")) {
                seen.add(n.getKey() + ": " + broker);
                return true;
            }
            return false;
        });
    }
}
