package dev.mailroom.it.topology;

import dev.mailroom.it.support.ArtemisBroker;
import dev.mailroom.it.support.ChaosLedger;
import dev.mailroom.it.support.Jobs;
import dev.mailroom.it.support.SmallDisk;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;

/**
 * ChaosIT's full disk, on its topology: the primary broker's data directory (journal, bindings, paging, large
 * messages) is a small filesystem of its own ({@link SmallDisk}, {@link #MEGABYTES} MiB, made at set-up), which a
 * filler file brings to {@link #FILL} of its size under {@code chaos.load} jobs, above the broker's
 * {@code max-disk-usage} (90%), for {@code chaos.broker-outage-seconds}; then the filler goes. Artemis then blocks every
 * producer without a bound (its address-full policy PAGE: a full disk blocks, it neither drops nor refuses): the
 * producer beside the load ({@link ChaosProducer}, Mailroom's client with a send timeout) must be refused within its
 * bound ("not accepted, try later"), never told accepted for a job that is lost, and be let through when space
 * returns; the jobs it was refused, sent again with their ids, go once. The nodes go on consuming (acknowledgements need no new journal file); nothing may be dead-lettered or lost;
 * the fault must be seen by an operator: the broker logging that it blocks producers (AMQ222210) and a node's health check naming the
 * broker's full disk. Where the harness can make no small filesystem the scenario is skipped, saying why.
 */
final class FullDiskScenario {

    static final int MEGABYTES = 256;
    static final double FILL = 0.95;

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
        ChaosLedger.Line line = ChaosIT.outageWithoutDeadLetters("chaos-fulldisk", "broker disk full "
                        + BrokerHangScenario.OUTAGE.toSeconds() + " s", BrokerHangScenario.OUTAGE, () -> {
                    fill(disk, FILL, "the broker's data filesystem");
                    producer.start();
                }, () -> {
                    free(disk, "the broker's data filesystem");
                    producer.stop();
                }, "the broker blocking producers for its disk (AMQ222210) and a node's health naming that disk",
                () -> !primary.logAfter(brokerLog, "AMQ222210").isEmpty() && healthNamesTheDisk(health), false);
        System.err.printf("[chaos] full disk: %s; a node's health said: %s; the broker: %s | %s | %s%n", disk,
                health.isEmpty() ? "nothing" : health.get(0), primary.logAfter(brokerLog, "AMQ222210"),
                primary.logAfter(brokerLog, "AMQ222212"), primary.logAfter(brokerLog, "AMQ222211"));
        ChaosIT.logLines(logs, "AMQ212054").stream().limit(2).forEach(l -> System.err.println("[chaos] " + l));
        ChaosLedger.Line produced = producer.count();
        ChaosIT.assertHeld(produced);
        org.assertj.core.api.Assertions.assertThat(producer.notAccepted()).as("attempts refused within the producer's"
                + " send timeout while the disk was full").isPositive();
        org.assertj.core.api.Assertions.assertThat(produced.jobs()).as("jobs accepted once space returned").isPositive();
        return line;
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
