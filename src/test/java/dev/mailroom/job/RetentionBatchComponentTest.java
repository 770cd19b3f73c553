package dev.mailroom.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.ops.testing.MovableClock;
import dev.mailroom.platform.lease.Leases;
import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.recoverability.ProviderTraits;
import dev.mailroom.testsupport.ComponentDatabase;
import dev.mailroom.ops.testing.SchemaSearch;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link RetentionBatch} on the real migrations (H2 here, PostgreSQL in the subclass), each batch in a transaction of
 * its own session: finished jobs past their retention go with every row that hangs off them, unfinished ones and
 * those still needed stay, a removed job's claim still refuses a duplicate for its window, and a node whose lease
 * moved removes nothing. Where a removed job's recipient is left is found by reading the schema ({@link SchemaSearch}):
 * nowhere.
 */
class RetentionBatchComponentTest {

    private static final ProviderTraits SMTP = new ProviderTraits("smtp", false);
    static final List<Class<?>> ENTITIES = JobLedgerComponentTest.ENTITIES;
    private static final JobRetentionPolicy.Settings SETTINGS = new JobRetentionPolicy.Settings(Duration.ofDays(30),
            Map.of("password_reset", Duration.ofDays(2)), Duration.ofDays(7), Duration.ofMinutes(1));
    /** The rows that hang off a job by its id, as the schema says (its foreign keys), all of which a job has. */
    private static final List<String> CHILDREN = List.of("job_attempt.job_id", "job_event.job_id",
            "job_recipient.job_id");
    /** What points at a removed job and stays: its claim, kept for the claim window. */
    private static final String CLAIM = "send_claim.job_id";
    static ComponentDatabase db;

    private final MovableClock clock = new MovableClock(Clock.fixed(Instant.parse("2030-01-01T10:00:00Z"), ZoneOffset.UTC));
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private int jms;
    private boolean fenceHolds = true;

    @BeforeAll
    static void database() {
        db = ComponentDatabase.h2(ENTITIES);
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @Test
    void finishedJobsGoWithEveryRowOfTheirsUnfinishedAndStillNeededOnesStay() {
        long sent = sent("sent", null);
        long reset = sent("reset", "password_reset");
        long discarded = finished("discarded", JobState.discarded);
        long resolvedDeadLetter = finished("dl-resolved", JobState.dead_lettered);
        long deadLetterOfIt = deadLetter(resolvedDeadLetter, "discarded", address("dl-resolved"));
        long pendingDeadLetter = finished("dl-open", JobState.dead_lettered);
        deadLetter(pendingDeadLetter, "open", address("dl-open"));
        long received = inState("received", JobState.received);
        long sending = inState("sending", JobState.sending);
        long retrying = inState("retrying", JobState.retry_scheduled);
        long unknown = inState("unknown", JobState.unknown);
        long recent = sent("recent", null);
        List<Long> removable = List.of(sent, reset, discarded, resolvedDeadLetter);
        List<Long> kept = List.of(pendingDeadLetter, received, sending, retrying, unknown);
        Map<String, Long> before = rowsOf(removable);
        assertThat(before).as("what points at the jobs before retention, found by reading the schema")
                .containsKeys("dead_letter.job_id", "held_send.job_id", "suppression.cause_job_id", CLAIM)
                .containsKeys(CHILDREN.toArray(String[]::new));
        assertThat(before).as("what the jobs have before retention").allSatisfy((column, n) -> {
            if (CHILDREN.contains(column) || column.equals(CLAIM) || column.equals("mail_job")) {
                assertThat(n).as(column).isPositive();
            }
        });
        List<String> names = List.of("sent", "reset", "discarded");
        for (String name : names) {
            assertThat(whereIs(address(name))).as("where " + name + "'s recipient is before retention")
                    .containsKey("job_recipient.address");
        }

        clock.offset(Duration.ofDays(29));
        moveLastChange(recent); // the recent job changed a day before the pass
        clock.offset(Duration.ofDays(30).plusHours(1));
        Instant now = clock.instant();
        Map<String, Integer> removed = pass(now);

        assertThat(rowsOf(removable)).as("every row of the removed jobs, in any column pointing at a job")
                .allSatisfy((column, n) -> assertThat(n).as(column).isEqualTo(column.equals(CLAIM) ? 4L : 0L));
        for (String name : names) {
            assertThat(whereIs(address(name))).as("where " + name + "'s recipient is, in any table, after retention")
                    .isEmpty();
        }
        assertThat(whereIs(address("unknown"))).as("an unknown job keeps its recipient").containsKey("job_recipient.address");
        assertThat(whereIs(address("dl-resolved"))).as("a resolved dead letter keeps its payload until its own retention")
                .isEqualTo(Map.of("dead_letter.payload", 1L));
        assertThat(removed.get("job")).isEqualTo(4);
        assertThat(removed.get("attempt")).isEqualTo(4); // each began one attempt
        assertThat(jobsPresent(kept)).containsExactlyInAnyOrderElementsOf(kept);
        assertThat(jobsPresent(List.of(recent))).containsExactly(recent);
        assertThat(rowsOf(kept).get("job_event.job_id")).as("the kept jobs keep their timelines").isPositive();
        assertThat(scalar("select job_id from dead_letter where id = " + deadLetterOfIt))
                .as("a resolved dead letter outlives its job, without the link").isNull();
        assertThat(scalar("select count(*) from send_claim where job_id = " + sent + " and kept_until is not null"))
                .isEqualTo(1L);

        // a late duplicate of a removed job, inside the claim window: refused as a duplicate, never sent
        Begin late = begin("sent", "late-copy");
        assertThat(late).isInstanceOf(Begin.DuplicateKey.class);
        assertThat(((Begin.DuplicateKey) late).ownerJobId()).isEqualTo(sent);
        assertThat(timeline(((Begin.DuplicateKey) late).jobId())).anyMatch(d -> d.contains("removed by retention"));
    }

    @Test
    void aRemovedJobsClaimGoesAfterItsWindowAndProcessedWebhookCallsAfterTheRetention() {
        long sent = sent("claimed", null);
        long applied = providerEvent("applied");
        long waiting = providerEvent("received");
        clock.offset(Duration.ofDays(31));
        pass(clock.instant());
        assertThat(scalar("select count(*) from send_claim where job_id = " + sent)).isEqualTo(1L);

        clock.offset(Duration.ofDays(31 + 7).plusMinutes(1));
        Map<String, Integer> expired = inTransaction(b -> b.expired(SETTINGS, clock.instant(), 500)).rows();
        assertThat(expired.get("claim")).isPositive();
        assertThat(scalar("select count(*) from send_claim where job_id = " + sent)).isEqualTo(0L);
        assertThat(scalar("select count(*) from provider_event where id = " + applied)).isEqualTo(0L);
        assertThat(scalar("select count(*) from provider_event where id = " + waiting))
                .as("a call the reconciliation has not read yet stays").isEqualTo(1L);
        // past the window the key is free again: a new job with it is sent
        assertThat(begin("claimed", "after-window")).isInstanceOf(Begin.Proceed.class);
    }

    @Test
    void anOrderingKeyGoesWithTheLastOfItsJobsUnlessItIsHeld() {
        long gone = keyed(sent("key-gone", null), "gone", 1);
        long older = keyed(sent("key-older", null), "kept", 1);
        long held = keyed(finished("key-held", JobState.dead_lettered), "held", 1);
        clock.offset(Duration.ofDays(29));
        long newer = keyed(sent("key-newer", null), "kept", 2);
        db.run(em -> em.createNativeQuery("insert into ordering_key (queue, ordering_key, last_seq) values"
                + " ('mail.send', ?1, 1), ('mail.send', ?2, 2), ('mail.send', ?3, 1)").setParameter(1, run + "gone")
                .setParameter(2, run + "kept").setParameter(3, run + "held").executeUpdate());
        db.run(em -> em.createNativeQuery("update ordering_key set held_after_seq = 1, held_reason = 'dead-lettered',"
                + " held_at = ?1 where ordering_key = ?2").setParameter(1, Timestamp.from(clock.instant()))
                .setParameter(2, run + "held").executeUpdate());

        clock.offset(Duration.ofDays(31));
        Map<String, Integer> removed = pass(clock.instant());

        assertThat(jobsPresent(List.of(gone, older, newer, held))).containsExactly(newer);
        assertThat(removed.get("ordering_key")).as("the keys whose last job went").isEqualTo(1);
        assertThat(scalar("select count(*) from ordering_key where ordering_key = '" + run + "gone'")).isEqualTo(0L);
        assertThat(scalar("select last_seq from ordering_key where ordering_key = '" + run + "kept'"))
                .as("a key with a job left keeps its places").isEqualTo(2L);
        assertThat(scalar("select count(*) from ordering_key where ordering_key = '" + run + "held'"))
                .as("a held key stays until an operator releases it").isEqualTo(1L);
    }

    /** Job {@code jobId} as the {@code seq}th of ordering key {@code key} (this run's) on mail.send. */
    private long keyed(long jobId, String key, long seq) {
        db.run(em -> em.createNativeQuery("update mail_job set ordering_key = ?1, key_seq = ?2 where id = ?3")
                .setParameter(1, run + key).setParameter(2, seq).setParameter(3, jobId).executeUpdate());
        return jobId;
    }

    @Test
    void aNodeWhoseLeaseMovedRemovesNothing() {
        long sent = sent("fenced", null);
        clock.offset(Duration.ofDays(31));
        fenceHolds = false;
        RetentionBatch.Removed removed = inTransaction(b -> b.jobs(SETTINGS, JobRetentionPolicy.cohorts(SETTINGS).get(0),
                clock.instant(), 500));
        assertThat(removed.fenced()).isTrue();
        assertThat(inTransaction(b -> b.expired(SETTINGS, clock.instant(), 500)).fenced()).isTrue();
        assertThat(jobsPresent(List.of(sent))).containsExactly(sent);
        fenceHolds = true;
        pass(clock.instant());
        assertThat(jobsPresent(List.of(sent))).isEmpty();
    }

    @Test
    void theOldestFinishedJobIsTheEarliestLastChangeAmongTheRemovableOnes() {
        long unknown = inState("oldest-unknown", JobState.unknown);
        long discarded = finished("oldest-discarded", JobState.discarded);
        long delivered = finished("oldest-delivered", JobState.delivered);
        lastChangedAt(unknown, "1999-01-01T00:00:00Z"); // not removable: not counted
        lastChangedAt(discarded, "2000-03-01T00:00:00Z");
        lastChangedAt(delivered, "2000-02-01T00:00:00Z");
        try {
            assertThat(inTransaction(RetentionBatch::oldestFinished)).isEqualTo(Instant.parse("2000-02-01T00:00:00Z"));
        } finally {
            // far ahead of every other test's clock: no pass of theirs removes these two
            lastChangedAt(discarded, "3000-01-01T00:00:00Z");
            lastChangedAt(delivered, "3000-01-01T00:00:00Z");
        }
    }

    void lastChangedAt(long jobId, String at) {
        db.run(em -> em.createNativeQuery("update mail_job set updated_at = ?1 where id = ?2")
                .setParameter(1, Timestamp.from(Instant.parse(at))).setParameter(2, jobId).executeUpdate());
    }

    /** Every cohort's batches, as {@link JobRetention#pass} runs them, with the rows removed added up. */
    private Map<String, Integer> pass(Instant now) {
        Map<String, Integer> total = new java.util.HashMap<>();
        for (JobRetentionPolicy.Cohort cohort : JobRetentionPolicy.cohorts(SETTINGS)) {
            RetentionBatch.Removed r;
            do {
                r = inTransaction(b -> b.jobs(SETTINGS, cohort, now, 2)); // small batches: several per cohort
                assertThat(r.fenced()).isFalse();
                r.rows().forEach((k, n) -> total.merge(k, n, Integer::sum));
            } while (r.of("job") == 2);
        }
        return total;
    }

    private <T> T inTransaction(java.util.function.Function<RetentionBatch, T> work) {
        return db.inTransaction(em -> {
            RetentionBatch b = new RetentionBatch();
            b.em = em;
            b.leases = new Leases() {
                @Override
                public boolean fenced(String name) {
                    assertThat(name).isEqualTo(JobRetention.LEASE);
                    return fenceHolds;
                }
            };
            return work.apply(b);
        });
    }

    private JobLedger ledger(jakarta.persistence.EntityManager em) {
        return Ledgers.on(em, clock);
    }

    private Begin begin(String key, String messageId) {
        String body = """
                {"schema_version": 1, "message_id": "%s", "idempotency_key": "%s", "from": "noreply@example.com",
                 "to": ["%s"], "subject": "s", "text": "t"%s}""".formatted(run + messageId, run + key,
                address(messageId), key.equals("reset") ? ", \"category\": \"password_reset\"" : "");
        Incoming in = new Incoming("mail.send", "ID:r-" + run + (++jms), false, 1, body.getBytes(StandardCharsets.UTF_8),
                true, null, null, null, null, null);
        SendJob job = ((ParseResult.Parsed) new JobParser().parse(in.body())).job();
        return db.inTransaction(em -> ledger(em).begin(in, job, SMTP, true));
    }

    /** Each job's own recipient, so a search for it finds that job's rows only. */
    private String address(String messageId) {
        return run + "-" + messageId + "@example.com";
    }

    private static Map<String, Long> whereIs(String text) {
        return db.inTransaction(em -> SchemaSearch.whereIs(em, text));
    }

    private long sent(String name, String category) {
        Begin.Proceed p = (Begin.Proceed) begin(category == null ? name : "reset", name);
        db.run(em -> ledger(em).recordSent(p, ProviderResponse.accepted("smtp", "250", "ok", "q-" + name)));
        return p.jobId();
    }

    private long finished(String name, JobState state) {
        Begin.Proceed p = (Begin.Proceed) begin(name, name);
        db.run(em -> ledger(em).finish(p.jobId(), state, state.name(), "finished for the test"));
        return p.jobId();
    }

    /** A job left in {@code state} (a state the send path leaves it in while it is not over). */
    private long inState(String name, JobState state) {
        long id = ((Begin.Proceed) begin(name, name)).jobId();
        db.run(em -> em.createNativeQuery("update mail_job set state = ?1 where id = ?2")
                .setParameter(1, state.name()).setParameter(2, id).executeUpdate());
        return id;
    }

    private void moveLastChange(long jobId) {
        db.run(em -> em.createNativeQuery("update mail_job set updated_at = ?1 where id = ?2")
                .setParameter(1, Timestamp.from(clock.instant())).setParameter(2, jobId).executeUpdate());
    }

    private long deadLetter(long jobId, String status, String recipient) {
        String messageId = "dl-" + run + "-" + jobId;
        return db.inTransaction(em -> {
            em.createNativeQuery("""
                    insert into dead_letter (consumer, message_id, job_id, source_queue, reason, failure_class, status,
                        payload, payload_size, payload_sha256, payload_truncated, first_seen_at, failed_at)
                    values ('mailroom', ?1, ?2, 'mail.send', 'retries_exhausted', 'transient', ?3, ?4, 2, 'sha', false,
                        ?5, ?5)""")
                    .setParameter(1, messageId).setParameter(2, jobId).setParameter(3, status)
                    .setParameter(4, ("{\"to\": [\"" + recipient + "\"]}").getBytes(StandardCharsets.UTF_8))
                    .setParameter(5, Timestamp.from(clock.instant())).executeUpdate();
            return ((Number) em.createNativeQuery("select id from dead_letter where message_id = ?1")
                    .setParameter(1, messageId).getSingleResult()).longValue();
        });
    }

    private long providerEvent(String status) {
        String key = "pe-" + run + "-" + status;
        return db.inTransaction(em -> {
            em.createNativeQuery("""
                    insert into provider_event (profile, dedupe_key, received_at, body, status)
                    values ('postmark', ?1, ?2, ?3, ?4)""")
                    .setParameter(1, key).setParameter(2, Timestamp.from(clock.instant()))
                    .setParameter(3, "{}".getBytes()).setParameter(4, status).executeUpdate();
            return ((Number) em.createNativeQuery("select id from provider_event where dedupe_key = ?1")
                    .setParameter(1, key).getSingleResult()).longValue();
        });
    }

    /** Rows of {@code jobs} in mail_job and in each table hanging off it. */
    /** The jobs' own rows, then every column of the schema that points at a job, to the rows pointing at these. */
    private Map<String, Long> rowsOf(List<Long> jobs) {
        String ids = String.join(",", jobs.stream().map(String::valueOf).toList());
        Map<String, Long> rows = new java.util.TreeMap<>();
        rows.put("mail_job", (Long) scalar("select count(*) from mail_job where id in (" + ids + ")"));
        rows.putAll(db.inTransaction(em -> SchemaSearch.referencesTo(em, "mail_job", "job_id", jobs)));
        return rows;
    }

    private List<Long> jobsPresent(List<Long> jobs) {
        String ids = String.join(",", jobs.stream().map(String::valueOf).toList());
        return db.inTransaction(em -> em.createNativeQuery("select id from mail_job where id in (" + ids + ")")
                .getResultList().stream().map(o -> ((Number) o).longValue()).toList());
    }

    private List<String> timeline(long jobId) {
        return db.inTransaction(em -> em.createQuery("select e.detail from JobEvent e where e.jobId = :j", String.class)
                .setParameter("j", jobId).getResultList());
    }

    private static Object scalar(String sql) {
        return db.inTransaction(em -> {
            Object o = em.createNativeQuery(sql).getSingleResult();
            return o instanceof Number n ? (Object) n.longValue() : o;
        });
    }
}
