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
    /**
     * Per-key order's load ({@link KeyedLoad}: {@code keys} keys × 10 jobs, every 10th key's 3rd job refused twice)
     * with the server killed ({@code kill -9}) once half of it reached the relay, then started again. A key whose
     * head's call was cut after its point of no return ends that head {@code unknown}, which holds the key on the IT
     * server ({@code mail.send} is set to hold): an operator releases it, as the runbook says. Then every key's mails
     * are at the relay in order, none twice, and every job not there is {@code unknown} (at most {@code consumers}:
     * the calls in flight at the kill), never resent.
     */
    public static void keyedJobsKilledMidRunKeepEveryKeyInOrder(Mailroom m, int keys, int consumers) {
        KeyedLoad load = KeyedLoad.of("crash-keys", keys, KeyedLoad.everyNth(keys, 10)).send(m);
        int total = load.ids().size();
        org.awaitility.Awaitility.await("half the keyed jobs at the relay").atMost(Duration.ofMinutes(3))
                .pollInterval(Duration.ofMillis(100)).until(() -> load.arrivals(m.smtp()).size() >= total / 2);
        m.server().killHard();
        int atKill = load.arrivals(m.smtp()).size();
        assertThat(atKill).as("the kill must land mid-run").isLessThan(total);
        m.server().restart();

        Set<String> released = new java.util.TreeSet<>();
        Map<String, String> missing = new HashMap<>();
        org.awaitility.Awaitility.await("every keyed job at the relay or unknown").atMost(Duration.ofMinutes(4))
                .pollInterval(Duration.ofSeconds(1)).until(() -> {
                    releaseHeldKeys(m, load.prefix(), released);
                    Set<String> arrived = new java.util.HashSet<>();
                    load.arrivals(m.smtp()).forEach(a -> arrived.add(a.id()));
                    missing.clear();
                    load.ids().stream().filter(id -> !arrived.contains(id)).forEach(id -> missing.put(id, null));
                    if (missing.size() > consumers) {
                        return false; // not yet: only the calls in flight at the kill may end unknown
                    }
                    missing.replaceAll((id, state) -> Jobs.state(m.api(), id));
                    return missing.values().stream().allMatch("unknown"::equals);
                });
        // a duplicate would need a redelivery or a retry: once nothing is on the queues the relay's counts are final
        Jobs.awaitSendQueuesDrained(m.api(), Duration.ofSeconds(120));

        List<KeyedLoad.Arrival> arrivals = load.arrivals(m.smtp());
        KeyedLoad.assertInOrderOnce(arrivals, keys, false);
        assertThat(arrivals.size() + missing.size()).as("every job at the relay or unknown").isEqualTo(total);
        Map<String, String> states = statesOfRun(m, load);
        assertThat(states).as("every job sent or unknown").hasSize(total)
                .allSatisfy((id, state) -> assertThat(state).as(id).isIn("sent_to_provider", "unknown"));
        List<String> unknown = states.keySet().stream().filter(id -> states.get(id).equals("unknown")).sorted().toList();
        assertThat(unknown).as("only calls in flight at the kill can be unknown").hasSizeLessThanOrEqualTo(consumers)
                .containsAll(missing.keySet());
        for (String id : unknown) {
            assertThat(Jobs.types(m.api().getJson("/api/v1/jobs/" + id))).as(id).contains("ambiguous_not_resent");
        }
        System.out.printf("keyed kill -9: %d keys x 10 jobs, %d keys' 3rd job refused twice, killed with %d of %d at the"
                        + " relay; after restart %d unknown (%d of them not at the relay), %d keys released by hand;"
                        + " every key in order at the relay, none twice%n", keys, load.refused().size(), atKill, total,
                unknown.size(), missing.size(), released.size());
    }

    /** The states of the load's jobs, from the API's job list (newest first: the load's jobs are the newest). */
    private static Map<String, String> statesOfRun(Mailroom m, KeyedLoad load) {
        Set<String> ids = Set.copyOf(load.ids());
        Map<String, String> states = new HashMap<>();
        String cursor = "";
        do {
            com.fasterxml.jackson.databind.JsonNode page = m.api().getJson("/api/v1/jobs?tenant=it&limit=200"
                    + (cursor.isEmpty() ? "" : "&cursor=" + java.net.URLEncoder.encode(cursor,
                    java.nio.charset.StandardCharsets.UTF_8)));
            for (com.fasterxml.jackson.databind.JsonNode job : page.path("items")) {
                if (ids.contains(job.path("message_id").asText())) {
                    states.put(job.path("message_id").asText(), job.path("state").asText());
                }
            }
            cursor = page.path("next").asText("");
        } while (states.size() < ids.size() && !cursor.isEmpty());
        return states;
    }

    /** Releases the held keys of this run ({@code prefix}), as an operator who checked the relay would. */
    private static void releaseHeldKeys(Mailroom m, String prefix, Set<String> released) {
        for (com.fasterxml.jackson.databind.JsonNode held : m.api().getJson(
                "/api/v1/keys?state=held&queue=mail.send").path("keys")) {
            String key = held.path("ordering_key").asText();
            if (key.startsWith(prefix) && released.add(key)) {
                m.api().postJson("/api/v1/keys/release?queue=mail.send&key="
                        + java.net.URLEncoder.encode(key, java.nio.charset.StandardCharsets.UTF_8),
                        "{\"reason\": \"its head's send is unknown: checked at the relay\"}", 200);
            }
        }
    }
}
