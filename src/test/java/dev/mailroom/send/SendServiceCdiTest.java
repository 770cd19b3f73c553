package dev.mailroom.send;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.deadletter.DeadLetter;
import dev.mailroom.deadletter.DeadLetterRecorder;
import dev.mailroom.job.HeldSend;
import dev.mailroom.job.Incoming;
import dev.mailroom.job.JobAttempt;
import dev.mailroom.job.JobRecipient;
import dev.mailroom.job.JobComponents;
import dev.mailroom.job.JobEvent;
import dev.mailroom.job.JobLedger;
import dev.mailroom.job.JobState;
import dev.mailroom.job.MailJob;
import dev.mailroom.job.ParseResult;
import dev.mailroom.ops.testing.MovableClock;
import dev.mailroom.platform.MailroomConfig;
import dev.mailroom.platform.MailroomMetrics;
import dev.mailroom.provider.MailProvider;
import dev.mailroom.provider.registry.ProviderRegistry;
import dev.mailroom.provider.OutboundMail;
import dev.mailroom.provider.ProviderCalls;
import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.provider.SendCheckpoint;
import dev.mailroom.provider.sandbox.SandboxMail;
import dev.mailroom.provider.sandbox.SandboxProvider;
import dev.mailroom.recoverability.RecoverabilityComponents;
import dev.mailroom.testsupport.ComponentDatabase;
import dev.mailroom.testsupport.SystemProperties;
import dev.mailroom.testsupport.TestTransactions;
import dev.mailroom.platform.Meters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.smallrye.config.inject.ConfigExtension;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import dev.mailroom.recoverability.FailureClass;
import dev.mailroom.stopline.StopLine;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Component test (Weld SE, H2 through Hibernate, real transactions per {@code @Transactional}): the send
 * path's {@link SendService}, {@link JobLedger} and {@link RecoveryExecutor} as the server wires them, with
 * only the broker (a scheduled copy is recorded, not sent) and the provider (scripted) standing in. It
 * proves the admission rows and the one ambiguity rule are carried out: a timeout after the point of no
 * return ends {@code unknown} with its bytes held and an event fired on SMTP, and is retried with the same
 * key on a provider that drops duplicates. And that a provider writing in the delivery's transaction (the real
 * sandbox) has its job recorded in that transaction: one commit, and a rollback takes the acceptance back with the
 * outbox row.
 */
class SendServiceCdiTest {

    /** What the scripted provider answers; set per test before the container starts. */
    static volatile String providerName = "smtp";
    static volatile boolean dedupes;
    /** Whether the scripted provider says it writes in the delivery's transaction, as the sandbox does. */
    static volatile boolean writesInTheDelivery;
    static final Queue<Function<SendCheckpoint, ProviderResponse>> SCRIPT = new ConcurrentLinkedQueue<>();
    static final List<String> COPIES = new ArrayList<>();
    static final List<Duration> COPY_DELAYS = new ArrayList<>();
    static final List<String> POISONED = new ArrayList<>();
    /** Dead letters other than poison: reason, class and error. */
    static final List<String> DEAD_LETTERED = new ArrayList<>();
    static final List<SendOutcomeUnknown> UNKNOWN = new ArrayList<>();
    /** What the send path told the stop-the-line hook, per provider answer. */
    static final List<String> ANSWERS = new ArrayList<>();
    /** What the provider was handed, per call. */
    static final List<OutboundMail> HANDED = new ArrayList<>();

    static final MovableClock CLOCK = new MovableClock(Clock.systemUTC());

    /** Thrown by the provider to stand for the process dying mid-call: nothing of ours catches an Error. */
    static final class Crash extends Error {
    }

    /** Thrown after the send path returned, to stand for the delivery's commit failing (a broker failover). */
    static final class BrokerFailover extends RuntimeException {
    }

    /** The stand-ins: the provider, the broker side of the executor and of the dead-letter recorder, metrics. */
    @ApplicationScoped
    static class StandIns {
        /** The EJB singleton without its timer: what waits for the database stays in memory here. */
        @Produces
        @Singleton
        LateOutcomes lateOutcomes(JobLedger ledger, Clock clock) {
            LateOutcomes late = new LateOutcomes();
            late.ledger = ledger; // the real ledger: what waits is recorded on the component database
            late.clock = clock;
            return late;
        }

        @Produces
        @Singleton
        MailProvider provider(SandboxProvider sandbox) {
            if (SandboxProvider.NAME.equals(providerName)) {
                return sandbox; // the real one, on the component database
            }
            return new MailProvider() {
                @Override
                public String name() {
                    return providerName;
                }

                @Override
                public boolean dedupesByIdempotencyKey() {
                    return dedupes;
                }

                @Override
                public boolean writesInTheDeliveryTransaction() {
                    return writesInTheDelivery;
                }

                @Override
                public ProviderResponse send(OutboundMail mail, SendCheckpoint checkpoint) {
                    HANDED.add(mail);
                    return SCRIPT.remove().apply(checkpoint);
                }
            };
        }

        /** The line never stops here (stopline has its own tests); a put-back waits one second. */
        @Produces
        @Singleton
        StopLine stopLine() {
            return new StopLine() {
                @Override
                public void answered(String queue, String provider, FailureClass failureClass, String detail) {
                    ANSWERS.add(failureClass == null ? "accepted" : failureClass.wireName());
                }

                @Override
                public Duration putBack() {
                    return Duration.ofSeconds(1);
                }
            };
        }

        @Produces
        @Singleton
        RecoveryExecutor executor(JobLedger ledger, DeadLetterRecorder deadLetters, Clock clock, StopLine stopLine) {
            RecoveryExecutor e = new RecoveryExecutor() {
                @Override
                public String scheduleCopy(Incoming in, Duration delay, int attemptsSoFar) {
                    synchronized (COPIES) {
                        COPIES.add(in.jmsMessageId());
                        COPY_DELAYS.add(delay);
                        return "ID:copy-" + COPIES.size();
                    }
                }
            };
            e.ledger = ledger;
            e.deadLetters = deadLetters;
            e.clock = clock;
            e.line = stopLine;
            return e;
        }

        @Produces
        @Singleton
        DeadLetterRecorder deadLetters(JobLedger ledger) {
            return new DeadLetterRecorder() {
                @Override
                public DeadLetter poison(Incoming in, ParseResult.Rejected rejected) {
                    POISONED.add(rejected.reason().name());
                    return null;
                }

                @Override
                public DeadLetter deadLetter(Incoming in, MailJob job, String reason, String failureClass, String error,
                                             String errorType, Throwable cause) {
                    DEAD_LETTERED.add(reason + " " + failureClass + ": " + error);
                    ledger.moveTo(job, JobState.dead_lettered, CLOCK.instant()); // as the recorder does, minus the DLQ
                    return null;
                }
            };
        }

        /** The system clock until a test moves it forward (a send time reached without waiting for it). */
        @Produces
        @Singleton
        Clock clock() {
            return CLOCK;
        }

        @Produces
        @Singleton
        @Meters
        MeterRegistry registry() {
            return new SimpleMeterRegistry();
        }

        /** An operator's answer to an unknown send is tested without the broker: nothing of it is called. */
        @Produces
        @Singleton
        jakarta.jms.JMSContext jms() {
            return dev.mailroom.testsupport.Proxies.proxy(jakarta.jms.JMSContext.class, (method, args) -> {
                throw new UnsupportedOperationException("no broker here: " + method);
            });
        }

        @Produces
        @Singleton
        dev.mailroom.platform.Destinations destinations() {
            return new dev.mailroom.platform.Destinations();
        }

        void unknown(@Observes SendOutcomeUnknown u) {
            UNKNOWN.add(u);
        }
    }

    private final SystemProperties properties = new SystemProperties();
    private ComponentDatabase db;
    private WeldContainer cdi;
    private int jms;

    @BeforeEach
    void reset() {
        SCRIPT.clear();
        COPIES.clear();
        COPY_DELAYS.clear();
        POISONED.clear();
        DEAD_LETTERED.clear();
        UNKNOWN.clear();
        ANSWERS.clear();
        HANDED.clear();
        writesInTheDelivery = false;
        CLOCK.offset(Duration.ZERO);
        db = ComponentDatabase.h2(List.of(MailJob.class, JobAttempt.class, JobEvent.class, HeldSend.class, JobRecipient.class, dev.mailroom.job.KeyWait.class,
                SandboxMail.class, dev.mailroom.provider.sandbox.SandboxAttachment.class));
        TestTransactions.use(db);
    }

    @AfterEach
    void close() {
        if (cdi != null) {
            cdi.close();
        }
        db.close();
        properties.restore();
    }

    private SendService boot(String provider, boolean providerDedupes) {
        providerName = provider;
        dedupes = providerDedupes;
        properties.set("mailroom.provider", provider);
        cdi = new Weld("send-service-" + System.nanoTime())
                .disableDiscovery()
                .addExtension(new ConfigExtension())
                .addServices(new TestTransactions.Jpa())
                .addBeanClasses(SendService.class, SendDoor.class, JobLedger.class, JobComponents.class, MailroomConfig.class,
                        RecoverabilityComponents.class, ProviderCalls.class, MailroomMetrics.class, ScheduledSends.class, KeyOrders.class,
                        dev.mailroom.job.KeyLedger.class, UnknownSends.class,
                        ProviderRegistry.class, ProviderBreakers.class, SandboxProvider.class, StandIns.class,
                        dev.mailroom.attachment.Attachments.class)
                .addBeanClasses(TestTransactions.INTERCEPTORS.toArray(Class<?>[]::new))
                .initialize();
        return cdi.select(SendService.class).get();
    }

    private Incoming delivery(String body) {
        return new Incoming("mail.send", "ID:d-" + (++jms), false, 1, body.getBytes(StandardCharsets.UTF_8), true,
                null, null, null, null, null);
    }

    private static Incoming redelivery(Incoming in) {
        return new Incoming(in.queue(), in.jmsMessageId(), true, in.deliveryCount() + 1, in.body(), true, null, null,
                null, null, null);
    }

    private static String job(String id) {
        return """
                {"schema_version": 1, "message_id": "%s", "from": "noreply@example.com", "to": ["alice@example.com"],
                 "subject": "s", "text": "t"}""".formatted(id);
    }

    private static void handle(SendService send, Incoming in) throws Exception {
        TestTransactions.delivery(() -> {
            send.handle(in);
            return null;
        });
    }

    private MailJob jobRow(String messageId) {
        return db.inTransaction(em -> em.createQuery("select j from MailJob j where j.messageId = :m", MailJob.class)
                .setParameter("m", messageId).getSingleResult());
    }

    private List<MailJob> jobRows(String messageId) {
        return db.inTransaction(em -> em.createQuery("select j from MailJob j where j.messageId = :m", MailJob.class)
                .setParameter("m", messageId).getResultList());
    }

    private List<String> outbox() {
        return db.inTransaction(em -> em.createQuery("select m.messageId from SandboxMail m order by m.id", String.class)
                .getResultList());
    }

    private List<String> timeline(long jobId) {
        return db.inTransaction(em -> em.createQuery("select e.type from JobEvent e where e.jobId = :j order by e.id",
                String.class).setParameter("j", jobId).getResultList());
    }

    private static ProviderResponse timeoutAfterTheFinalDot(SendCheckpoint checkpoint, String provider) {
        checkpoint.beforeIrrevocableWrite();
        return new ProviderResponse(ProviderResponse.Status.AMBIGUOUS, provider, null, null, "Read timed out",
                null, null, "java.net.SocketTimeoutException");
    }

    @Test
    void aReadTimeoutAfterTheFinalDotOnSmtpEndsUnknownWithItsBytesHeldAndAnEvent() throws Exception {
        SendService send = boot("smtp", false);
        SCRIPT.add(c -> timeoutAfterTheFinalDot(c, "smtp"));
        Incoming in = delivery(job("timeout-smtp"));
        handle(send, in);

        MailJob j = jobRow("timeout-smtp");
        assertThat(j.getState()).isEqualTo(JobState.unknown);
        assertThat(COPIES).as("never resent by itself").isEmpty();
        assertThat(db.<byte[]>inTransaction(em -> em.find(HeldSend.class, j.getId()).getMessage().getPayload())).isEqualTo(in.body());
        assertThat(timeline(j.getId())).containsSubsequence("attempt_started", "attempt_failed", "ambiguous_not_resent");
        assertThat(UNKNOWN).singleElement().satisfies(u -> {
            assertThat(u.path()).isEqualTo("call");
            assertThat(u.messageId()).isEqualTo("timeout-smtp");
            assertThat(u.provider()).isEqualTo("smtp");
        });
        // a redelivery of the same message changes nothing
        handle(send, redelivery(in));
        assertThat(jobRow("timeout-smtp").getAttemptCount()).isEqualTo(1);
        assertThat(SCRIPT).isEmpty();
    }

    @Test
    void theSameTimeoutOnAProviderThatDropsDuplicatesIsRetriedWithTheSameKey() throws Exception {
        SendService send = boot("http", true);
        SCRIPT.add(c -> timeoutAfterTheFinalDot(c, "http"));
        handle(send, delivery(job("timeout-http")));

        assertThat(jobRow("timeout-http").getState()).isEqualTo(JobState.retry_scheduled);
        assertThat(COPIES).hasSize(1);
        assertThat(UNKNOWN).isEmpty();
        assertThat(ANSWERS).as("the stop-the-line hook hears every provider answer").containsExactly("ambiguous");
    }

    @Test
    void aWorkerDyingAfterThePointOfNoReturnIsUnknownOnRedeliveryWithAnEvent() throws Exception {
        SendService send = boot("smtp", false);
        SCRIPT.add(c -> {
            c.beforeIrrevocableWrite();
            throw new Crash();
        });
        Incoming in = delivery(job("crash-smtp"));
        assertThatThrownBy(() -> handle(send, in)).isInstanceOf(Crash.class);
        assertThat(jobRow("crash-smtp").getState()).as("the attempt was committed on its own").isEqualTo(JobState.sending);

        handle(send, redelivery(in));
        assertThat(jobRow("crash-smtp").getState()).isEqualTo(JobState.unknown);
        assertThat(UNKNOWN).singleElement().satisfies(u -> assertThat(u.path()).isEqualTo("crash"));
        assertThat(SCRIPT).isEmpty();
    }

    /**
     * The commit of the point of no return landed but its answer was lost, as the transaction manager reports it: a
     * checked {@code HeuristicMixedException} through the proxy, undeclared. The mail is not written, and what the
     * worker knew is kept and recorded when the database answers: the point of no return is taken back.
     */
    @Test
    void aPointOfNoReturnWhoseCommitAnswerIsLostAsACheckedExceptionIsTakenBackLate() throws Exception {
        SendService send = boot("smtp", false);
        SCRIPT.add(c -> {
            c.beforeIrrevocableWrite();
            return ProviderResponse.accepted("smtp", "250", "ok", "never");
        });
        TestTransactions.loseTheAnswerOf("markIrrevocable", new jakarta.transaction.HeuristicMixedException("lost"));
        Incoming in = delivery(job("late-irrevocable"));

        assertThatThrownBy(() -> handle(send, in)).isInstanceOf(jakarta.transaction.HeuristicMixedException.class);
        LateOutcomes late = cdi.select(LateOutcomes.class).get();
        assertThat(late.waiting()).isEqualTo(1);
        MailJob j = jobRow("late-irrevocable");
        Long attempt = db.inTransaction(em -> em.createQuery("select a.id from JobAttempt a where a.jobId = :j", Long.class)
                .setParameter("j", j.getId()).getSingleResult());
        assertThat(db.<java.time.Instant>inTransaction(em -> em.find(JobAttempt.class, attempt).getIrrevocableAt()))
                .as("the commit landed").isNotNull();

        late.recordWhatWaits();
        assertThat(late.waiting()).isZero();
        assertThat(db.<java.time.Instant>inTransaction(em -> em.find(JobAttempt.class, attempt).getIrrevocableAt()))
                .as("taken back: the redelivery may send it").isNull();
        assertThat(jobRow("late-irrevocable").getState()).isNotEqualTo(JobState.sent_to_provider);
    }

    /** The same lost answer on the acceptance's own commit: the acceptance is kept, and the job is found sent. */
    @Test
    void anAcceptanceWhoseCommitAnswerIsLostAsACheckedExceptionIsKeptForTheLateRecord() throws Exception {
        SendService send = boot("smtp", false);
        SCRIPT.add(c -> {
            c.beforeIrrevocableWrite();
            return ProviderResponse.accepted("smtp", "250", "ok", "q-late");
        });
        TestTransactions.loseTheAnswerOf("recordSent", new jakarta.transaction.HeuristicMixedException("lost"));

        assertThatThrownBy(() -> handle(send, delivery(job("late-accepted"))))
                .isInstanceOf(jakarta.transaction.HeuristicMixedException.class);
        LateOutcomes late = cdi.select(LateOutcomes.class).get();
        assertThat(late.waiting()).isEqualTo(1);
        late.recordWhatWaits();
        assertThat(late.waiting()).isZero();
        assertThat(jobRow("late-accepted").getState()).isEqualTo(JobState.sent_to_provider);
    }

    @Test
    void aJobThatCannotBeReadIsPoisonWithoutAProviderCall() throws Exception {
        SendService send = boot("smtp", false);
        handle(send, delivery("{ not json"));
        assertThat(POISONED).containsExactly("not_json");
    }

    @Test
    void withoutARateLimitPermitTheDeliveryGoesBackBeforeAnyClaim() throws Exception {
        properties.set("mailroom.rate-limit.smtp.max-per-second", "0.2");
        SendService send = boot("smtp", false);
        SCRIPT.add(c -> ProviderResponse.accepted("smtp", "250", "ok", "q1"));
        handle(send, delivery(job("paced-1")));
        handle(send, delivery(job("paced-2")));

        assertThat(jobRow("paced-1").getState()).isEqualTo(JobState.sent_to_provider);
        MailJob second = jobRow("paced-2");
        assertThat(second.getState()).isEqualTo(JobState.received);
        assertThat(second.getAttemptCount()).isZero();
        assertThat(second.getJmsMessageId()).as("the copy owns the job").isEqualTo("ID:copy-1");
        assertThat(COPY_DELAYS).containsExactly(Duration.ofSeconds(2));
        assertThat(timeline(second.getId())).containsExactly("received", "deferred");
    }

    private void suppress(String tenant, String address, String reason) {
        db.inTransaction(em -> em.createNativeQuery("""
                        insert into suppression (tenant, address, reason, cause, created_by, created_at, active_key)
                        values (?1, ?2, ?3, 'a test', 'test', current_timestamp, ?4)""")
                .setParameter(1, tenant).setParameter(2, address).setParameter(3, reason)
                .setParameter(4, JobLedger.suppressionKey(tenant, address)).executeUpdate());
    }

    private static String jobTo(String id, String tenant, String to, String cc) {
        return """
                {"schema_version": 1, "message_id": "%s", "tenant": "%s", "from": "noreply@example.com", "to": [%s],
                 "cc": [%s], "subject": "s", "text": "t"}""".formatted(id, tenant, to, cc);
    }

    @Test
    void aSuppressedRecipientIsLeftOutOfTheProviderCallAndAJobOfOnlySuppressedOnesIsNeverSent() throws Exception {
        SendService send = boot("http", true);
        suppress("shop", "bob@example.com", "hard_bounce");
        suppress("other-shop", "alice@example.com", "manual");
        SCRIPT.add(c -> ProviderResponse.accepted("http", "200", "ok", "p-1"));
        handle(send, delivery(jobTo("partly", "shop", "\"Alice <alice@example.com>\", \"Bob <BOB@example.com>\"", "\"carol@example.com\"")));

        MailJob partly = jobRow("partly");
        assertThat(partly.getState()).isEqualTo(JobState.sent_to_provider);
        assertThat(HANDED).singleElement().satisfies(m -> {
            assertThat(m.to()).as("alice's suppression is another tenant's").containsExactly("Alice <alice@example.com>");
            assertThat(m.cc()).containsExactly("carol@example.com");
        });
        assertThat(timeline(partly.getId())).containsSubsequence("received", "recipient_suppressed", "attempt_started", "sent");
        assertThat(db.<List<String>>inTransaction(em -> em.createQuery(
                        "select coalesce(r.deliveryState, '-') from JobRecipient r where r.jobId = :j order by r.position", String.class)
                .setParameter("j", partly.getId()).getResultList())).containsExactly("-", "suppressed", "-");

        handle(send, delivery(jobTo("all", "shop", "\"bob@example.com\"", "")));
        MailJob all = jobRow("all");
        assertThat(all.getState()).isEqualTo(JobState.suppressed);
        assertThat(all.getAttemptCount()).isZero();
        assertThat(HANDED).as("no second provider call").hasSize(1);
        assertThat(timeline(all.getId())).containsExactly("received", "recipient_suppressed", "suppressed");
    }

    @Test
    void theSandboxIsRecordedInTheDeliveryTransactionSoARollbackTakesTheAcceptanceBackWithItsOutboxRow() throws Exception {
        SendService send = boot(SandboxProvider.NAME, true);
        Incoming in = delivery(job("failover-sandbox"));
        // the sandbox accepted, then the delivery's commit fails (the broker failed over): its transaction rolls back
        assertThatThrownBy(() -> TestTransactions.delivery(() -> {
            send.handle(in);
            throw new BrokerFailover();
        })).isInstanceOf(BrokerFailover.class);
        assertThat(outbox()).as("the outbox row went with the delivery").isEmpty();
        assertThat(jobRows("failover-sandbox")).as("so did the job's record: it never says sent without the outbox row")
                .isEmpty();

        long before = db.transactionsCommitted();
        handle(send, redelivery(in));
        assertThat(db.transactionsCommitted() - before).as("claim, outbox row and acceptance: the delivery's one commit")
                .isEqualTo(1);
        MailJob j = jobRow("failover-sandbox");
        assertThat(j.getState()).isEqualTo(JobState.sent_to_provider);
        assertThat(outbox()).as("the redelivery sent it: the outbox holds exactly the jobs that say sent")
                .containsExactly("failover-sandbox");
        assertThat(timeline(j.getId())).containsExactly("received", "attempt_started", "sent");
        assertThat(db.<List<JobAttempt>>inTransaction(em -> em.createQuery(
                        "select a from JobAttempt a where a.jobId = :j", JobAttempt.class).setParameter("j", j.getId())
                .getResultList())).singleElement().satisfies(a -> assertThat(a.getIrrevocableAt())
                .as("marked irrevocable in the same transaction").isNotNull());
    }

    private static ProviderResponse tryLater(SendCheckpoint checkpoint) {
        checkpoint.beforeIrrevocableWrite();
        return new ProviderResponse(ProviderResponse.Status.REJECTED, "smtp", "451", "4.3.0", "451 4.3.0 try later",
                null, null, null);
    }

    @Test
    void aFailureOfAProviderWritingInTheDeliveryIsRecordedWithTheDeliveryAndRolledBackWithIt() throws Exception {
        writesInTheDelivery = true;
        SendService send = boot("smtp", false);
        SCRIPT.add(SendServiceCdiTest::tryLater);
        Incoming in = delivery(job("transient-in-delivery"));
        long before = db.transactionsCommitted();
        handle(send, in);
        assertThat(db.transactionsCommitted() - before).as("the failure is recorded in the delivery's one commit")
                .isEqualTo(1);
        MailJob j = jobRow("transient-in-delivery");
        assertThat(j.getState()).isEqualTo(JobState.retry_scheduled);
        assertThat(COPIES).containsExactly(in.jmsMessageId());
        assertThat(timeline(j.getId())).containsExactly("received", "attempt_started", "attempt_failed", "retry_scheduled");

        // the same failure in a delivery that then rolls back leaves nothing of the attempt behind
        SCRIPT.add(SendServiceCdiTest::tryLater);
        Incoming other = delivery(job("rolled-back-in-delivery"));
        assertThatThrownBy(() -> TestTransactions.delivery(() -> {
            send.handle(other);
            throw new BrokerFailover();
        })).isInstanceOf(BrokerFailover.class);
        assertThat(jobRows("rolled-back-in-delivery")).isEmpty();
        assertThat(SCRIPT).isEmpty();
    }

    @Test
    void aSystemicAnswerIsRecordedWithTheDelayItIsCarriedOutWith() throws Exception {
        SendService send = boot("smtp", false);
        SCRIPT.add(c -> new ProviderResponse(ProviderResponse.Status.REJECTED, "smtp", "535", "5.7.8",
                "535 5.7.8 Authentication credentials invalid", null, null, null));
        handle(send, delivery(job("systemic-delay")));

        MailJob j = jobRow("systemic-delay");
        assertThat(j.getState()).isEqualTo(JobState.retry_scheduled);
        assertThat(COPY_DELAYS).as("back on the broker after the stop-the-line put-back").containsExactly(Duration.ofSeconds(1));
        String decision = db.inTransaction(em -> em.createQuery("select a from JobAttempt a where a.jobId = :j",
                JobAttempt.class).setParameter("j", j.getId()).getSingleResult().getDecision());
        List<String> details = db.inTransaction(em -> em.createQuery(
                "select e.detail from JobEvent e where e.jobId = :j and e.type in ('attempt_failed', 'retry_scheduled') "
                        + "order by e.id", String.class).setParameter("j", j.getId()).getResultList());
        assertThat(decision).isEqualTo("pause provider:smtp: retry after 1s (no attempt consumed)");
        assertThat(details).hasSize(2).allSatisfy(d -> assertThat(d).contains(decision));
    }

    @Test
    void aJobKeepsItsSubjectOrTemplateAndWhenItsProducerQueuedIt() throws Exception {
        SendService send = boot(SandboxProvider.NAME, true);
        java.time.Instant queued = java.time.Instant.parse("2026-12-01T23:00:00.123Z");
        handle(send, new Incoming("mail.send", "ID:queued-1", false, 1,
                job("kept-subject").getBytes(StandardCharsets.UTF_8), true, null, queued, null, null, null));

        MailJob j = jobRow("kept-subject");
        assertThat(j.getSubject()).isEqualTo("s");
        assertThat(j.getTemplateId()).isNull();
        assertThat(j.getQueuedAt()).isEqualTo(queued);
        assertThat(j.getReceivedAt()).as("when Mailroom took it: later").isAfter(queued);
    }

    // ---------------------------------------------------------------- send_at

    private static String scheduledJob(String id, String key, java.time.Instant sendAt, java.time.Instant expiresAt) {
        return """
                {"schema_version": 2, "message_id": "%s", "idempotency_key": "%s", "from": "noreply@example.com",
                 "to": ["alice@example.com"], "subject": "s", "text": "t", "send_at": "%s"%s}""".formatted(id, key, sendAt,
                expiresAt == null ? "" : ", \"expires_at\": \"" + expiresAt + "\"");
    }

    /** The copy the send path put on the broker for {@code in}, as the broker delivers it when it is due. */
    private static Incoming copyOf(Incoming in, String copyJmsMessageId) {
        return new Incoming(in.queue(), copyJmsMessageId, false, 1, in.body(), true, null, null, null, null, null);
    }

    private List<JobEvent> events(long jobId) {
        return db.inTransaction(em -> em.createQuery("select e from JobEvent e where e.jobId = :j order by e.id",
                JobEvent.class).setParameter("j", jobId).getResultList());
    }

    @Test
    void aJobWhoseSendAtIsAheadWaitsOnTheBrokerAsItsOwnCopyAndIsSentWhenTheCopyComes() throws Exception {
        SendService send = boot("smtp", false);
        java.time.Instant sendAt = CLOCK.instant().plusSeconds(30);
        Incoming in = delivery(scheduledJob("later-1", "later-1", sendAt, null));
        handle(send, in);

        MailJob j = jobRow("later-1");
        assertThat(j.getState()).isEqualTo(JobState.scheduled);
        assertThat(j.getSendAt()).isEqualTo(sendAt);
        assertThat(HANDED).as("no provider call before its time").isEmpty();
        assertThat(COPIES).containsExactly(in.jmsMessageId());
        assertThat(COPY_DELAYS).singleElement().satisfies(d ->
                assertThat(d).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30)));
        assertThat(j.getJmsMessageId()).as("the copy owns the job").isEqualTo("ID:copy-1");
        assertThat(timeline(j.getId())).containsExactly("received", "scheduled");
        assertThat(j.getAttemptCount()).isZero();

        // a second message with the same message_id while it waits: a duplicate, no second copy
        handle(send, delivery(scheduledJob("later-1", "later-1", sendAt, null)));
        assertThat(COPIES).hasSize(1);
        assertThat(jobRow("later-1").getState()).isEqualTo(JobState.scheduled);

        CLOCK.offset(Duration.ofSeconds(31));
        SCRIPT.add(c -> ProviderResponse.accepted("smtp", "250", "ok", "q-later"));
        handle(send, copyOf(in, "ID:copy-1"));
        assertThat(jobRow("later-1").getState()).isEqualTo(JobState.sent_to_provider);
        assertThat(HANDED).singleElement().satisfies(m -> assertThat(m.messageId()).isEqualTo("later-1"));
        assertThat(timeline(j.getId())).containsSubsequence("received", "scheduled", "duplicate_message_ignored",
                "attempt_started", "sent");
    }

    @Test
    void schedulingAJobIsOneCommitWithItsDeliverySoARollbackLeavesNothingAndTheRedeliverySchedulesItOnce()
            throws Exception {
        SendService send = boot("smtp", false);
        Incoming in = delivery(scheduledJob("later-tx", "later-tx", CLOCK.instant().plusSeconds(30), null));
        // the job's row, its copy and the acknowledgement commit together: the broker failing over takes all back
        assertThatThrownBy(() -> TestTransactions.delivery(() -> {
            send.handle(in);
            throw new BrokerFailover();
        })).isInstanceOf(BrokerFailover.class);
        assertThat(jobRows("later-tx")).isEmpty();

        long before = db.transactionsCommitted();
        handle(send, redelivery(in));
        assertThat(db.transactionsCommitted() - before).as("no transaction of its own, no provider routed").isEqualTo(1);
        MailJob j = jobRow("later-tx");
        assertThat(j.getState()).isEqualTo(JobState.scheduled);
        assertThat(timeline(j.getId())).containsExactly("received", "scheduled");
        assertThat(HANDED).isEmpty();
    }

    @Test
    void aScheduledJobCancelledBeforeItsTimeIsNeverSentAndTheCancellationSaysWhoAndWhy() throws Exception {
        SendService send = boot("smtp", false);
        Incoming in = delivery(scheduledJob("later-2", "later-2", CLOCK.instant().plusSeconds(30), null));
        handle(send, in);
        ScheduledSends scheduled = cdi.select(ScheduledSends.class).get();

        assertThatThrownBy(() -> TestTransactions.delivery(() -> scheduled.cancel("later-2", null, "alice", " ")))
                .isInstanceOfSatisfying(dev.mailroom.platform.Refused.Invalid.class,
                        r -> assertThat(r.reason()).isEqualTo("reason_required"));
        TestTransactions.delivery(() -> scheduled.cancel("later-2", null, "alice", "the customer cancelled the order"));
        MailJob j = jobRow("later-2");
        assertThat(j.getState()).isEqualTo(JobState.cancelled);
        assertThat(events(j.getId())).last().satisfies(e -> {
            assertThat(e.getType()).isEqualTo("cancelled");
            assertThat(e.getActor()).isEqualTo("alice");
            assertThat(e.getDetail()).contains("alice").contains("the customer cancelled the order")
                    .contains(j.getSendAt().toString());
        });
        assertThatThrownBy(() -> TestTransactions.delivery(() -> scheduled.cancel("later-2", null, "bob", "again")))
                .isInstanceOfSatisfying(dev.mailroom.platform.Refused.Conflict.class,
                        r -> assertThat(r.reason()).isEqualTo("not_scheduled"));

        // its time comes: the copy is ignored, nobody is called
        CLOCK.offset(Duration.ofSeconds(31));
        handle(send, copyOf(in, "ID:copy-1"));
        assertThat(HANDED).isEmpty();
        assertThat(jobRow("later-2").getState()).isEqualTo(JobState.cancelled);
        assertThat(timeline(j.getId())).containsExactly("received", "scheduled", "cancelled", "redelivery_ignored");
    }

    @Test
    void aJobThatIsNotScheduledCannotBeCancelled() throws Exception {
        SendService send = boot("smtp", false);
        SCRIPT.add(c -> ProviderResponse.accepted("smtp", "250", "ok", "q-now"));
        handle(send, delivery(job("now-1")));
        ScheduledSends scheduled = cdi.select(ScheduledSends.class).get();

        assertThatThrownBy(() -> TestTransactions.delivery(() -> scheduled.cancel("now-1", null, "alice", "too late")))
                .isInstanceOfSatisfying(dev.mailroom.platform.Refused.Conflict.class, r -> {
                    assertThat(r.reason()).isEqualTo("not_scheduled");
                    assertThat(r.getMessage()).contains("sent_to_provider");
                });
        assertThatThrownBy(() -> TestTransactions.delivery(() -> scheduled.cancel("nobody", null, "alice", "why")))
                .isInstanceOfSatisfying(dev.mailroom.platform.Refused.NotFound.class,
                        r -> assertThat(r.reason()).isEqualTo("job_not_found"));
    }

    @Test
    void twoScheduledJobsWithOneIdempotencyKeyAreSentOnce() throws Exception {
        SendService send = boot("smtp", false);
        java.time.Instant sendAt = CLOCK.instant().plusSeconds(30);
        Incoming a = delivery(scheduledJob("key-a", "reminder-9", sendAt, null));
        Incoming b = delivery(scheduledJob("key-b", "reminder-9", sendAt, null));
        handle(send, a);
        handle(send, b);
        assertThat(jobRow("key-a").getState()).isEqualTo(JobState.scheduled);
        assertThat(jobRow("key-b").getState()).as("the key is claimed when it goes, not while it waits")
                .isEqualTo(JobState.scheduled);

        CLOCK.offset(Duration.ofSeconds(31));
        SCRIPT.add(c -> ProviderResponse.accepted("smtp", "250", "ok", "q-a"));
        handle(send, copyOf(a, "ID:copy-1"));
        handle(send, copyOf(b, "ID:copy-2"));
        assertThat(HANDED).singleElement().satisfies(m -> assertThat(m.messageId()).isEqualTo("key-a"));
        assertThat(jobRow("key-a").getState()).isEqualTo(JobState.sent_to_provider);
        assertThat(jobRow("key-b").getState()).isEqualTo(JobState.duplicate_suppressed);
    }

    @Test
    void aSendAtInThePastSendsNowAndOneBeyondTheHorizonIsPoison() throws Exception {
        properties.set("mailroom.send-at.horizon", "1h");
        SendService send = boot("smtp", false);
        SCRIPT.add(c -> ProviderResponse.accepted("smtp", "250", "ok", "q-past"));
        handle(send, delivery(scheduledJob("past-1", "past-1", CLOCK.instant().minusSeconds(60), null)));
        assertThat(jobRow("past-1").getState()).isEqualTo(JobState.sent_to_provider);
        assertThat(COPIES).isEmpty();

        handle(send, delivery(scheduledJob("far-1", "far-1", CLOCK.instant().plusSeconds(3700), null)));
        assertThat(POISONED).containsExactly("send_at_beyond_horizon");
        assertThat(jobRows("far-1")).isEmpty();
        assertThat(COPIES).isEmpty();
        assertThat(HANDED).hasSize(1);
    }

    @Test
    void aScheduledJobsTimeToLiveCountsFromItsSendTimeAndACopyThatComesAfterItsWindowEndsExpired() throws Exception {
        properties.set("mailroom.validity.default-ttl", "20s");
        SendService send = boot("smtp", false);
        java.time.Instant sendAt = CLOCK.instant().plusSeconds(30);
        Incoming onTime = delivery(scheduledJob("ttl-1", "ttl-1", sendAt, null));
        handle(send, onTime);
        MailJob j = jobRow("ttl-1");
        assertThat(j.getState()).as("not expired by a window counted from its receipt").isEqualTo(JobState.scheduled);
        assertThat(j.getExpiresAt()).isEqualTo(sendAt.plusSeconds(20));

        java.time.Instant expiresAt = CLOCK.instant().plusSeconds(40);
        Incoming late = delivery(scheduledJob("late-1", "late-1", sendAt, expiresAt));
        handle(send, late);
        assertThat(jobRow("late-1").getState()).isEqualTo(JobState.scheduled);
        // the copies come after both windows (the line was stopped, the broker was down): never sent late
        CLOCK.offset(Duration.ofSeconds(55));
        handle(send, copyOf(onTime, "ID:copy-1"));
        handle(send, copyOf(late, "ID:copy-2"));
        assertThat(jobRow("ttl-1").getState()).isEqualTo(JobState.discarded);
        assertThat(jobRow("late-1").getState()).isEqualTo(JobState.discarded);
        assertThat(HANDED).isEmpty();
    }

    // ------------------------------------------------------------------ attachments

    private static final byte[] PDF = {'%', 'P', 'D', 'F', '-', '1', '.', '4', 0, (byte) 0xFF};

    private static String withAttachments(String id, String attachments) {
        return """
                {"schema_version": 2, "message_id": "%s", "from": "noreply@example.com", "to": ["alice@example.com"],
                 "subject": "s", "text": "t", "attachments": [%s]}""".formatted(id, attachments);
    }

    private static String inlinePdf() {
        return inline(PDF);
    }

    private static String inline(byte[] content) {
        return "{\"filename\": \"invoice.pdf\", \"content_type\": \"application/pdf\", \"content_base64\": \""
                + java.util.Base64.getEncoder().encodeToString(content) + "\"}";
    }

    private static String byReference(String url) {
        return ("{\"filename\": \"invoice.pdf\", \"content_type\": \"application/pdf\", \"url\": \"%s\", "
                + "\"sha256\": \"%s\", \"size\": %d}").formatted(url,
                dev.mailroom.provider.MailAttachment.sha256Of(PDF), PDF.length);
    }

    private static ProviderResponse acceptedBySmtp(SendCheckpoint checkpoint) {
        checkpoint.beforeIrrevocableWrite();
        return ProviderResponse.accepted("smtp", "250", "250 OK", "queued");
    }

    /** The {@code n}th retry copy the stand-in executor scheduled, as the broker delivers it. */
    private static Incoming copy(int n, String body) {
        return new Incoming("mail.send", "ID:copy-" + n, false, 1, body.getBytes(StandardCharsets.UTF_8), true,
                null, null, null, null, null);
    }

    /** A file server on loopback answering each request with the next status of {@code statuses} (the last repeats). */
    private static com.sun.net.httpserver.HttpServer files(java.util.concurrent.atomic.AtomicInteger requests,
                                                           int... statuses) throws java.io.IOException {
        com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/files/", ex -> {
            int n = requests.getAndIncrement();
            int status = statuses[Math.min(n, statuses.length - 1)];
            byte[] body = status == 200 ? PDF : "no".getBytes(StandardCharsets.US_ASCII);
            ex.sendResponseHeaders(status, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        server.start();
        return server;
    }

    @Test
    void theSandboxKeepsAJobsAttachmentsByteForByte() throws Exception {
        SendService send = boot(SandboxProvider.NAME, true);
        handle(send, delivery(withAttachments("files-sandbox", inlinePdf())));

        assertThat(jobRow("files-sandbox").getState()).isEqualTo(JobState.sent_to_provider);
        List<dev.mailroom.provider.sandbox.SandboxAttachment> kept = db.inTransaction(em -> em.createQuery(
                "select a from SandboxAttachment a", dev.mailroom.provider.sandbox.SandboxAttachment.class).getResultList());
        assertThat(kept).singleElement().satisfies(a -> {
            assertThat(a.getFilename()).isEqualTo("invoice.pdf");
            assertThat(a.getContentType()).isEqualTo("application/pdf");
            assertThat(a.getContent()).isEqualTo(PDF);
            assertThat(a.getSizeBytes()).isEqualTo(PDF.length);
        });
    }

    @Test
    void attachmentsTooLargeOrFromASourceNotAllowedArePoisonBeforeAnyClaimOrProviderCall() throws Exception {
        properties.set("mailroom.attachments.allowed-prefixes", "https://files.shop.example/mail/");
        properties.set("mailroom.attachments.max-bytes", Integer.toString(PDF.length));
        SendService send = boot("smtp", false);
        handle(send, delivery(withAttachments("files-off-list", byReference("http://127.0.0.1:9990/management"))));
        handle(send, delivery(withAttachments("files-too-large", inline(new byte[PDF.length + 1]))));

        assertThat(POISONED).containsExactly("attachment_not_allowed", "attachment_too_large");
        assertThat(HANDED).as("no provider call").isEmpty();
        assertThat(jobRows("files-off-list")).as("no claim: the job row is the dead-letter recorder's").isEmpty();
    }

    @Test
    void aSourceThatIsDownIsATransientAttemptNobodyElseHearsOfAndAFetchedFileIsNotFetchedForTheRetry() throws Exception {
        java.util.concurrent.atomic.AtomicInteger requests = new java.util.concurrent.atomic.AtomicInteger();
        com.sun.net.httpserver.HttpServer server = files(requests, 503, 200);
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/files/invoice.pdf";
            properties.set("mailroom.attachments.allowed-prefixes", "http://127.0.0.1:" + server.getAddress().getPort()
                    + "/files/");
            SendService send = boot("smtp", false);
            handle(send, delivery(withAttachments("files-503", byReference(url))));

            MailJob j = jobRow("files-503");
            assertThat(j.getState()).isEqualTo(JobState.retry_scheduled);
            JobAttempt first = db.inTransaction(em -> em.createQuery("select a from JobAttempt a where a.jobId = :j",
                    JobAttempt.class).setParameter("j", j.getId()).getSingleResult());
            assertThat(first.getFailureClass()).isEqualTo("transient");
            assertThat(first.getCode()).isEqualTo("503");
            assertThat(HANDED).as("the provider was not called").isEmpty();
            assertThat(ANSWERS).as("nor did the stop-the-line hear of it").isEmpty();
            assertThat(COPIES).hasSize(1);
            MeterRegistry registry = cdi.select(MeterRegistry.class, new Meters.Literal()).get();
            assertThat(registry.find("mailroom.attachment.fetch.failures").tag("class", "transient").counter())
                    .isNotNull().satisfies(c -> assertThat(c.count()).isEqualTo(1.0));
            assertThat(registry.find("mailroom.attempts").counters()).as("no provider attempt counted").isEmpty();

            // the retry's copy fetches it; the provider fails; the next copy has the file already
            SCRIPT.add(SendServiceCdiTest::tryLater);
            handle(send, copy(1, withAttachments("files-503", byReference(url))));
            SCRIPT.add(SendServiceCdiTest::acceptedBySmtp);
            handle(send, copy(2, withAttachments("files-503", byReference(url))));
            assertThat(jobRow("files-503").getState()).isEqualTo(JobState.sent_to_provider);
            assertThat(HANDED).hasSize(2).allSatisfy(m -> assertThat(m.attachments()).singleElement()
                    .satisfies(a -> assertThat(a.content()).isEqualTo(PDF)));
            assertThat(requests).as("503, then 200 once: the last retry took the checked bytes it had").hasValue(2);
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aFileThatIsNotThereIsDeadLetteredForManualReviewWithoutAProviderCallWhateverAnotherJobFetched() throws Exception {
        java.util.concurrent.atomic.AtomicInteger requests = new java.util.concurrent.atomic.AtomicInteger();
        com.sun.net.httpserver.HttpServer server = files(requests, 200, 404);
        try {
            String prefix = "http://127.0.0.1:" + server.getAddress().getPort() + "/files/";
            properties.set("mailroom.attachments.allowed-prefixes", prefix);
            SendService send = boot("smtp", false);
            SCRIPT.add(SendServiceCdiTest::acceptedBySmtp);
            handle(send, delivery(withAttachments("files-there", byReference(prefix + "there.pdf"))));
            // the same bytes (same SHA-256) named at another URL: that URL answers for this job
            handle(send, delivery(withAttachments("files-404", inlinePdf() + ", " + byReference(prefix + "gone.pdf"))));

            assertThat(DEAD_LETTERED).singleElement().asString().startsWith("manual_review content_policy: attachment 1 "
                    + "(invoice.pdf) from " + prefix + "gone.pdf: the source answered 404 (not there)");
            assertThat(HANDED).as("only the first job's call").hasSize(1);
            assertThat(ANSWERS).as("the stop-the-line heard only the provider's answer").containsExactly("accepted");
            assertThat(requests).hasValue(2);
        } finally {
            server.stop(0);
        }
    }
    // ---------------------------------------------------------------- ordering keys

    private static String keyedJob(String id, String key) {
        return """
                {"schema_version": 3, "message_id": "%s", "from": "noreply@example.com", "to": ["alice@example.com"],
                 "subject": "s", "text": "t", "ordering_key": "%s"}""".formatted(id, key);
    }

    private static ProviderResponse contentRefused(SendCheckpoint checkpoint) {
        return new ProviderResponse(ProviderResponse.Status.REJECTED, "smtp", "554", "5.7.1", "554 5.7.1 refused",
                null, null, null);
    }

    private List<String> handedIds() {
        return HANDED.stream().map(OutboundMail::messageId).toList();
    }

    @Test
    void theJobsOfAKeyWaitBehindAHeadWhoseRetryIsScheduledAndGoInOrderOneAfterTheOther() throws Exception {
        SendService send = boot("smtp", false);
        SCRIPT.add(SendServiceCdiTest::tryLater);
        handle(send, delivery(keyedJob("order-7/confirmed", "order-7")));
        assertThat(jobRow("order-7/confirmed").getState()).isEqualTo(JobState.retry_scheduled);

        // the later jobs of the key wait, recorded, without a provider call or a copy on the broker
        Incoming shipped = delivery(keyedJob("order-7/shipped", "order-7"));
        handle(send, shipped);
        handle(send, delivery(keyedJob("order-7/delivered", "order-7")));
        assertThat(jobRow("order-7/shipped").getState()).isEqualTo(JobState.waiting_for_key);
        assertThat(jobRow("order-7/delivered").getState()).isEqualTo(JobState.waiting_for_key);
        assertThat(jobRow("order-7/delivered").getKeySeq()).isEqualTo(3L);
        assertThat(COPIES).as("only the head's retry").hasSize(1);
        assertThat(db.<byte[]>inTransaction(em -> em.find(dev.mailroom.job.KeyWait.class,
                jobRow("order-7/shipped").getId()).getMessage().getPayload())).isEqualTo(shipped.body());
        // another key is not held up
        SCRIPT.add(SendServiceCdiTest::acceptedBySmtp);
        handle(send, delivery(keyedJob("order-8/confirmed", "order-8")));
        assertThat(jobRow("order-8/confirmed").getState()).isEqualTo(JobState.sent_to_provider);
        // a redelivery of a waiting job's message changes nothing
        handle(send, redelivery(shipped));
        assertThat(jobRow("order-7/shipped").getState()).isEqualTo(JobState.waiting_for_key);
        assertThat(COPIES).hasSize(1);

        // the head's retry goes: sent, and only the next job of its key is released, as a copy of its own bytes
        SCRIPT.add(SendServiceCdiTest::acceptedBySmtp);
        handle(send, copy(1, keyedJob("order-7/confirmed", "order-7")));
        assertThat(COPIES).containsExactly("ID:d-1", shipped.jmsMessageId());
        assertThat(COPY_DELAYS.get(1)).isZero();
        assertThat(jobRow("order-7/shipped").getState()).isEqualTo(JobState.received);
        assertThat(jobRow("order-7/delivered").getState()).isEqualTo(JobState.waiting_for_key);
        SCRIPT.add(SendServiceCdiTest::acceptedBySmtp);
        handle(send, copy(2, keyedJob("order-7/shipped", "order-7")));
        SCRIPT.add(SendServiceCdiTest::acceptedBySmtp);
        handle(send, copy(3, keyedJob("order-7/delivered", "order-7")));

        assertThat(handedIds()).containsExactly("order-7/confirmed", "order-8/confirmed", "order-7/confirmed",
                "order-7/shipped", "order-7/delivered");
        assertThat(jobRow("order-7/delivered").getState()).isEqualTo(JobState.sent_to_provider);
        assertThat(timeline(jobRow("order-7/shipped").getId())).containsExactly("received", "waiting_for_key",
                "redelivery_ignored", "released_by_key", "attempt_started", "sent");
        assertThat(db.<Long>inTransaction(em -> em.createQuery("select count(w) from KeyWait w", Long.class)
                .getSingleResult())).isZero();
    }

    /** Job {@code <key>/a} fails, {@code <key>/b} waits behind it, then a's retry is refused for good: dead-lettered. */
    private SendService headDeadLetteredWithOneBehind(String key) throws Exception {
        SendService send = boot("smtp", false);
        SCRIPT.add(SendServiceCdiTest::tryLater);
        handle(send, delivery(keyedJob(key + "/a", key)));
        handle(send, delivery(keyedJob(key + "/b", key)));
        SCRIPT.add(SendServiceCdiTest::contentRefused);
        handle(send, copy(1, keyedJob(key + "/a", key)));
        return send;
    }

    @Test
    void aDeadLetteredHeadLetsTheNextGoOnAQueueSetToContinue() throws Exception {
        headDeadLetteredWithOneBehind("acct-1");

        assertThat(jobRow("acct-1/a").getState()).isEqualTo(JobState.dead_lettered);
        assertThat(jobRow("acct-1/b").getState()).isEqualTo(JobState.received);
        assertThat(COPIES).hasSize(2);
    }

    @Test
    void aDeadLetteredHeadHoldsItsKeyOnAQueueSetToHold() throws Exception {
        properties.set("mailroom.ordering.after-dead-letter", "hold");
        SendService send = headDeadLetteredWithOneBehind("acct-2");
        // a job of the key that comes after the hold waits too, though nothing before it is unfinished but b
        handle(send, delivery(keyedJob("acct-2/c", "acct-2")));

        assertThat(jobRow("acct-2/a").getState()).isEqualTo(JobState.dead_lettered);
        assertThat(jobRow("acct-2/b").getState()).isEqualTo(JobState.waiting_for_key);
        assertThat(jobRow("acct-2/c").getState()).isEqualTo(JobState.waiting_for_key);
        assertThat(COPIES).as("the head's retry only").hasSize(1);
        String why = db.inTransaction(em -> (String) em.createNativeQuery(
                "select held_reason from ordering_key where ordering_key = 'acct-2'").getSingleResult());
        assertThat(why).contains("acct-2/a", "dead_lettered");
        dev.mailroom.job.KeyLedger keys = cdi.select(dev.mailroom.job.KeyLedger.class).get();
        assertThat(TestTransactions.delivery(() -> keys.held("mail.send", 10))).singleElement().satisfies(k -> {
            assertThat(k.orderingKey()).isEqualTo("acct-2");
            assertThat(k.waiting()).isEqualTo(2);
        });

        // an operator releases the key: b goes, then c after it, in order
        KeyOrders orders = cdi.select(KeyOrders.class).get();
        assertThatThrownBy(() -> orders.release("mail.send", "acct-2", "op", " "))
                .isInstanceOf(dev.mailroom.platform.Refused.Invalid.class);
        orders.release("mail.send", "acct-2", "op", "the customer's address is fixed");
        assertThat(TestTransactions.delivery(() -> keys.held("mail.send", 10))).isEmpty();
        assertThat(COPIES).hasSize(2);
        assertThat(jobRow("acct-2/b").getState()).isEqualTo(JobState.received);
        assertThat(jobRow("acct-2/c").getState()).isEqualTo(JobState.waiting_for_key);
        assertThat(timeline(jobRow("acct-2/b").getId())).containsSubsequence("waiting_for_key", "key_hold_released",
                "released_by_key");
        SCRIPT.add(SendServiceCdiTest::acceptedBySmtp);
        handle(send, copy(2, keyedJob("acct-2/b", "acct-2")));
        SCRIPT.add(SendServiceCdiTest::acceptedBySmtp);
        handle(send, copy(3, keyedJob("acct-2/c", "acct-2")));
        assertThat(handedIds()).containsExactly("acct-2/a", "acct-2/a", "acct-2/b", "acct-2/c");
        // a key that is not held, or that the queue never saw, is refused with a reason
        assertThatThrownBy(() -> orders.release("mail.send", "acct-2", "op", "again"))
                .isInstanceOfSatisfying(dev.mailroom.platform.Refused.Conflict.class,
                        e -> assertThat(e.getMessage()).contains("is not held"));
        assertThatThrownBy(() -> orders.release("mail.send", "no-such-key", "op", "why"))
                .isInstanceOf(dev.mailroom.platform.Refused.NotFound.class);
    }

    @Test
    void anUnknownHeadMarkedSentLiftsTheHoldOfItsKeyAndTheNextGoes() throws Exception {
        properties.set("mailroom.ordering.after-dead-letter", "hold");
        SendService send = boot("smtp", false);
        SCRIPT.add(c -> timeoutAfterTheFinalDot(c, "smtp"));
        handle(send, delivery(keyedJob("acct-3/a", "acct-3")));
        handle(send, delivery(keyedJob("acct-3/b", "acct-3")));
        assertThat(jobRow("acct-3/a").getState()).isEqualTo(JobState.unknown);
        assertThat(jobRow("acct-3/b").getState()).as("held behind the unknown head").isEqualTo(JobState.waiting_for_key);

        cdi.select(UnknownSends.class).get().markSent("acct-3/a", "mail.send", "op", "the relay's log shows it sent");

        assertThat(jobRow("acct-3/b").getState()).isEqualTo(JobState.received);
        assertThat(COPIES).as("b's copy goes to its queue").hasSize(1);
        assertThat(timeline(jobRow("acct-3/a").getId())).containsSubsequence("marked_sent", "key_hold_lifted");
        assertThat(TestTransactions.delivery(() -> cdi.select(dev.mailroom.job.KeyLedger.class).get()
                .held("mail.send", 10))).isEmpty();
    }

    /** The sweeper recording a dead letter the broker routed by itself, as far as a key is concerned: its event. */
    private void brokerDeadLettered(String messageId) throws Exception {
        TestTransactions.delivery(() -> {
            MailJob head = cdi.select(JobLedger.class).get().byMessageId(messageId, "mail.send").get(0);
            cdi.select(JobLedger.class).get().moveTo(head, JobState.dead_lettered, CLOCK.instant());
            cdi.getBeanManager().getEvent().select(dev.mailroom.deadletter.DeadLetterArrived.class).fire(
                    new dev.mailroom.deadletter.DeadLetterArrived(1, new dev.mailroom.deadletter.DeadLetterEnvelope(
                            "redelivery_limit", "internal", messageId, null, "mail.send", "mailroom", "test", List.of(),
                            CLOCK.instant(), CLOCK.instant(), "redelivery_limit", "the broker moved it", null, null,
                            null, null, null, null, dev.mailroom.deadletter.DeadLetterEnvelope.ROUTED_BY_BROKER,
                            "ID:x", "sha"), true));
            return null;
        });
    }

    @Test
    void aHeadTheBrokerDeadLetteredLetsItsKeyGoOnOnAQueueSetToContinue() throws Exception {
        SendService send = boot("smtp", false);
        SCRIPT.add(SendServiceCdiTest::tryLater);
        handle(send, delivery(keyedJob("acct-4/a", "acct-4")));
        handle(send, delivery(keyedJob("acct-4/b", "acct-4")));

        brokerDeadLettered("acct-4/a");

        assertThat(jobRow("acct-4/b").getState()).as("continue: the next goes").isEqualTo(JobState.received);
        assertThat(COPIES).as("a's retry, then b's release").hasSize(2);
        assertThat(timeline(jobRow("acct-4/b").getId())).contains("released_by_key");
    }

    @Test
    void aHeadTheBrokerDeadLetteredHoldsItsKeyOnAQueueSetToHold() throws Exception {
        properties.set("mailroom.ordering.after-dead-letter", "hold");
        SendService send = boot("smtp", false);
        SCRIPT.add(SendServiceCdiTest::tryLater);
        handle(send, delivery(keyedJob("acct-5/a", "acct-5")));
        handle(send, delivery(keyedJob("acct-5/b", "acct-5")));

        brokerDeadLettered("acct-5/a");

        assertThat(jobRow("acct-5/b").getState()).isEqualTo(JobState.waiting_for_key);
        assertThat(TestTransactions.delivery(() -> cdi.select(dev.mailroom.job.KeyLedger.class).get()
                .held("mail.send", 10))).singleElement().satisfies(k -> assertThat(k.orderingKey()).isEqualTo("acct-5"));
    }

    @Test
    void theSameKeyOnAnotherQueueIsAnotherKey() throws Exception {
        SendService send = boot("smtp", false);
        SCRIPT.add(SendServiceCdiTest::tryLater);
        handle(send, delivery(keyedJob("q-1", "shared")));
        SCRIPT.add(SendServiceCdiTest::acceptedBySmtp);
        handle(send, new Incoming("mail.send.bulk", "ID:bulk-1", false, 1,
                keyedJob("q-2", "shared").replace("\"ordering_key\"", "\"unsubscribe\": {\"url\": \"https://example.com/u\"}, \"ordering_key\"")
                        .getBytes(StandardCharsets.UTF_8), true, null, null, null, null, null));
        assertThat(jobRow("q-2").getState()).isEqualTo(JobState.sent_to_provider);
    }
}
