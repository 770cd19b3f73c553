package dev.mailroom.it.send;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.Jobs;
import dev.mailroom.testsupport.SmtpTestServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Per-key order on the real server, its consumers and the loopback relay: keys × 10 jobs, interleaved on the queue
 * with each key as its JMS group; the relay refuses the 3rd job of every 10th key twice (451, transient), so that
 * job waits for two retries on the broker and its key's later jobs wait behind it. At the relay every key's mails
 * arrive in order, each once; and the other keys finish about when the same load without refusals does afterwards
 * (measured and printed). CI size 12 keys ({@code -Dmailroom.it.order-keys=200} for 200 keys).
 */
@Tag("smtp")
class KeyOrderIT {

    private static final int KEYS = Integer.getInteger("mailroom.it.order-keys", 12);
    private static final int PER_KEY = 10;
    /** A whole run's bound: two transient retries (5 s and 15 s at most, full jitter) plus the load itself. */
    private static final Duration RUN_LIMIT = Duration.ofSeconds(60 + KEYS / 4);

    /** One run's arrivals at the relay. */
    private record Run(String prefix, Instant start, List<SmtpTestServer.ReceivedMail> mails, Map<String, String> jobOf) {

        /**
         * From the start until the mail at {@code share} (0..1) of the arrivals of the keys in {@code keys}
         * ({@code in}) or of the others: 1 is the last one, 0.9 the one nine in ten arrived by.
         */
        Duration until(Set<Integer> keys, boolean in, double share) {
            List<Instant> at = mails.stream().filter(m -> keys.contains(keyOf(jobOf.get(m.messageId()))) == in)
                    .map(SmtpTestServer.ReceivedMail::at).sorted().toList();
            return Duration.between(start, at.get((int) Math.ceil(share * at.size()) - 1));
        }
    }

    @Test
    void everyKeysMailsArriveInOrderOnceAndTheWaitingKeysHoldUpNoOtherKey() {
        ItEnvironment env = ItEnvironment.get();
        Set<Integer> refused = new TreeSet<>();
        for (int k = 0; k < KEYS; k += 10) {
            refused.add(k);
        }
        // a first load on a fresh server is twice as slow (measured: 10.6 s, then 4.7 s for the same 200 jobs), so
        // neither measured run is the first
        run(env, "order-warm", Set.of());
        Run run = run(env, "order", refused);
        Run baseline = run(env, "order-base", Set.of());

        for (Run r : List.of(baseline, run)) {
            Map<String, List<Integer>> arrived = new HashMap<>();
            Map<String, Integer> times = new HashMap<>();
            for (SmtpTestServer.ReceivedMail m : r.mails()) {
                String job = r.jobOf().get(m.messageId());
                arrived.computeIfAbsent(job.substring(0, job.lastIndexOf('.')), x -> new ArrayList<>())
                        .add(Integer.parseInt(job.substring(job.lastIndexOf('.') + 1)));
                times.merge(job, 1, Integer::sum);
            }
            assertThat(times).as("every job at the relay exactly once").hasSize(KEYS * PER_KEY)
                    .allSatisfy((job, n) -> assertThat(n).as(job).isEqualTo(1));
            assertThat(arrived).hasSize(KEYS).allSatisfy((key, order) -> assertThat(order).as(key)
                    .containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
        }
        Duration others = run.until(refused, false, 1);
        Duration base = baseline.until(refused, false, 1);
        Duration others90 = run.until(refused, false, 0.9);
        Duration base90 = baseline.until(refused, false, 0.9);
        System.out.printf("per-key order: %d keys x %d jobs on mail.send, %d keys' 3rd job refused twice: the other keys'"
                        + " mails 90%% at the relay after %d ms, all after %d ms (the same load without refusals: %d ms"
                        + " and %d ms; delayed by %d ms and %d ms), the waiting keys' all after %d ms; every key in"
                        + " order, every job once%n", KEYS, PER_KEY, refused.size(), others90.toMillis(),
                others.toMillis(), base90.toMillis(), base.toMillis(), others90.minus(base90).toMillis(),
                others.minus(base).toMillis(), run.until(refused, true, 1).toMillis());
        for (int k : refused) {
            JsonNode head = env.api().getJson("/api/v1/jobs/" + run.prefix() + k + ".2");
            assertThat(Jobs.types(head)).as("the refused job waited for two retries")
                    .containsSubsequence("retry_scheduled", "retry_scheduled", "sent");
            assertThat(Jobs.types(env.api().getJson("/api/v1/jobs/" + run.prefix() + k + ".3")))
                    .as("the next job of its key waited behind it").containsSubsequence("waiting_for_key", "released_by_key");
        }
        // against a load without refusals on the same server, nine in ten mails: a shared CI machine's noise, not a
        // waiting key, is what the slack is for (a consumer held for a retry's 5 to 20 s would be far past it)
        assertThat(others90.minus(base90)).isLessThan(Duration.ofSeconds(2).plus(base90.dividedBy(2)));
    }

    private static Run run(ItEnvironment env, String name, Set<Integer> refused) {
        String prefix = Jobs.runPrefix(name);
        Map<String, String> jobOf = new HashMap<>();
        List<String> bodies = new ArrayList<>();
        Map<String, String> keyOfBody = new HashMap<>();
        for (int i = 0; i < PER_KEY; i++) {
            for (int k = 0; k < KEYS; k++) {
                String key = prefix + k;
                String id = key + "." + i;
                jobOf.put(Jobs.smtpMessageId(id), id);
                String body = keyedJob(id, key);
                bodies.add(body);
                keyOfBody.put(body, key);
                if (i == 2 && refused.contains(k)) {
                    env.smtp().refuse(Jobs.smtpMessageId(id), 2, 451, "4.3.0 Temporary local problem");
                }
            }
        }
        Instant start = Instant.now();
        env.jms().sendAll("mail.send", bodies, body -> Map.of("JMSXGroupID", keyOfBody.get(body)));
        List<SmtpTestServer.ReceivedMail> mine = new ArrayList<>();
        Awaitility.await(name + ": every job at the relay").atMost(RUN_LIMIT).pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    mine.clear();
                    env.smtp().received().stream().filter(m -> jobOf.containsKey(m.messageId())).forEach(mine::add);
                    return mine.size() >= KEYS * PER_KEY;
                });
        return new Run(prefix, start, List.copyOf(mine), jobOf);
    }

    private static int keyOf(String job) {
        String key = job.substring(0, job.lastIndexOf('.'));
        return Integer.parseInt(key.substring(key.lastIndexOf('-') + 1));
    }

    private static String keyedJob(String id, String key) {
        return """
                {"schema_version": 3, "message_id": "%s", "tenant": "it", "ordering_key": "%s",
                 "from": "Mailroom IT <noreply@example.com>", "to": ["alice@example.com"],
                 "subject": "Hello %s", "text": "Hi Alice, this is %s."}""".formatted(id, key, id, id);
    }
}
