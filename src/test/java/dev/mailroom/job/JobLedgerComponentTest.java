package dev.mailroom.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.mailroom.ops.testing.MovableClock;
import dev.mailroom.platform.Refused;
import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.recoverability.AttemptHistory;
import dev.mailroom.recoverability.Failure;
import dev.mailroom.recoverability.FailureClass;
import dev.mailroom.recoverability.LateOutcomePolicy;
import dev.mailroom.recoverability.ProviderTraits;
import dev.mailroom.recoverability.RecoveryAction;
import dev.mailroom.testsupport.ComponentDatabase;
import jakarta.persistence.EntityManager;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Component test of the ledger in the transactional middle: the real {@link JobLedger} on H2 (PostgreSQL
 * mode, the real migrations) through Hibernate, each call in a real transaction of its own session.
 * It proves what the admission and claim tables decide is what gets recorded, and that two consumers
 * claiming one key at once, in two real sessions, end with exactly one sending.
 */
class JobLedgerComponentTest {

    private static final ProviderTraits SMTP = new ProviderTraits("smtp", false);
    private static final ProviderTraits HTTP = new ProviderTraits("http", true);
    private static final MovableClock CLOCK = new MovableClock(Clock.fixed(Instant.parse("2030-01-01T10:00:00Z"), ZoneOffset.UTC));
    static final List<Class<?>> ENTITIES = List.of(MailJob.class, JobAttempt.class, JobEvent.class, HeldSend.class, JobRecipient.class);
    static ComponentDatabase db;
    /** How many sessions wait on another one's lock, in this database's own words. */
    static String blockedSessions;
    private static int jms;

    @BeforeAll
    static void database() {
        db = ComponentDatabase.h2(ENTITIES);
        blockedSessions = "select count(*) from information_schema.sessions where blocker_id is not null";
    }

    @AfterAll
    static void close() {
        db.close();
    }

    private static JobLedger ledger(EntityManager em) {
        JobLedger l = new JobLedger();
        l.em = em;
        l.clock = CLOCK;
        l.validity = new ValidityWindow(k -> Optional.empty());
        return l;
    }

    private static String body(String messageId, String key, Instant expiresAt) {
        return """
                {"schema_version": 1, "message_id": "%s", "idempotency_key": "%s", "from": "noreply@example.com",
                 "to": ["alice@example.com"], "subject": "s", "text": "t"%s}""".formatted(messageId, key,
                expiresAt == null ? "" : ", \"expires_at\": \"" + expiresAt + "\"");
    }

    private static Incoming delivery(String body) {
        return new Incoming("mail.send", "ID:c-" + (++jms), false, 1, body.getBytes(StandardCharsets.UTF_8), true,
                null, null, null, null, null);
    }

    private static Incoming redelivery(Incoming in) {
        return new Incoming(in.queue(), in.jmsMessageId(), true, in.deliveryCount() + 1, in.body(), in.textMessage(),
                null, null, null, null, null);
    }

    private static SendJob job(Incoming in) {
        return ((ParseResult.Parsed) new JobParser().parse(in.body())).job();
    }

    private static Begin begin(Incoming in, ProviderTraits p) {
        return db.inTransaction(em -> ledger(em).begin(in, job(in), p, true));
    }

    private static MailJob jobRow(long id) {
        return db.inTransaction(em -> em.find(MailJob.class, id));
    }

    private static List<String> timeline(long jobId) {
        return db.inTransaction(em -> em.createQuery("select e.type from JobEvent e where e.jobId = :j order by e.id",
                String.class).setParameter("j", jobId).getResultList());
    }

    private static long claimOwner(String key) {
        return db.inTransaction(em -> ((Number) em.createNativeQuery(
                "select job_id from send_claim where idempotency_key = ?1").setParameter(1, key).getSingleResult()).longValue());
    }

    /** A job that claimed {@code key}, failed definitely (451) and was then discarded as expired: it never reached a provider. */
    private static long discardedUnsent(String messageId, String key) {
        Incoming in = delivery(body(messageId, key, null));
        Begin.Proceed p = (Begin.Proceed) begin(in, SMTP);
        ProviderResponse refused = new ProviderResponse(ProviderResponse.Status.REJECTED, "smtp", "451", "4.3.0",
                "try later", null, null, null);
        db.run(em -> {
            JobLedger l = ledger(em);
            l.recordFailure(p, refused, Failure.of(FailureClass.TRANSIENT, refused), new RecoveryAction.Discard("expired"), true);
            l.finish(p.jobId(), JobState.discarded, "discarded", "expired");
        });
        return p.jobId();
    }

    /**
     * What the success path of a new job costs the database, as the sandbox runs it (past its point of no return from
     * the start): the admission 8 statements (insert the job, lock it, claim the key, read the suppression list, the
     * recipient, the attempt, the timeline's two entries in one insert, the job's one update; 9 before they shared an
     * insert), the acceptance 3 (the job, the attempt, the entry: nothing read back, nothing left to flush; 4 and a
     * flush before). Counted by Hibernate, bootstrapped natively here: under WildFly (a JPA bootstrap) a native
     * statement whose tables are not declared also flushes the session first, which the server's figures show
     * (bench/README.md, "Where a job's CPU goes"). The timeline keeps the order things happened in.
     */
    /**
     * The sandbox's plan (admission and outcome in the delivery's one transaction): the admission leaves its timeline
     * entries and its change of the job's row to the outcome, so a new job costs 9 statements without the provider's
     * (insert the job, lock it, claim the key, read the suppression list, the recipient, the attempt; then the row's one
     * update, the attempt's, and one insert for the whole timeline), where the two steps on their own take 11. The
     * committed records are those of the steps on their own, in the same order.
     */
    @Test
    void inTheDeliveryANewJobsAdmissionAndAcceptanceCostNineStatementsAndKeepTheirOrder() {
        Incoming in = delivery(body("cost-td", "cost-td", null));
        long statements = db.statementsPrepared();
        Begin.Proceed p = db.inTransaction(em -> {
            JobLedger l = ledger(em);
            Begin.Proceed begun = (Begin.Proceed) l.beginInTheDelivery(in, job(in), HTTP, true, true);
            l.recordSentInTheDelivery(begun, ProviderResponse.accepted("http", "202", "queued", "pm-td"));
            return begun;
        });
        assertThat(db.statementsPrepared() - statements).as("statements of admission and acceptance").isEqualTo(9);

        JobAttempt attempt = db.inTransaction(em -> em.find(JobAttempt.class, p.attemptId()));
        assertThat(attempt.getOutcome()).isEqualTo("accepted");
        assertThat(attempt.getIrrevocableAt()).isEqualTo(CLOCK.instant());
        assertThat(attempt.getFinishedAt()).isEqualTo(CLOCK.instant());
        MailJob row = jobRow(p.jobId());
        assertThat(row.getState()).isEqualTo(JobState.sent_to_provider);
        assertThat(row.getProviderMessageId()).isEqualTo("pm-td");
        assertThat(row.getJmsMessageId()).isEqualTo(in.jmsMessageId());
        assertThat(row.getAttemptCount()).isEqualTo(1);
        assertThat(timeline(p.jobId())).containsExactly("received", "attempt_started", "sent");
    }

    /** A failed attempt in the delivery's transaction writes the admission's entries before its own, once. */
    @Test
    void inTheDeliveryAFailedAttemptWritesTheAdmissionsEntriesFirst() {
        Incoming in = delivery(body("fail-td", "fail-td", null));
        ProviderResponse refused = new ProviderResponse(ProviderResponse.Status.REJECTED, "http", "451", null,
                "try later", null, null, null);
        Begin.Proceed p = db.inTransaction(em -> {
            JobLedger l = ledger(em);
            Begin.Proceed begun = (Begin.Proceed) l.beginInTheDelivery(in, job(in), HTTP, true, true);
            l.recordFailureInTheDelivery(begun, refused, Failure.of(FailureClass.TRANSIENT, refused),
                    new RecoveryAction.Discard("expired"), true);
            l.finish(begun.jobId(), JobState.discarded, "discarded", "expired");
            return begun;
        });
        assertThat(timeline(p.jobId())).containsExactly("received", "attempt_started", "attempt_failed", "discarded");
        assertThat(db.inTransaction(em -> em.find(JobAttempt.class, p.attemptId())).getOutcome()).isEqualTo("rejected");
        assertThat(jobRow(p.jobId()).getState()).isEqualTo(JobState.discarded);
    }

    @Test
    void aNewJobsAdmissionAndAcceptanceCostEightAndThreeStatementsAndKeepTheirOrder() {
        Incoming in = delivery(body("cost-1", "cost-1", null));
        long statements = db.statementsPrepared();
        long flushes = db.flushes();
        Begin.Proceed p = (Begin.Proceed) db.inTransaction(em -> ledger(em).begin(in, job(in), HTTP, true, true));
        long admissionStatements = db.statementsPrepared() - statements;
        long admissionFlushes = db.flushes() - flushes;

        statements = db.statementsPrepared();
        flushes = db.flushes();
        db.run(em -> ledger(em).recordSent(p, ProviderResponse.accepted("http", "202", "queued", "pm-1")));
        assertThat(db.statementsPrepared() - statements).as("statements of the acceptance").isEqualTo(3);
        assertThat(db.flushes() - flushes).as("flushes of the acceptance").isZero();
        assertThat(admissionStatements).as("statements of the admission").isEqualTo(8);
        assertThat(admissionFlushes).as("flushes of the admission").isEqualTo(2);

        JobAttempt attempt = db.inTransaction(em -> em.find(JobAttempt.class, p.attemptId()));
        assertThat(attempt.getOutcome()).isEqualTo("accepted");
        assertThat(attempt.getCode()).isEqualTo("202");
        assertThat(attempt.getResponse()).isEqualTo("queued");
        assertThat(attempt.getFinishedAt()).isEqualTo(CLOCK.instant());
        assertThat(jobRow(p.jobId()).getProviderMessageId()).isEqualTo("pm-1");
        assertThat(jobRow(p.jobId()).getJmsMessageId()).isEqualTo(in.jmsMessageId());
        assertThat(timeline(p.jobId())).containsExactly("received", "attempt_started", "sent");
    }

    @Test
    void aNewJobRecordsItsRecipientsNormalisedOnceEvenWhenRedelivered() {
        Incoming in = delivery("""
                {"schema_version": 1, "message_id": "rcpt-1", "idempotency_key": "rcpt-1", "from": "noreply@example.com",
                 "to": ["Alice <Alice@Example.COM>"], "cc": ["Bob@Example.com"], "bcc": ["carol@example.com"],
                 "subject": "s", "text": "t"}""");
        Begin.Proceed p = (Begin.Proceed) begin(in, SMTP);
        begin(redelivery(in), SMTP);
        List<String> recipients = db.inTransaction(em -> em.createQuery(
                "select r.kind || ':' || r.address from JobRecipient r where r.jobId = :j order by r.position", String.class)
                .setParameter("j", p.jobId()).getResultList());
        assertThat(recipients).containsExactly("to:alice@example.com", "cc:bob@example.com", "bcc:carol@example.com");
    }

    @Test
    void aRedeliveryAfterTheOutcomeIsCommittedIsIgnored() {
        Incoming in = delivery(body("sent-1", "sent-1", null));
        Begin.Proceed p = (Begin.Proceed) begin(in, SMTP);
        db.run(em -> ledger(em).recordSent(p, ProviderResponse.accepted("smtp", "250", "ok", "q1")));
        assertThat(begin(redelivery(in), SMTP)).isEqualTo(new Begin.AlreadyFinished(p.jobId(), JobState.sent_to_provider));
        assertThat(timeline(p.jobId())).containsSubsequence("attempt_started", "sent", "redelivery_ignored");
    }

    /**
     * An attempt stopped before its provider's call (an attachment that could not be fetched) is recorded as such, and
     * the job's count of provider calls leaves it out, while a provider's own refusal counts.
     */
    @Test
    void anAttemptThatEndedBeforeItsCallIsNoProviderCall() {
        Begin.Proceed notCalled = (Begin.Proceed) begin(delivery(body("fetch-404", "fetch-404", null)), SMTP);
        Begin.Proceed refused = (Begin.Proceed) begin(delivery(body("refused-550", "refused-550", null)), SMTP);
        ProviderResponse fetch404 = new ProviderResponse(ProviderResponse.Status.NOT_CONNECTED, "smtp", "404",
                "attachment_not_found", "the source answered 404", null, null, "attachment_not_found");
        ProviderResponse relay550 = new ProviderResponse(ProviderResponse.Status.REJECTED, "smtp", "550", "5.7.1",
                "refused", null, null, null);
        RecoveryAction review = new RecoveryAction.DeadLetter(RecoveryAction.DeadLetter.MANUAL_REVIEW,
                FailureClass.CONTENT_POLICY);
        db.run(em -> ledger(em).recordFailure(notCalled, fetch404, Failure.of(FailureClass.CONTENT_POLICY, fetch404),
                review, false));
        db.run(em -> ledger(em).recordFailure(refused, relay550, Failure.of(FailureClass.CONTENT_POLICY, relay550),
                review, true));

        assertThat(db.<String>inTransaction(em -> em.find(JobAttempt.class, notCalled.attemptId()).getOutcome()))
                .isEqualTo("not_called");
        assertThat(providerCalls(notCalled.jobId())).isZero();
        assertThat(providerCalls(refused.jobId())).isEqualTo(1);
    }

    private int providerCalls(long jobId) {
        return db.inTransaction(em -> {
            JobQueries queries = new JobQueries();
            queries.em = em;
            return JobQueries.providerCalls(queries.attempts(jobId));
        });
    }

    /**
     * A broker failover after the provider accepted: the delivery's transaction rolls back, but the acceptance
     * was committed on its own, past the point of no return; the redelivery (on the backup) finds the job sent.
     */
    @Test
    void anAcceptanceCommittedBeforeTheDeliveryRolledBackMakesTheRedeliveryAlreadyFinishedNotUnknown() {
        Incoming in = delivery(body("failover-1", "failover-1", null));
        Begin.Proceed p = (Begin.Proceed) begin(in, SMTP);
        db.run(em -> ledger(em).markIrrevocable(p.attemptId()));
        db.run(em -> ledger(em).recordSent(p, ProviderResponse.accepted("smtp", "250", "ok", "q1")));
        // the delivery's own transaction (the ack) is lost to the failover: the backup redelivers
        assertThat(begin(redelivery(in), SMTP)).isEqualTo(new Begin.AlreadyFinished(p.jobId(), JobState.sent_to_provider));
        assertThat(db.<String>inTransaction(em -> em.find(JobAttempt.class, p.attemptId()).getOutcome())).isEqualTo("accepted");
        assertThat(timeline(p.jobId())).containsSubsequence("attempt_started", "sent", "redelivery_ignored")
                .doesNotContain("ambiguous_not_resent");
    }

    /**
     * The broker redelivered while this worker was still in its call, past the point of no return: the
     * redelivery holds the job as unknown; the provider's acceptance, when it comes, settles it as sent.
     */
    @Test
    void anAcceptanceThatArrivesAfterARedeliveryHeldTheJobAsUnknownSettlesItAsSent() {
        Incoming in = delivery(body("failover-2", "failover-2", null));
        Begin.Proceed p = (Begin.Proceed) begin(in, SMTP);
        db.run(em -> ledger(em).markIrrevocable(p.attemptId()));
        assertThat(begin(redelivery(in), SMTP)).isEqualTo(new Begin.Ambiguous(p.jobId()));
        db.run(em -> ledger(em).recordSent(p, ProviderResponse.accepted("smtp", "250", "ok", "q2")));
        assertThat(jobRow(p.jobId()).getState()).isEqualTo(JobState.sent_to_provider);
        assertThat(db.<HeldSend>inTransaction(em -> em.find(HeldSend.class, p.jobId()))).isNull();
        assertThat(timeline(p.jobId())).containsSubsequence("ambiguous_not_resent", "unknown_settled", "sent");
    }

    /**
     * The commit of a worker's point of no return failed (the database's answer was lost) but landed: the worker never
     * wrote the mail. Recorded before the redelivery, the point of no return is taken back and the redelivery sends;
     * without it, the redelivery would hold the job unknown although no provider has the mail.
     */
    @Test
    void aPointOfNoReturnWhoseCommitFailedIsTakenBackSoTheRedeliverySends() {
        Incoming in = delivery(body("lost-answer-1", "lost-answer-1", null));
        Begin.Proceed p = (Begin.Proceed) begin(in, SMTP);
        db.run(em -> ledger(em).markIrrevocable(p.attemptId()));
        assertThat(db.<LateOutcomePolicy.Action>inTransaction(em -> ledger(em).recordLate(
                LateOutcomePolicy.Known.NOT_WRITTEN, p, null))).isInstanceOf(LateOutcomePolicy.TakeBack.class);
        assertThat(begin(redelivery(in), SMTP)).isInstanceOf(Begin.Proceed.class);
        assertThat(timeline(p.jobId())).containsSubsequence("attempt_started", "point_of_no_return_taken_back",
                "attempt_abandoned", "attempt_started").doesNotContain("ambiguous_not_resent");
    }

    /**
     * The point of no return's commit whose answer was lost lands only while its late record reads the attempt (the
     * database hung between the worker's UPDATE and its COMMIT, and both go through when it answers again): the late
     * record waits for it, then takes it back, so the redelivery sends instead of holding the job unknown.
     */
    @Test
    void aPointOfNoReturnLandingWhileItsLateRecordReadsIsStillTakenBack() throws Exception {
        Incoming in = delivery(body("lost-answer-late", "lost-answer-late", null));
        Begin.Proceed p = (Begin.Proceed) begin(in, SMTP);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        EntityManager worker = db.session();
        try {
            worker.getTransaction().begin();
            assertThat(ledger(worker).markIrrevocable(p.attemptId())).isTrue(); // its COMMIT not yet through
            Future<LateOutcomePolicy.Action> late = pool.submit(() -> db.<LateOutcomePolicy.Action>inTransaction(
                    em -> ledger(em).recordLate(LateOutcomePolicy.Known.NOT_WRITTEN, p, null)));
            // either it waits for the worker's row lock, or it decided on the attempt as it was before that commit
            await().atMost(Duration.ofSeconds(10)).until(() -> late.isDone() || db.<Number>inTransaction(
                    em -> (Number) em.createNativeQuery(blockedSessions).getSingleResult()).intValue() == 1);
            worker.getTransaction().commit();
            assertThat(late.get()).isInstanceOf(LateOutcomePolicy.TakeBack.class);
        } finally {
            if (worker.getTransaction().isActive()) {
                worker.getTransaction().rollback();
            }
            worker.close();
            pool.shutdownNow();
        }
        assertThat(begin(redelivery(in), SMTP)).as("the redelivery finds nothing written").isInstanceOf(Begin.Proceed.class);
    }

    /** The same, recorded after the redelivery held the job unknown: it is for the caller to send again. */
    @Test
    void aPointOfNoReturnWhoseCommitFailedAfterTheJobWasHeldUnknownSendsItAgain() {
        Incoming in = delivery(body("lost-answer-2", "lost-answer-2", null));
        Begin.Proceed p = (Begin.Proceed) begin(in, SMTP);
        db.run(em -> ledger(em).markIrrevocable(p.attemptId()));
        assertThat(begin(redelivery(in), SMTP)).isEqualTo(new Begin.Ambiguous(p.jobId()));
        assertThat(db.<LateOutcomePolicy.Action>inTransaction(em -> ledger(em).recordLate(
                LateOutcomePolicy.Known.NOT_WRITTEN, p, null))).isInstanceOf(LateOutcomePolicy.SendAgain.class);
        assertThat(jobRow(p.jobId()).getState()).as("held until the copy is sent").isEqualTo(JobState.unknown);
    }

    /** An acceptance whose commit failed, recorded late after a redelivery held the job unknown: sent, once. */
    @Test
    void anAcceptanceRecordedLateSettlesTheUnknownJobAndIsNotRecordedTwice() {
        Incoming in = delivery(body("lost-answer-3", "lost-answer-3", null));
        Begin.Proceed p = (Begin.Proceed) begin(in, SMTP);
        db.run(em -> ledger(em).markIrrevocable(p.attemptId()));
        assertThat(begin(redelivery(in), SMTP)).isEqualTo(new Begin.Ambiguous(p.jobId()));
        ProviderResponse accepted = ProviderResponse.accepted("smtp", "250", "ok", "q3");
        assertThat(db.<LateOutcomePolicy.Action>inTransaction(em -> ledger(em).recordLate(
                LateOutcomePolicy.Known.ACCEPTED, p, accepted))).isInstanceOf(LateOutcomePolicy.RecordSent.class);
        assertThat(jobRow(p.jobId()).getState()).isEqualTo(JobState.sent_to_provider);
        assertThat(db.<LateOutcomePolicy.Action>inTransaction(em -> ledger(em).recordLate(
                LateOutcomePolicy.Known.ACCEPTED, p, accepted))).isInstanceOf(LateOutcomePolicy.Nothing.class);
        assertThat(timeline(p.jobId())).containsSubsequence("ambiguous_not_resent", "unknown_settled", "sent")
                .filteredOn("sent"::equals).hasSize(1);
    }

    /**
     * The broker redelivered while this worker was still before its point of no return: the redelivery closed
     * the attempt and started its own, so this worker's point of no return is refused and it never writes.
     */
    @Test
    void aWorkerWhoseAttemptARedeliveryClosedIsRefusedItsPointOfNoReturn() {
        Incoming in = delivery(body("failover-3", "failover-3", null));
        Begin.Proceed first = (Begin.Proceed) begin(in, SMTP);
        Begin.Proceed second = (Begin.Proceed) begin(redelivery(in), SMTP);
        assertThat(second.attemptNumber()).isEqualTo(first.attemptNumber() + 1);
        assertThat(db.<Boolean>inTransaction(em -> ledger(em).markIrrevocable(first.attemptId()))).isFalse();
        assertThat(db.<Boolean>inTransaction(em -> ledger(em).markIrrevocable(second.attemptId()))).isTrue();
    }

    /**
     * A provider that writes at once and drops a duplicate (the sandbox, HTTP with an idempotency header): the attempt
     * is committed past its point of no return with the claim, so the call needs no transaction of its own; a worker
     * that died between the claim and the call leaves an attempt that may have reached the provider, which the
     * redelivery closes as ambiguous and sends again under the same key (never unknown, never abandoned).
     */
    @Test
    void anAttemptOfAProviderIrrevocableFromTheStartIsCommittedPastItsPointOfNoReturnWithTheClaim() {
        Incoming in = delivery(body("at-once-1", "at-once-1", null));
        Begin.Proceed first = (Begin.Proceed) db.inTransaction(em -> ledger(em).begin(in, job(in), HTTP, true, true));
        assertThat(first.irrevocable()).isTrue();
        JobAttempt recorded = db.inTransaction(em -> em.find(JobAttempt.class, first.attemptId()));
        assertThat(recorded.getIrrevocableAt()).isEqualTo(recorded.getStartedAt()).isNotNull();

        Begin again = begin(redelivery(in), HTTP);
        assertThat(again).isInstanceOf(Begin.Proceed.class);
        assertThat(((Begin.Proceed) again).irrevocable()).as("the 4-argument begin keeps the separate checkpoint").isFalse();
        assertThat(db.<String>inTransaction(em -> em.find(JobAttempt.class, first.attemptId()).getOutcome()))
                .isEqualTo("ambiguous");
        assertThat(timeline(first.jobId())).containsSubsequence("attempt_started", "attempt_ambiguous", "attempt_started")
                .doesNotContain("attempt_abandoned", "ambiguous_not_resent");

        Incoming smtp = delivery(body("at-once-2", "at-once-2", null));
        Begin.Proceed separate = (Begin.Proceed) begin(smtp, SMTP);
        assertThat(separate.irrevocable()).isFalse();
        assertThat(db.<JobAttempt>inTransaction(em -> em.find(JobAttempt.class, separate.attemptId())).getIrrevocableAt())
                .as("SMTP commits its point of no return just before the final dot").isNull();
    }

    @Test
    void anExpiredJobIsDiscardedBeforeItClaimsItsKey() {
        Incoming in = delivery(body("late-1", "late-1", CLOCK.instant()));
        Begin b = begin(in, SMTP);
        assertThat(b).isInstanceOf(Begin.Expired.class);
        assertThat(jobRow(b.jobId()).getState()).isEqualTo(JobState.discarded);
        assertThat(db.<Number>inTransaction(em -> (Number) em.createNativeQuery(
                "select count(*) from send_claim where idempotency_key = 'late-1'").getSingleResult()).intValue()).isZero();
    }

    @Test
    void noRateLimitPermitPutsTheJobBackBeforeItClaimsItsKey() {
        Incoming in = delivery(body("paced-1", "paced-1", null));
        Begin b = db.inTransaction(em -> ledger(em).begin(in, job(in), SMTP, false));
        assertThat(b).isInstanceOf(Begin.PutBack.class);
        assertThat(((Begin.PutBack) b).delay()).isEqualTo(Duration.ofSeconds(2));
        assertThat(jobRow(b.jobId()).getAttemptCount()).isZero();
        assertThat(begin(redelivery(in), SMTP)).isInstanceOf(Begin.Proceed.class);
    }

    @Test
    void aCrashAfterThePointOfNoReturnOnSmtpEndsUnknownWithItsBytesHeldThenAnOperatorMarksItSent() {
        Incoming in = delivery(body("crash-smtp", "crash-smtp", null));
        Begin.Proceed p = (Begin.Proceed) begin(in, SMTP);
        db.run(em -> ledger(em).markIrrevocable(p.attemptId()));
        // the worker dies here; the broker redelivers
        assertThat(begin(redelivery(in), SMTP)).isEqualTo(new Begin.Ambiguous(p.jobId()));
        assertThat(jobRow(p.jobId()).getState()).isEqualTo(JobState.unknown);
        assertThat(db.<String>inTransaction(em -> em.find(JobAttempt.class, p.attemptId()).getOutcome())).isEqualTo("ambiguous");
        assertThat(db.<byte[]>inTransaction(em -> em.find(HeldSend.class, p.jobId()).getMessage().getPayload())).isEqualTo(in.body());
        // a later redelivery is ignored; the key stays with the unknown job
        assertThat(begin(redelivery(in), SMTP)).isInstanceOf(Begin.AlreadyFinished.class);
        Incoming other = delivery(body("crash-smtp-2", "crash-smtp", null));
        assertThat(begin(other, SMTP)).isInstanceOf(Begin.DuplicateKey.class);

        db.run(em -> ledger(em).markSent(p.jobId(), "operator", "in the relay's log"));
        assertThat(jobRow(p.jobId()).getState()).isEqualTo(JobState.sent_to_provider);
        assertThat(db.<HeldSend>inTransaction(em -> em.find(HeldSend.class, p.jobId()))).isNull();
        assertThat(db.<String>inTransaction(em -> em.createQuery("select e.actor from JobEvent e where e.jobId = :j and e.type = 'marked_sent'",
                String.class).setParameter("j", p.jobId()).getSingleResult())).isEqualTo("operator");
        assertThatThrownBy(() -> db.run(em -> ledger(em).markSent(p.jobId(), "operator", "again")))
                .isInstanceOf(Refused.Conflict.class);
    }

    @Test
    void aCrashAfterThePointOfNoReturnOnADedupingProviderSendsAgainWithTheSameKey() {
        Incoming in = delivery(body("crash-http", "crash-http", null));
        Begin.Proceed p = (Begin.Proceed) begin(in, HTTP);
        db.run(em -> ledger(em).markIrrevocable(p.attemptId()));
        Begin again = begin(redelivery(in), HTTP);
        assertThat(again).isInstanceOf(Begin.Proceed.class);
        assertThat(((Begin.Proceed) again).attemptNumber()).isEqualTo(2);
        assertThat(timeline(p.jobId())).contains("attempt_ambiguous");
    }

    @Test
    void sendAgainReopensAnUnknownJobForExactlyItsCopy() {
        Incoming in = delivery(body("again-1", "again-1", null));
        Begin.Proceed p = (Begin.Proceed) begin(in, SMTP);
        db.run(em -> ledger(em).markIrrevocable(p.attemptId()));
        begin(redelivery(in), SMTP);
        Incoming copy = new Incoming("mail.send", "ID:copy-again-1", false, 1, in.body(), true, null, null, null, null, p.jobId());
        db.run(em -> {
            JobLedger l = ledger(em);
            assertThat(l.heldForSendAgain(p.jobId()).getMessage().getPayload()).isEqualTo(in.body());
            l.sendAgain(p.jobId(), copy.jmsMessageId(), "operator", "not in the relay's log");
        });
        // the original's late redelivery is not the owner; the copy is admitted once, under the same key
        assertThat(begin(redelivery(in), SMTP)).isInstanceOf(Begin.DuplicateMessage.class);
        Begin.Proceed second = (Begin.Proceed) begin(copy, SMTP);
        assertThat(second.jobId()).isEqualTo(p.jobId());
        db.run(em -> ledger(em).recordSent(second, ProviderResponse.accepted("smtp", "250", "ok", "q2")));
        assertThat(begin(redelivery(copy), SMTP)).isInstanceOf(Begin.AlreadyFinished.class);
        assertThat(timeline(p.jobId())).containsSubsequence("ambiguous_not_resent", "send_again", "attempt_started", "sent");
        assertThat(db.<List<String>>inTransaction(em -> em.createQuery("select e.detail from JobEvent e where e.jobId = :j"
                + " and e.type = 'attempt_started' order by e.id", String.class).setParameter("j", p.jobId()).getResultList()))
                .last().asString().contains("send again");
    }

    @Test
    void aKeyWhoseHolderEndedUnsentIsTakenOverAndBothTimelinesSaySo() {
        long first = discardedUnsent("released-1", "released");
        Begin b = begin(delivery(body("released-2", "released", null)), SMTP);
        assertThat(b).isInstanceOf(Begin.Proceed.class);
        assertThat(claimOwner("released")).isEqualTo(b.jobId());
        assertThat(timeline(first)).endsWith("idempotency_key_released");
        assertThat(timeline(b.jobId())).containsSubsequence("idempotency_key_taken_over", "attempt_started");
    }

    @Test
    void aKeyWhoseHolderWasSentIsUnknownOrInFlightIsKept() {
        // in flight: claimed, attempt started
        Begin.Proceed inFlight = (Begin.Proceed) begin(delivery(body("kept-1", "kept", null)), SMTP);
        assertThat(begin(delivery(body("kept-2", "kept", null)), SMTP)).isEqualTo(new Begin.DuplicateKey(
                inFlight.jobId() + 1, inFlight.jobId()));
        // sent
        db.run(em -> ledger(em).recordSent(inFlight, ProviderResponse.accepted("smtp", "250", "ok", "q")));
        assertThat(begin(delivery(body("kept-3", "kept", null)), SMTP)).isInstanceOf(Begin.DuplicateKey.class);
        assertThat(claimOwner("kept")).isEqualTo(inFlight.jobId());
    }

    @Test
    void twoConsumersTakingOverOneReleasedKeyInTwoSessions_exactlyOneSends() throws Exception {
        discardedUnsent("race-0", "race");
        Incoming a = delivery(body("race-a", "race", null));
        Incoming b = delivery(body("race-b", "race", null));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        EntityManager sessionA = db.session();
        try {
            sessionA.getTransaction().begin();
            Begin first = ledger(sessionA).begin(a, job(a), SMTP, true); // holds the claim row's lock, uncommitted
            assertThat(first).isInstanceOf(Begin.Proceed.class);
            Future<Begin> second = pool.submit(() -> begin(b, SMTP));
            // the second session waits on the first one's lock: it cannot decide before the first commits
            await().atMost(Duration.ofSeconds(10)).until(() -> db.<Number>inTransaction(em -> (Number) em.createNativeQuery(
                    blockedSessions).getSingleResult()).intValue() == 1);
            assertThat(second).isNotDone();
            sessionA.getTransaction().commit();
            Begin loser = second.get();
            assertThat(loser).isEqualTo(new Begin.DuplicateKey(loser.jobId(), first.jobId()));
            assertThat(claimOwner("race")).isEqualTo(first.jobId());
            assertThat(jobRow(loser.jobId()).getState()).isEqualTo(JobState.duplicate_suppressed);
        } finally {
            if (sessionA.getTransaction().isActive()) {
                sessionA.getTransaction().rollback();
            }
            sessionA.close();
            pool.shutdownNow();
        }
    }

    @Test
    void twoConsumersClaimingOneKeyAtTheSameInstant_exactlyOneSendsEveryTime() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 15; round++) {
                String key = "burst-" + round;
                boolean released = round % 2 == 1; // odd rounds race for a released key, even ones for a new key
                if (released) {
                    discardedUnsent(key + "-0", key);
                }
                CyclicBarrier start = new CyclicBarrier(2);
                List<Future<Begin>> both = new ArrayList<>();
                for (String side : List.of("a", "b")) {
                    Incoming in = delivery(body(key + "-" + side, key, null));
                    both.add(pool.submit(() -> {
                        start.await();
                        return begin(in, SMTP);
                    }));
                }
                List<Begin> results = new ArrayList<>();
                for (Future<Begin> f : both) {
                    results.add(f.get());
                }
                assertThat(results).as("round %d (released key: %s)", round, released)
                        .filteredOn(r -> r instanceof Begin.Proceed).hasSize(1);
                assertThat(results).filteredOn(r -> r instanceof Begin.DuplicateKey).hasSize(1);
                long winner = results.stream().filter(r -> r instanceof Begin.Proceed).findFirst().orElseThrow().jobId();
                assertThat(claimOwner(key)).isEqualTo(winner);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
