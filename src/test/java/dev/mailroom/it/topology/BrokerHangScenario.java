package dev.mailroom.it.topology;

import dev.mailroom.it.support.ArtemisBroker;
import dev.mailroom.it.support.ChaosLedger;
import dev.mailroom.it.support.JmsClient;
import dev.mailroom.it.support.Jobs;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * ChaosIT's hung broker, on its topology: {@code chaos.load} jobs under way, then the proxy in front of the primary
 * broker ({@link ChaosIT#brokerProxy}: the port the primary announces, so every client connection to it, the nodes'
 * and the producers', goes through it) stops forwarding without closing a connection for
 * {@code chaos.broker-outage-seconds}, the backup's replication spared (a partition between the brokers is another
 * fault). Then it forwards what waited. The nodes' waits on the broker are bounded by the client's defaults
 * (docs/reference.md, {@code MAILROOM_BROKER_URL}): a connection that stops answering is found failed within two
 * {@code clientFailureCheckPeriod}s (30 s each), a blocking call gives up after {@code callTimeout} (30 s). Nothing may
 * be dead-lettered or lost, every job finishes afterwards, none is sent twice; the fault must be seen: a node's log
 * reporting the broker connection failed ({@code AMQ212037}). Beside the nodes a producer, as an application with
 * the pair's URL, submits one job at a time during the hang: each attempt's answer (accepted, or refused after how
 * long) is recorded, and every job it was told accepted must be sent once (its own report line).
 */
final class BrokerHangScenario {

    static final Duration OUTAGE = Duration.ofSeconds(Integer.getInteger("mailroom.chaos.broker-outage-seconds", 60));

    private BrokerHangScenario() {
    }

    static ChaosLedger.Line run() throws Exception {
        long backup = ChaosIT.artemis().backup().pid().orElseThrow(() -> new IllegalStateException("no backup"));
        Map<String, Long> logs = ChaosIT.logOffsets();
        Producer producer = new Producer(Jobs.runPrefix("chaos-brokerhang-producer"));
        ChaosLedger.Line line = ChaosIT.outageWithoutDeadLetters("chaos-brokerhang", "broker hung " + OUTAGE.toSeconds()
                        + " s (blackhole)", OUTAGE, () -> {
                    ChaosIT.brokerProxy.blackhole(true, Set.of(backup));
                    producer.start();
                }, () -> {
                    ChaosIT.brokerProxy.blackhole(false);
                    producer.stop();
                }, "a node's log: the broker connection failed (AMQ212037)",
                () -> !ChaosIT.logLines(logs, "AMQ212037").isEmpty(), true);
        ChaosIT.assertHeld(producer.count());
        return line;
    }

    /**
     * An application submitting one job at a time during the hang, through its own client of the pair (the URL Mailroom's
     * producers are told to use: ha, reconnecting for ever, the client's default timeouts).
     */
    private static final class Producer {
        /** An attempt during the hang may wait: at most the call timeout after the failure check found the connection dead. */
        static final Duration BOUND = Duration.ofSeconds(90);
        private final String prefix;
        private final List<String> accepted = new CopyOnWriteArrayList<>();
        private final List<String> refused = new CopyOnWriteArrayList<>();
        private final List<Duration> waits = new CopyOnWriteArrayList<>();
        private volatile boolean running;
        private Thread thread;

        Producer(String prefix) {
            this.prefix = prefix;
        }

        void start() {
            running = true;
            thread = new Thread(this::submit, "chaos-hang-producer");
            thread.setDaemon(true);
            thread.start();
        }

        void stop() {
            running = false;
        }

        private void submit() {
            ArtemisBroker.Pair pair = ChaosIT.artemis();
            JmsClient client = pair.producerClient();
            try {
                for (int i = 0; running; i++) {
                    String id = prefix + i;
                    Instant t = Instant.now();
                    try {
                        client.sendText(ChaosIT.SEND, Jobs.job(id));
                        accepted.add(id);
                    } catch (RuntimeException e) {
                        refused.add(id + " after " + Duration.between(t, Instant.now()).toSeconds() + " s: "
                                + e.getMessage().substring(0, Math.min(200, e.getMessage().length())));
                    }
                    waits.add(Duration.between(t, Instant.now()));
                    Jobs.sleep(1000);
                }
            } finally {
                client.close();
            }
        }

        /** The producer's report line: the jobs it was told accepted, each sent once; every attempt answered in time. */
        ChaosLedger.Line count() throws Exception {
            List<String> broken = new ArrayList<>();
            thread.join(BOUND.toMillis());
            if (thread.isAlive()) {
                broken.add("a producer's attempt still unanswered " + BOUND.toSeconds() + " s after the hang");
            }
            Duration longest = waits.stream().max(Duration::compareTo).orElse(Duration.ZERO);
            System.err.printf("[chaos] producer during the broker hang: %d attempts, %d accepted, %d refused, longest"
                    + " wait %.1f s; refused: %s%n", waits.size(), accepted.size(), refused.size(),
                    longest.toMillis() / 1000.0, refused.stream().limit(3).toList());
            if (longest.compareTo(BOUND) > 0) {
                broken.add("a producer's attempt waited " + longest.toSeconds() + " s");
            }
            ChaosIT.awaitFinished(prefix, accepted, Duration.ofMinutes(2));
            // a send refused by its timeout may still have reached the broker (in doubt, as for any client): counted
            long arrived = ChaosIT.ledger.states(prefix).keySet().stream().filter(id -> !accepted.contains(id)).count();
            System.err.printf("[chaos] of the refused attempts, %d reached Mailroom nonetheless%n", arrived);
            return ChaosIT.ledger.count("producer during the broker hang: " + accepted.size() + " accepted, "
                    + refused.size() + " refused", prefix, List.copyOf(accepted), 0, broken);
        }
    }
}
