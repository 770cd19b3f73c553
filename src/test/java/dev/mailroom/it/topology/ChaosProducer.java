package dev.mailroom.it.topology;

import dev.mailroom.client.JmsMailroomClient;
import dev.mailroom.client.JobNotAcceptedException;
import dev.mailroom.client.MailJob;
import dev.mailroom.client.MailroomClient;
import dev.mailroom.it.support.ArtemisBroker;
import dev.mailroom.it.support.ChaosLedger;
import dev.mailroom.it.support.Jobs;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;

/**
 * An application submitting one job a second to {@code mail.send} while a broker fault lasts, through Mailroom's client
 * jar over its own connection factory of the pair (the URL Mailroom's producers are told to use: ha, reconnecting for
 * ever) with a send timeout ({@link JmsMailroomClient#withSendTimeout}, {@link #SEND_TIMEOUT}), as a web request that
 * submits a job should. Each attempt's answer is recorded: accepted, or not accepted and after how long. Once the fault
 * is over it sends every refused job again with the same {@code message_id}, as the client's exception tells an
 * application to; {@link #count} then checks that every job it was told accepted is sent once (a report line of its
 * own: a refused job that had reached the broker nonetheless must not be sent twice) and that no attempt waited past
 * {@link #BOUND}.
 */
final class ChaosProducer {

    /** The producer's send timeout: a send the broker holds back (or does not answer) is refused within it. */
    static final Duration SEND_TIMEOUT = Duration.ofSeconds(10);
    /** How long an attempt may wait for its answer: the send timeout, and what a loaded machine adds to it. */
    static final Duration BOUND = SEND_TIMEOUT.plusSeconds(5);
    private final String prefix;
    private final String fault;
    private final List<String> accepted = new CopyOnWriteArrayList<>();
    private final List<String> notAccepted = new CopyOnWriteArrayList<>();
    private final List<String> refused = new CopyOnWriteArrayList<>();
    private final List<String> refusedIds = new CopyOnWriteArrayList<>();
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

    /** No attempt after this one; the one under way ends within the send timeout. */
    void stop() {
        running = false;
    }

    /** How many attempts were refused as not accepted within the send timeout. */
    int notAccepted() {
        return notAccepted.size();
    }

    private void submit() {
        try (ActiveMQConnectionFactory factory = factory()) {
            JmsMailroomClient client = MailroomClient.over(factory).withSendTimeout(SEND_TIMEOUT);
            for (int i = 0; running; i++) {
                attempt(client, prefix + i);
                Jobs.sleep(1000);
            }
        }
    }

    private static ActiveMQConnectionFactory factory() {
        return new ActiveMQConnectionFactory(ChaosIT.artemis().brokerUrl(), ArtemisBroker.PRODUCER_USER,
                ArtemisBroker.PRODUCER_PASSWORD);
    }

    /** One send, its answer and its wait recorded. */
    private void attempt(JmsMailroomClient client, String id) {
        Instant t = Instant.now();
        try {
            client.send(job(id));
            accepted.add(id);
        } catch (JobNotAcceptedException e) {
            notAccepted.add(id);
        } catch (RuntimeException e) {
            String why = String.valueOf(e.getMessage());
            refusedIds.add(id);
            refused.add(id + " after " + Duration.between(t, Instant.now()).toSeconds() + " s: "
                    + why.substring(0, Math.min(200, why.length())));
        }
        waits.add(Duration.between(t, Instant.now()));
    }

    /** The job {@link Jobs#job} describes, built with the client jar. */
    private static MailJob job(String id) {
        return MailJob.to("alice@example.com").from("Mailroom IT <noreply@example.com>").messageId(id).tenant("it")
                .campaignId("it-campaign").unsubscribe("https://example.com/unsubscribe/it", null)
                .subject("Hello " + id).text("Hi Alice, this is " + id + ".").build();
    }

    /**
     * The producer's report line: every refused job sent again as an application does (same {@code message_id}); the
     * jobs it was told accepted, each sent once; every attempt answered within {@link #BOUND}.
     */
    ChaosLedger.Line count() throws Exception {
        List<String> broken = new ArrayList<>();
        thread.join(BOUND.toMillis());
        if (thread.isAlive()) {
            broken.add("a producer's attempt still unanswered " + BOUND.toSeconds() + " s after " + fault);
        }
        Duration longest = waits.stream().max(Duration::compareTo).orElse(Duration.ZERO);
        System.err.printf("[chaos] producer during %s: %d attempts, %d accepted, %d not accepted within the %d s send"
                        + " timeout, %d refused otherwise, longest wait %.1f s; refused: %s%n", fault, waits.size(),
                accepted.size(), notAccepted.size(), SEND_TIMEOUT.toSeconds(), refused.size(), longest.toMillis() / 1000.0,
                refused.stream().limit(3).toList());
        if (longest.compareTo(BOUND) > 0) {
            broken.add("a producer's attempt waited " + longest.toSeconds() + " s");
        }
        // a send refused at its bound may still have reached the broker (in doubt, as for any client): counted
        long arrived = ChaosIT.ledger.states(prefix).keySet().stream()
                .filter(id -> notAccepted.contains(id) || refusedIds.contains(id)).count();
        System.err.printf("[chaos] of the jobs refused, %d reached Mailroom nonetheless%n", arrived);
        List<String> again = sendAgain(broken);
        ChaosIT.awaitFinished(prefix, accepted, Duration.ofMinutes(2));
        return ChaosIT.ledger.count("producer during " + fault + ": " + (accepted.size() - again.size()) + " accepted, "
                + (notAccepted.size() + refused.size()) + " refused, " + again.size() + " sent again",
                prefix, List.copyOf(accepted), 0, broken);
    }

    /** Sends every refused job again, with its {@code message_id}; returns those now accepted. */
    private List<String> sendAgain(List<String> broken) {
        List<String> again = new ArrayList<>();
        List<String> refusedJobs = new ArrayList<>(notAccepted);
        refusedJobs.addAll(refusedIds);
        try (ActiveMQConnectionFactory factory = factory()) {
            JmsMailroomClient client = MailroomClient.over(factory).withSendTimeout(SEND_TIMEOUT);
            for (String id : refusedJobs) {
                try {
                    client.send(job(id));
                    accepted.add(id);
                    again.add(id);
                } catch (RuntimeException e) {
                    broken.add("job " + id + " not accepted when sent again after " + fault + ": " + e.getMessage());
                }
            }
        }
        return again;
    }
}
