package dev.mailroom.it.topology;

import dev.mailroom.it.support.ChaosLedger;
import dev.mailroom.it.support.JmsClient;
import dev.mailroom.it.support.Jobs;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An application submitting one job a second to {@code mail.send} while a broker fault lasts, through its own client of
 * the pair (the URL Mailroom's producers are told to use: ha, reconnecting for ever, the client's default timeouts).
 * Each attempt's answer is recorded: accepted, or refused and after how long; {@link #count} then checks that every
 * job it was told accepted is sent once (a report line of its own) and that no attempt waited past {@link #BOUND}.
 */
final class ChaosProducer {

    /** How long an attempt may wait for its answer: a fault of a minute plus the client's call timeout (30 s). */
    static final Duration BOUND = Duration.ofSeconds(95);
    private final String prefix;
    private final String fault;
    private final List<String> accepted = new CopyOnWriteArrayList<>();
    private final List<String> refused = new CopyOnWriteArrayList<>();
    private final List<Duration> waits = new CopyOnWriteArrayList<>();
    private volatile boolean running;
    private Thread thread;

    ChaosProducer(String prefix, String fault) {
        this.prefix = prefix;
        this.fault = fault;
    }

    void start() {
        running = true;
        thread = new Thread(this::submit, "chaos-producer");
        thread.setDaemon(true);
        thread.start();
    }

    /** No attempt after this one; the one under way ends as the client decides. */
    void stop() {
        running = false;
    }

    private void submit() {
        JmsClient client = ChaosIT.artemis().producerClient();
        try {
            for (int i = 0; running; i++) {
                String id = prefix + i;
                Instant t = Instant.now();
                try {
                    client.sendText(ChaosIT.SEND, Jobs.job(id));
                    accepted.add(id);
                } catch (RuntimeException e) {
                    String why = String.valueOf(e.getMessage());
                    refused.add(id + " after " + Duration.between(t, Instant.now()).toSeconds() + " s: "
                            + why.substring(0, Math.min(200, why.length())));
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
            broken.add("a producer's attempt still unanswered " + BOUND.toSeconds() + " s after " + fault);
        }
        Duration longest = waits.stream().max(Duration::compareTo).orElse(Duration.ZERO);
        System.err.printf("[chaos] producer during %s: %d attempts, %d accepted, %d refused, longest wait %.1f s;"
                        + " refused: %s%n", fault, waits.size(), accepted.size(), refused.size(), longest.toMillis() / 1000.0,
                refused.stream().limit(3).toList());
        if (longest.compareTo(BOUND) > 0) {
            broken.add("a producer's attempt waited " + longest.toSeconds() + " s");
        }
        ChaosIT.awaitFinished(prefix, accepted, Duration.ofMinutes(2));
        // a send refused by its timeout may still have reached the broker (in doubt, as for any client): counted
        long arrived = ChaosIT.ledger.states(prefix).keySet().stream().filter(id -> !accepted.contains(id)).count();
        System.err.printf("[chaos] of the refused attempts, %d reached Mailroom nonetheless%n", arrived);
        return ChaosIT.ledger.count("producer during " + fault + ": " + accepted.size() + " accepted, "
                + refused.size() + " refused", prefix, List.copyOf(accepted), 0, broken);
    }
}
