package dev.mailroom.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The server stopped in the middle of a batch, then started again: no job is lost and none is sent twice, counted at
 * the SMTP relay.
 *
 * <p>"Not lost" means: delivered exactly once, or (only for a job whose SMTP call had passed its point of no return,
 * the final "." of DATA, when the process died) in state {@code unknown}, where an operator sees it, and never resent
 * automatically because SMTP cannot drop a duplicate.
 */
public final class CrashScenario {

    /** How the server goes away mid-batch. */
    public enum Stop {
        /** SIGKILL, as in a crash. */
        KILL_DASH_NINE,
        /** SIGTERM, as an operator's restart or an orchestrator's rollout. */
        GRACEFUL
    }

    private CrashScenario() {
    }

    /**
     * Sends {@code jobs} jobs to {@code mail.send}, stops the server as {@code stop} says once {@code before} of them
     * reached the relay, starts it again and waits until every job is finished. At most {@code consumers} jobs (the
     * calls in flight at the stop) may end {@code unknown}.
     */
    public static void stoppedMidBatchLosesNothingAndSendsNothingTwice(Mailroom m, Stop stop, int jobs, int before,
                                                                       int consumers) {
        String prefix = Jobs.runPrefix("crash");
        List<String> ids = Jobs.ids(prefix, jobs);
        int received = m.smtp().receivedCount();

        m.jms().sendAll("mail.send", Jobs.jobs(ids));
        assertThat(m.smtp().awaitReceived(received + before, Duration.ofMinutes(3))).isTrue();
        if (stop == Stop.KILL_DASH_NINE) {
            m.server().killHard();
        } else {
            m.server().stop();
        }
        int atStop = m.smtp().receivedCount() - received;
        System.out.printf("%s: stopped the server with %d of %d jobs delivered%n", stop, atStop, jobs);
        assertThat(atStop).as("the stop must land mid-batch").isLessThan(jobs);

        long restart = System.nanoTime();
        m.server().restart();
        System.out.printf("restarted in %.1f s%n", (System.nanoTime() - restart) / 1e9);

        Map<String, String> states = awaitFinished(m, ids, stop);
        // a duplicate would need a redelivery or a retry: once nothing is on the queues (ready, scheduled or in
        // delivery), the counts below are final
        Jobs.awaitSendQueuesDrained(m.api(), Duration.ofSeconds(120));

        Map<String, Integer> counts = m.smtp().countsByMessageId();
        List<String> duplicated = ids.stream().filter(id -> counts.getOrDefault(Jobs.smtpMessageId(id), 0) > 1).toList();
        assertThat(duplicated).as("jobs delivered more than once").isEmpty();

        assertThat(Set.copyOf(states.values())).isSubsetOf(Set.of("sent_to_provider", "unknown"));
        List<String> sentButMissing = ids.stream().filter(id -> states.get(id).equals("sent_to_provider"))
                .filter(id -> counts.getOrDefault(Jobs.smtpMessageId(id), 0) != 1).toList();
        assertThat(sentButMissing).as("jobs recorded as sent but not delivered exactly once").isEmpty();
        List<String> unknown = ids.stream().filter(id -> states.get(id).equals("unknown")).toList();
        assertThat(unknown.size()).as("only calls in flight at the stop can be unknown").isLessThanOrEqualTo(consumers);
        long unknownDelivered = unknown.stream().filter(id -> counts.getOrDefault(Jobs.smtpMessageId(id), 0) == 1).count();
        System.out.printf("after restart: %d sent_to_provider, %d unknown (%d of them delivered)%n",
                jobs - unknown.size(), unknown.size(), unknownDelivered);
        for (String id : unknown) {
            assertThat(Jobs.types(m.api().getJson("/api/v1/jobs/" + id))).contains("ambiguous_not_resent");
        }
    }

    /** Waits (6 min at most) until every job is sent_to_provider or unknown, none received, sending or absent. */
    private static Map<String, String> awaitFinished(Mailroom m, List<String> ids, Stop stop) {
        Map<String, String> states = new HashMap<>();
        long deadline = System.nanoTime() + Duration.ofMinutes(6).toNanos();
        List<String> pending = new ArrayList<>(ids);
        while (!pending.isEmpty() && System.nanoTime() < deadline) {
            List<String> still = new ArrayList<>();
            for (String id : pending) {
                String state = Jobs.state(m.api(), id);
                if (state == null || state.equals("received") || state.equals("sending")) {
                    still.add(id);
                } else {
                    states.put(id, state);
                }
            }
            pending = still;
            if (!pending.isEmpty()) {
                Jobs.sleep(2000);
            }
        }
        assertThat(pending).as("jobs never finished after the restart (%s); queues: %s", stop,
                m.api().getJson("/api/v1/queues")).isEmpty();
        return states;
    }
}
