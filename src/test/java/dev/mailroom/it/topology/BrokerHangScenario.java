package dev.mailroom.it.topology;

import dev.mailroom.it.support.ChaosLedger;
import dev.mailroom.it.support.Jobs;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

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
 * the pair's URL and Mailroom's client with a send timeout ({@link ChaosProducer}), submits one job at a time during
 * the hang: each attempt's answer (accepted, or refused after how long) is recorded, every attempt must be answered
 * within its bound, and every job it was told accepted must be sent once (its own report line).
 */
final class BrokerHangScenario {

    static final Duration OUTAGE = Duration.ofSeconds(Integer.getInteger("mailroom.chaos.broker-outage-seconds", 60));

    private BrokerHangScenario() {
    }

    static ChaosLedger.Line run() throws Exception {
        long backup = ChaosIT.artemis().backup().pid().orElseThrow(() -> new IllegalStateException("no backup"));
        Map<String, Long> logs = ChaosIT.logOffsets();
        ChaosProducer producer = new ChaosProducer(Jobs.runPrefix("chaos-brokerhang-producer"), "the broker hang");
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
}
