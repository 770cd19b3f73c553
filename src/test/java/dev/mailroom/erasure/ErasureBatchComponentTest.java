package dev.mailroom.erasure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.job.Begin;
import dev.mailroom.job.HeldSend;
import dev.mailroom.job.Incoming;
import dev.mailroom.job.JobAttempt;
import dev.mailroom.job.JobEvent;
import dev.mailroom.job.JobParser;
import dev.mailroom.job.JobRecipient;
import dev.mailroom.job.JobState;
import dev.mailroom.job.Ledgers;
import dev.mailroom.job.MailJob;
import dev.mailroom.job.ParseResult;
import dev.mailroom.job.SendJob;
import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.recoverability.ProviderTraits;
import dev.mailroom.testsupport.ComponentDatabase;
import dev.mailroom.ops.testing.SchemaSearch;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link Erasure} with {@link ErasureBatch} on the real migrations (H2 here, PostgreSQL in the subclass), each batch
 * in a transaction of its own: an address in sent jobs, a dead letter, a suppression and webhook calls is found
 * nowhere afterwards by a search of every column of the schema ({@link SchemaSearch}), the next job to it is still
 * suppressed, the audit row holds counts and no address, a second request is a no-op, and an erasure a crash
 * stopped after its first batch is finished by the next request.
 */
class ErasureBatchComponentTest {

    static final List<Class<?>> ENTITIES = List.of(MailJob.class, JobAttempt.class, JobEvent.class, HeldSend.class,
            JobRecipient.class);
    private static final ProviderTraits SMTP = new ProviderTraits("smtp", false);
    static ComponentDatabase db;

    private final Clock clock = Clock.fixed(Instant.parse("2030-01-01T10:00:00Z"), ZoneOffset.UTC);
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private final String address = "Alice-" + run + "@Example.com";
    private final String normalised = address.toLowerCase();
    private int jms;
    /** Batches before a simulated crash; negative: none. */
    private int crashAfter = -1;

    @BeforeAll
    static void database() {
        db = ComponentDatabase.h2(ENTITIES);
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @Test
    void anErasedAddressIsFoundNowhereStaysSuppressedAndASecondRequestIsANoOp() {
        long sent = sent("sent-1", address);
        sent("sent-2", "Alice <" + address.toUpperCase() + ">");
        long other = sent("other", "bob-" + run + "@example.com");
        long dead = finished("dead", address, JobState.dead_lettered);
        long deadLetter = deadLetter(dead, "open");
        suppress();
        long applied = providerEvent("applied");
        long waiting = providerEvent("received");
        db.run(em -> em.createNativeQuery("update job_event set detail = ?1 where id = (select min(id) from job_event where job_id = ?2)")
                .setParameter(1, "a note about " + address).setParameter(2, other).executeUpdate());
        assertThat(whereIs(normalised)).containsKeys("job_recipient.address", "dead_letter.payload",
                "suppression.address", "provider_event.body", "job_event.detail");

        ErasureRecord r = erasure().erase(" " + address + " ", "operator", "data-protection request 42");

        assertThat(whereIs(normalised)).as("where the address is, in any column of any table").isEmpty();
        assertThat(r.noOp()).isFalse();
        assertThat(r.state()).isEqualTo("done");
        assertThat(r.counts()).containsEntry("mail_job.deleted", 3L).containsEntry("dead_letter.discarded", 1L)
                .containsEntry("suppression.hashed", 1L).containsEntry("provider_event.deleted", 1L)
                .containsEntry("provider_event.marked", 1L).containsEntry("job_event.marked", 1L);
        assertThat(r.addressSha256()).isEqualTo(JobRecipient.sha256(normalised));
        assertThat(scalar("select status from dead_letter where id = " + deadLetter)).isEqualTo("discarded");
        assertThat(scalar("select count(*) from mail_job where id in (" + sent + ", " + dead + ")")).isEqualTo(0L);
        assertThat(scalar("select count(*) from mail_job where id = " + other)).isEqualTo(1L);
        assertThat(scalar("select count(*) from provider_event where id = " + applied)).isEqualTo(0L);
        assertThat(scalar("select status from provider_event where id = " + waiting)).isEqualTo("received");
        assertThat(scalar("select count(*) from erasure where reason = 'data-protection request 42' and state = 'done'"))
                .isEqualTo(1L);

        // a second request: nothing left, a no-op, the record unchanged
        ErasureRecord again = erasure().erase(address, "operator", "asked twice");
        assertThat(again.noOp()).isTrue();
        assertThat(again.counts()).isEqualTo(r.counts());
        assertThat(whereIs(normalised)).isEmpty();

        // the next job to it: withheld by the hashed entry
        Begin next = begin("after", address);
        assertThat(next).isInstanceOf(Begin.Suppressed.class);
        // the address came back with it: a request now erases that job too
        ErasureRecord third = erasure().erase(address, "operator", "it came back");
        assertThat(third.noOp()).isFalse();
        assertThat(third.counts().get("mail_job.deleted")).isEqualTo(4L);
        assertThat(whereIs(normalised)).isEmpty();
        assertThat(scalar("select count(*) from erasure where address_sha256 = '" + r.addressSha256() + "'")).isEqualTo(1L);
    }

    @Test
    void anErasureStoppedByACrashIsFinishedByTheNextRequest() {
        sent("crash-1", address);
        sent("crash-2", address);
        crashAfter = 3; // the dead letter, revision and held-send tables: the jobs are untouched
        try {
            erasure().erase(address, "operator", "crash test");
        } catch (IllegalStateException expected) {
            // the node stopped
        }
        assertThat(scalar("select state from erasure where address_sha256 = '" + JobRecipient.sha256(normalised) + "'"))
                .isEqualTo("running");
        assertThat(whereIs(normalised)).containsKey("job_recipient.address");
        crashAfter = -1;
        ErasureRecord r = erasure().erase(address, "operator", "crash test");
        assertThat(r.state()).isEqualTo("done");
        assertThat(r.runs()).isEqualTo(2);
        assertThat(r.counts()).containsEntry("mail_job.deleted", 2L);
        assertThat(whereIs(normalised)).isEmpty();
    }

    private Erasure erasure() {
        Erasure e = new Erasure();
        e.clock = clock;
        e.batches = new ErasureBatch() {
            private int batches;

            @Override
            public ErasureRecord start(String sha256, String actor, String reason, Instant now) {
                return db.inTransaction(em -> batch(em).start(sha256, actor, reason, now));
            }

            @Override
            public Page page(String sha256, ErasureTarget t, String a, Object after, int size, String actor, String why) {
                if (crashAfter >= 0 && batches++ >= crashAfter) {
                    throw new IllegalStateException("crash");
                }
                return db.inTransaction(em -> batch(em).page(sha256, t, a, after, 2, actor, why)); // small batches
            }

            @Override
            public ErasureRecord finish(String sha256, Instant now) {
                return db.inTransaction(em -> batch(em).finish(sha256, now));
            }
        };
        return e;
    }

    private static ErasureBatch batch(jakarta.persistence.EntityManager em) {
        ErasureBatch b = new ErasureBatch();
        b.em = em;
        // as DeadLetterActions.transition records it (its DLQ copy is the broker's, not here)
        b.discards = (id, actor, why) -> {
            em.createNativeQuery("update dead_letter set status = 'discarded' where id = ?1").setParameter(1, id)
                    .executeUpdate();
            em.createNativeQuery("""
                    insert into dead_letter_event (dead_letter_id, at, from_status, to_status, actor, reason)
                    values (?1, current_timestamp, 'open', 'discarded', ?2, ?3)""")
                    .setParameter(1, id).setParameter(2, actor).setParameter(3, why).executeUpdate();
        };
        return b;
    }

    private Begin begin(String messageId, String to) {
        String body = """
                {"schema_version": 1, "message_id": "%s", "from": "noreply@example.com",
                 "to": ["%s"], "subject": "hello %s", "text": "t"}""".formatted(run + messageId, to, to);
        Incoming in = new Incoming("mail.send", "ID:e-" + run + (++jms), false, 1, body.getBytes(StandardCharsets.UTF_8),
                true, null, null, null, null, null);
        SendJob job = ((ParseResult.Parsed) new JobParser().parse(in.body())).job();
        return db.inTransaction(em -> Ledgers.on(em, clock).begin(in, job, SMTP, true));
    }

    private long sent(String name, String to) {
        Begin.Proceed p = (Begin.Proceed) begin(name, to);
        db.run(em -> Ledgers.on(em, clock).recordSent(p, ProviderResponse.accepted("smtp", "250", "ok for " + to, "q-" + name)));
        return p.jobId();
    }

    private long finished(String name, String to, JobState state) {
        Begin.Proceed p = (Begin.Proceed) begin(name, to);
        db.run(em -> Ledgers.on(em, clock).finish(p.jobId(), state, state.name(), "finished for the test"));
        return p.jobId();
    }

    private long deadLetter(long jobId, String status) {
        String messageId = "dl-" + run + "-" + jobId;
        return db.inTransaction(em -> {
            em.createNativeQuery("""
                    insert into dead_letter (consumer, message_id, job_id, source_queue, reason, failure_class, status,
                        payload, payload_size, payload_sha256, payload_truncated, first_seen_at, failed_at, error)
                    values ('mailroom', ?1, ?2, 'mail.send', 'retries_exhausted', 'transient', ?3, ?4, 2, 'sha', false,
                        ?5, ?5, ?6)""")
                    .setParameter(1, messageId).setParameter(2, jobId).setParameter(3, status)
                    .setParameter(4, ("{\"to\": [\"" + address + "\"]}").getBytes(StandardCharsets.UTF_8))
                    .setParameter(5, Timestamp.from(clock.instant()))
                    .setParameter(6, "550 5.1.1 <" + address + ">: no such user").executeUpdate();
            return ((Number) em.createNativeQuery("select id from dead_letter where message_id = ?1")
                    .setParameter(1, messageId).getSingleResult()).longValue();
        });
    }

    private void suppress() {
        db.run(em -> em.createNativeQuery("""
                insert into suppression (tenant, address, reason, cause, created_by, created_at, active_key)
                values (null, ?1, 'hard_bounce', ?2, 'reconciliation', ?3, ?4)""")
                .setParameter(1, normalised).setParameter(2, "hard_bounce of " + address)
                .setParameter(3, Timestamp.from(clock.instant()))
                .setParameter(4, ErasureBatch.suppressionKey(null, normalised)).executeUpdate());
    }

    private long providerEvent(String status) {
        String key = "pe-" + run + "-" + status;
        return db.inTransaction(em -> {
            em.createNativeQuery("""
                    insert into provider_event (profile, dedupe_key, received_at, body, status)
                    values ('postmark', ?1, ?2, ?3, ?4)""")
                    .setParameter(1, key).setParameter(2, Timestamp.from(clock.instant()))
                    .setParameter(3, ("{\"Recipient\": \"" + address + "\"}").getBytes(StandardCharsets.UTF_8))
                    .setParameter(4, status).executeUpdate();
            return ((Number) em.createNativeQuery("select id from provider_event where dedupe_key = ?1")
                    .setParameter(1, key).getSingleResult()).longValue();
        });
    }

    private static java.util.Map<String, Long> whereIs(String text) {
        return db.inTransaction(em -> SchemaSearch.whereIs(em, text));
    }

    private static Object scalar(String sql) {
        return db.inTransaction(em -> {
            Object o = em.createNativeQuery(sql).getSingleResult();
            return o instanceof Number n ? (Object) n.longValue() : o;
        });
    }
}
