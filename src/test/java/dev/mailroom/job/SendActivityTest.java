package dev.mailroom.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.testsupport.ComponentDatabase;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's last hour per send queue ({@code GET /api/v1/queues}): the pure folding and the id floor that keeps
 * the query a primary-key range, then the real query on H2 with the real migrations.
 */
class SendActivityTest {

    private static final Instant NOW = Instant.parse("2030-01-01T10:00:00Z");
    static ComponentDatabase db;

    @BeforeAll
    static void database() {
        db = ComponentDatabase.h2(JobLedgerComponentTest.ENTITIES);
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @Test
    void foldsOutcomesAndClassesPerQueue() {
        Map<String, SendActivity.QueueActivity> a = SendActivity.summarise(List.of(
                new SendActivity.Row("mail.send", "accepted", null, 30, 10),
                new SendActivity.Row("mail.send", "rejected", "transient", 4, 1),
                new SendActivity.Row("mail.send", "not_connected", "transient", 2, 0),
                new SendActivity.Row("mail.send", "ambiguous", null, 1, 0),
                new SendActivity.Row("mail.send.bulk", "rejected", "systemic", 3, 3)));
        assertThat(a.get("mail.send")).isEqualTo(new SendActivity.QueueActivity(30, 7,
                Map.of("transient", 6L, "unclassified", 1L), 2.0));
        assertThat(a.get("mail.send.bulk")).isEqualTo(new SendActivity.QueueActivity(0, 3, Map.of("systemic", 3L), 0));
    }

    @Test
    void theFloorIsTheIdNotedLongEnoughBeforeTheWindow() {
        TreeMap<Instant, Long> notes = new TreeMap<>();
        assertThat(SendActivity.floor(notes, NOW.minus(SendActivity.WINDOW))).as("nothing noted: read all").isZero();
        SendActivity.note(notes, NOW.minusSeconds(7200), 100);
        SendActivity.note(notes, NOW.minusSeconds(4600), 200);   // 16 min 40 s before the window starts
        SendActivity.note(notes, NOW.minusSeconds(4000), 300);   // 6 min 40 s before: too close, a slow attempt may
        SendActivity.note(notes, NOW.minusSeconds(3990), 999);   // (10 s after the last note: not noted)
        assertThat(notes).doesNotContainValue(999L);
        assertThat(SendActivity.floor(notes, NOW.minus(SendActivity.WINDOW))).isEqualTo(200);
        SendActivity.note(notes, NOW, 400);
        assertThat(notes).as("the 2 h old note is of no use any more").doesNotContainKey(NOW.minusSeconds(7200))
                .containsKey(NOW.minusSeconds(4600));
    }

    @Test
    void countsTheLastHoursFinishedAttemptsOfEachQueue() {
        long job = job("mail.send", "act-1");
        long bulk = job("mail.send.bulk", "act-2");
        attempt(job, 1, "accepted", null, NOW.minusSeconds(60));         // in the rate window
        attempt(job, 2, "accepted", null, NOW.minusSeconds(1800));
        attempt(job, 3, "rejected", "transient", NOW.minusSeconds(120));
        attempt(job, 4, "accepted", null, NOW.minusSeconds(3700));       // before the hour: not counted
        attempt(job, 5, null, null, null);                               // still running: not counted
        attempt(bulk, 1, "rejected", "systemic", NOW.minusSeconds(10));

        Map<String, SendActivity.QueueActivity> a = db.inTransaction(em -> {
            SendActivity activity = new SendActivity();
            activity.em = em;
            return activity.lastHour(NOW);
        });
        assertThat(a.get("mail.send")).isEqualTo(new SendActivity.QueueActivity(2, 1, Map.of("transient", 1L), 0.2));
        assertThat(a.get("mail.send.bulk")).isEqualTo(new SendActivity.QueueActivity(0, 1, Map.of("systemic", 1L), 0));
    }

    private static long job(String queue, String messageId) {
        return db.inTransaction(em -> {
            em.createNativeQuery("insert into mail_job (queue, message_id, idempotency_key, state, received_at, updated_at)"
                    + " values (?1, ?2, ?2, 'sent', ?3, ?3)").setParameter(1, queue).setParameter(2, messageId)
                    .setParameter(3, Timestamp.from(NOW.minusSeconds(7200))).executeUpdate();
            return ((Number) em.createNativeQuery("select id from mail_job where message_id = ?1")
                    .setParameter(1, messageId).getSingleResult()).longValue();
        });
    }

    private static void attempt(long jobId, int number, String outcome, String failureClass, Instant finishedAt) {
        db.run(em -> em.createNativeQuery("insert into job_attempt (job_id, attempt_number, provider, started_at,"
                        + " finished_at, outcome, failure_class) values (?1, ?2, 'smtp', ?3, ?4, ?5, ?6)")
                .setParameter(1, jobId).setParameter(2, number)
                .setParameter(3, Timestamp.from(finishedAt == null ? NOW : finishedAt.minusSeconds(1)))
                .setParameter(4, finishedAt == null ? null : Timestamp.from(finishedAt))
                .setParameter(5, outcome).setParameter(6, failureClass).executeUpdate());
    }
}
