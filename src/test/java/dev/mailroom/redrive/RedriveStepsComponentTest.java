package dev.mailroom.redrive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.deadletter.DeadLetter;
import dev.mailroom.deadletter.DeadLetterActions;
import dev.mailroom.deadletter.DeadLetterCounts;
import dev.mailroom.deadletter.DeadLetterEvent;
import dev.mailroom.ops.testing.MovableClock;
import dev.mailroom.platform.Refused;
import dev.mailroom.testsupport.ComponentDatabase;
import jakarta.persistence.EntityManager;
import java.lang.reflect.Field;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Component test of the redrive steps that run on the database alone, on H2 (PostgreSQL mode, the real
 * migrations) through Hibernate, each step in a real transaction of its own: a run claims what is
 * still as planned and skips what changed, ends by releasing what it did not publish, and never does an
 * entry twice. Publishing itself (republish + DLQ copy removal over the broker in one XA transaction)
 * needs a broker and a JTA manager: the redrive ITs cover it.
 */
class RedriveStepsComponentTest {

    private static final Instant T0 = Instant.parse("2030-01-01T10:00:00Z");
    private static final MovableClock CLOCK = new MovableClock(Clock.fixed(T0, ZoneOffset.UTC));
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static ComponentDatabase db;

    @BeforeAll
    static void database() {
        db = ComponentDatabase.h2(List.of(DeadLetter.class, DeadLetterEvent.class, DeadLetterRevision.class,
                Redrive.class, RedriveEntry.class));
    }

    @AfterAll
    static void close() {
        db.close();
    }

    /** The steps on one transaction's entity manager; no job rows here, so no ledger is needed. */
    private static RedriveSteps steps(EntityManager em) {
        DeadLetterActions actions = new DeadLetterActions();
        set(actions, "em", em);
        set(actions, "clock", CLOCK);
        set(actions, "counts", counts(em));
        RedriveSteps steps = new RedriveSteps();
        steps.em = em;
        steps.actions = actions;
        steps.counts = counts(em);
        steps.clock = CLOCK;
        return steps;
    }

    private static DeadLetterCounts counts(EntityManager em) {
        DeadLetterCounts counts = new DeadLetterCounts();
        set(counts, "em", em);
        return counts;
    }

    private static void set(Object target, String field, Object value) {
        try {
            Field f = target.getClass().getDeclaredField(field);
            f.setAccessible(true);
            f.set(target, value);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An open dead letter of mail.send, as the recorder leaves it. */
    private static long openDeadLetter(Instant failedAt) {
        String messageId = "m-" + SEQUENCE.incrementAndGet();
        return db.inTransaction(em -> {
            em.createNativeQuery("""
                    insert into dead_letter (consumer, message_id, source_queue, reason, failure_class, status,
                        payload, payload_size, payload_sha256, payload_truncated, first_seen_at, failed_at)
                    values ('mailroom', ?1, 'mail.send', 'retries_exhausted', 'transient', 'open', ?2, 2, 'sha', false,
                        ?3, ?3)""")
                    .setParameter(1, messageId).setParameter(2, "{}".getBytes())
                    .setParameter(3, Timestamp.from(failedAt)).executeUpdate();
            long id = ((Number) em.createNativeQuery("select id from dead_letter where message_id = ?1")
                    .setParameter(1, messageId).getSingleResult()).longValue();
            // counted as the recorder counts what it writes, so the transitions find their group
            counts(em).apply(null, DeadLetterCounts.Counted.of(em.find(DeadLetter.class, id)));
            return id;
        });
    }

    /** A planned replay run over {@code deadLetters}, each entry frozen as the dead letter is now. */
    private static String plan(List<Long> deadLetters) {
        String id = UUID.randomUUID().toString();
        db.run(em -> {
            em.createNativeQuery("""
                    insert into redrive (id, action, status, created_by, created_at, filter_json, sample_size,
                        sample_rate, rate, sample_timeout, cohort_count)
                    values (?1, 'replay', 'planned', 'ops', ?2, '{}', 0, 1, 10, 'PT1M', ?3)""")
                    .setParameter(1, id).setParameter(2, Timestamp.from(T0)).setParameter(3, deadLetters.size())
                    .executeUpdate();
            int position = 0;
            for (long d : deadLetters) {
                em.createNativeQuery("""
                        insert into redrive_entry (redrive_id, dead_letter_id, position, phase, message_id,
                            source_queue, reason, failure_class, failed_at, lap, planned_revision, outcome)
                        select ?1, id, ?2, 'remainder', message_id, source_queue, reason, failure_class, failed_at,
                            lap, 0, 'pending' from dead_letter where id = ?3""")
                        .setParameter(1, id).setParameter(2, position++).setParameter(3, d).executeUpdate();
            }
        });
        return id;
    }

    private static DeadLetter deadLetter(long id) {
        return db.inTransaction(em -> em.find(DeadLetter.class, id));
    }

    private static RedriveEntry entry(String redrive, long deadLetter) {
        return db.inTransaction(em -> em.createQuery(
                        "select e from RedriveEntry e where e.redriveId = :r and e.deadLetterId = :d", RedriveEntry.class)
                .setParameter("r", redrive).setParameter("d", deadLetter).getSingleResult());
    }

    private static Redrive.Status status(String run) {
        return db.inTransaction(em -> em.find(Redrive.class, run).statusValue());
    }

    private static List<String> history(long deadLetter) {
        return db.inTransaction(em -> em.createNativeQuery(
                        "select to_status from dead_letter_event where dead_letter_id = ?1 order by id")
                .setParameter(1, deadLetter).getResultList().stream().map(Object::toString).toList());
    }

    @Test
    void aRunClaimsWhatIsStillAsPlannedAndSkipsWhatChanged() {
        long unchanged = openDeadLetter(T0.minusSeconds(60));
        long failedAgain = openDeadLetter(T0.minusSeconds(60));
        String run = plan(List.of(unchanged, failedAgain));
        // after planning, the second one fails again (a later failure updates its row)
        db.run(em -> em.createNativeQuery("update dead_letter set failed_at = ?1 where id = ?2")
                .setParameter(1, Timestamp.from(T0)).setParameter(2, failedAgain).executeUpdate());

        db.run(em -> steps(em).start(run, "ops", "node-1", false));

        assertThat(deadLetter(unchanged).getStatus()).isEqualTo("replaying");
        assertThat(deadLetter(unchanged).getRedriveId()).isEqualTo(run);
        assertThat(entry(run, unchanged).outcomeValue()).isEqualTo(RedriveEntry.Outcome.pending);
        assertThat(deadLetter(failedAgain).getStatus()).isEqualTo("open");
        assertThat(entry(run, failedAgain).outcomeValue()).isEqualTo(RedriveEntry.Outcome.skipped_changed);
        assertThat(history(unchanged)).containsExactly("replaying");
        assertThat(history(failedAgain)).isEmpty();
    }

    @Test
    void aSecondRunOnAnOverlappingCohortFindsTheEntryTaken() {
        long d = openDeadLetter(T0.minusSeconds(30));
        String first = plan(List.of(d));
        String second = plan(List.of(d));
        db.run(em -> steps(em).start(first, "ops", "node-1", false));
        db.run(em -> steps(em).start(second, "ops", "node-1", false));

        assertThat(deadLetter(d).getRedriveId()).isEqualTo(first);
        assertThat(entry(second, d).outcomeValue()).isEqualTo(RedriveEntry.Outcome.skipped_changed);
        assertThat(entry(second, d).getDetail()).contains("replaying").contains(first);
    }

    @Test
    void aPlanRunsOnceAndOnlyAnInterruptedRunResumes() {
        String run = plan(List.of(openDeadLetter(T0.minusSeconds(10))));
        db.run(em -> steps(em).start(run, "ops", "node-1", false));
        assertThatThrownBy(() -> db.run(em -> steps(em).start(run, "ops", "node-1", false)))
                .isInstanceOf(Refused.Conflict.class).hasMessageContaining("a plan runs once");
        assertThatThrownBy(() -> db.run(em -> steps(em).start(run, "ops", "node-1", true)))
                .isInstanceOf(Refused.Conflict.class).hasMessageContaining("only an interrupted run can be resumed");

        int interrupted = db.inTransaction(em -> steps(em).interruptRunsOf("node-1"));
        assertThat(interrupted).isGreaterThanOrEqualTo(1);
        db.run(em -> steps(em).start(run, "ops", "node-2", true));
        assertThat(status(run)).isEqualTo(Redrive.Status.running);
    }

    /**
     * node-1 stopped (a long pause) while node-2 took its run over: node-1's runner, going on where it stopped,
     * publishes nothing, completes nothing, ends nothing and leaves the phases as node-2 wrote them.
     */
    @Test
    void aRunTakenOverByAnotherNodeGetsNoWriteFromTheNodeThatLostIt() {
        long d = openDeadLetter(T0.minusSeconds(30));
        String run = plan(List.of(d));
        db.run(em -> steps(em).start(run, "ops", "node-1", false));
        db.inTransaction(em -> steps(em).interruptRunsOf("node-1"));
        db.run(em -> steps(em).start(run, "redrive-takeover", "node-2", true));
        db.run(em -> steps(em).phases(run, "[\"node-2's\"]", "node-2"));

        RedriveRules.Carrier carrier = db.inTransaction(em -> steps(em).carrier(run, "node-1"));
        assertThat(carrier).isEqualTo(new RedriveRules.Carrier.Elsewhere("node-2"));
        // no broker is wired here: a publish that went ahead would fail the test
        db.run(em -> steps(em).publish(run, entry(run, d).getId(), "ops", "node-1"));
        db.run(em -> steps(em).phases(run, "[\"node-1's\"]", "node-1"));
        db.run(em -> steps(em).complete(run, "node-1"));
        db.run(em -> steps(em).endHere(run, Redrive.Status.stopped, "internal error", "ops", "node-1"));

        assertThat(entry(run, d).outcomeValue()).isEqualTo(RedriveEntry.Outcome.pending);
        assertThat(deadLetter(d).getStatus()).isEqualTo("replaying");
        assertThat(status(run)).isEqualTo(Redrive.Status.running);
        String phases = db.inTransaction(em -> em.find(Redrive.class, run).getPhasesJson());
        assertThat(phases).isEqualTo("[\"node-2's\"]");
        db.run(em -> steps(em).complete(run, "node-2"));
        assertThat(status(run)).isEqualTo(Redrive.Status.completed);
    }

    @Test
    void endingARunReleasesWhatItDidNotPublishAndAnEndedEntryIsNeverDoneAgain() {
        long d = openDeadLetter(T0.minusSeconds(20));
        String run = plan(List.of(d));
        db.run(em -> steps(em).start(run, "ops", "node-1", false));

        db.run(em -> steps(em).end(run, Redrive.Status.stopped, "sample failed", "ops"));

        assertThat(deadLetter(d).getStatus()).isEqualTo("open");
        assertThat(deadLetter(d).getRedriveId()).isNull();
        assertThat(entry(run, d).outcomeValue()).isEqualTo(RedriveEntry.Outcome.not_run);
        assertThat(history(d)).containsExactly("replaying", "open");
        assertThat(status(run)).isEqualTo(Redrive.Status.stopped);

        // publishing it now is a no-op: no broker is wired here, so any attempt to send would fail the test
        db.run(em -> steps(em).publish(run, entry(run, d).getId(), "ops", "node-1"));
        assertThat(entry(run, d).outcomeValue()).isEqualTo(RedriveEntry.Outcome.not_run);
        assertThat(deadLetter(d).getStatus()).isEqualTo("open");
    }
}
