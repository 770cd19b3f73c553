package dev.mailroom.deadletter;

import dev.mailroom.ops.BuildInfo;
import dev.mailroom.ops.MailroomConfig;
import dev.mailroom.send.Destinations;
import dev.mailroom.send.Incoming;
import dev.mailroom.send.JobLedger;
import dev.mailroom.send.JobState;
import dev.mailroom.send.MailJob;
import dev.mailroom.send.ParseResult;
import dev.mailroom.send.SendJob;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSProducer;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.logging.Logger;

/**
 * Dead-letters a message in the delivery's own transaction: a copy of the original payload,
 * byte-for-byte, goes to the send queue's DLQ ({@code DLQ.<queue>}) with the envelope as {@code mr_*}
 * properties, and the same envelope is written to the {@code dead_letter} table. The delivery is then
 * acknowledged: the message leaves the send queue only together with its dead-letter record.
 */
@ApplicationScoped
public class DeadLetterRecorder {

    /** How much of a payload the dead_letter row keeps; the DLQ message keeps all of it. */
    public static final int MAX_STORED_PAYLOAD = 64 * 1024;
    /** Envelope format version, also the {@code mr_schema_version} property. */
    public static final int ENVELOPE_SCHEMA_VERSION = 1;
    private static final int MAX_ERROR = 4000;
    private static final Logger LOG = Logger.getLogger(DeadLetterRecorder.class.getName());

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Inject
    JMSContext jms;
    @Inject
    JobLedger ledger;
    @Inject
    MailroomConfig config;
    @Inject
    BuildInfo build;
    @Inject
    Clock clock;

    @Inject
    Destinations destinations;

    /** Dead-letters a message that is not a valid job (reason {@code poison}, failure class {@code poison}). */
    @Transactional(Transactional.TxType.MANDATORY)
    public DeadLetter poison(Incoming in, ParseResult.Rejected rejected) {
        Instant now = clock.instant();
        String error = rejected.reason() + ": " + rejected.detail();
        Long jobId = null;
        if (rejected.messageId() != null) {
            jobId = recordOnJob(in, rejected, error, now);
        }
        String messageId = rejected.messageId() != null ? rejected.messageId() : "jms:" + in.jmsMessageId();
        DeadLetter dl = upsert(in, messageId, jobId, "poison", "poison", bound(error), rejected.reason().name(), now);
        sendToDlq(in, dl);
        LOG.warning(() -> String.format("dead-lettered %s from %s to DLQ.%s: %s", messageId, in.queue(), in.queue(), bound(error)));
        return dl;
    }

    /**
     * Dead-letters a job the recoverability policy gave up on ({@code retries_exhausted},
     * {@code manual_review}, {@code unmapped_error}, {@code handler_error}, ...).
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public DeadLetter deadLetter(Incoming in, MailJob job, String reason, String failureClass, String error,
                                 String errorType) {
        Instant now = clock.instant();
        ledger.moveTo(job, JobState.dead_lettered, now);
        ledger.event(job, "dead_lettered", reason + " (" + failureClass + "): " + bound(error), now);
        DeadLetter dl = upsert(in, job.getMessageId(), job.getId(), reason, failureClass, bound(error), errorType, now);
        sendToDlq(in, dl);
        LOG.warning(() -> String.format("dead-lettered %s from %s to DLQ.%s: %s (%s)", job.getMessageId(), in.queue(),
                in.queue(), reason, failureClass));
        return dl;
    }

    private Long recordOnJob(Incoming in, ParseResult.Rejected rejected, String error, Instant now) {
        // A job row makes the rejection visible in GET /jobs/{message_id} and its timeline.
        SendJob stub = new SendJob(0, rejected.messageId(), null, null, null, null, null, List.of(), null, null,
                null, null, null, null, null, null, null, null, null, null);
        MailJob job = ledger.receive(in, stub, JobState.dead_lettered, now);
        if (job.getState() == JobState.received || job.getState() == JobState.dead_lettered) {
            ledger.moveTo(job, JobState.dead_lettered, now);
            ledger.event(job, "dead_lettered", "poison: " + error, now);
        } else {
            ledger.event(job, "poison_copy_dead_lettered",
                    "a copy of this job (JMS message " + in.jmsMessageId() + ") was poison: " + error, now);
        }
        return job.getId();
    }

    private DeadLetter upsert(Incoming in, String messageId, Long jobId, String reason, String failureClass,
                              String error, String errorType, Instant now) {
        String consumer = config.consumerName();
        List<DeadLetter> existing = em.createQuery(
                        "select d from DeadLetter d where d.consumer = :c and d.messageId = :m", DeadLetter.class)
                .setParameter("c", consumer)
                .setParameter("m", messageId)
                .getResultList();
        DeadLetter dl = existing.isEmpty() ? new DeadLetter(consumer, messageId, in.queue(), now) : existing.get(0);
        byte[] body = in.body();
        dl.failed(jobId, reason, failureClass, error, errorType,
                Arrays.copyOf(body, Math.min(body.length, MAX_STORED_PAYLOAD)), body.length, sha256(body),
                in.jmsMessageId(), in.traceId(), build.consumerVersion(), now);
        if (existing.isEmpty()) {
            em.persist(dl);
        }
        em.flush();
        return dl;
    }

    private void sendToDlq(Incoming in, DeadLetter dl) {
        JMSProducer p = jms.createProducer()
                .setProperty("mr_schema_version", ENVELOPE_SCHEMA_VERSION)
                .setProperty("mr_reason", dl.getReason())
                .setProperty("mr_failure_class", dl.getFailureClass())
                .setProperty("mr_message_id", dl.getMessageId())
                .setProperty("mr_source_queue", in.queue())
                .setProperty("mr_consumer", dl.getConsumer())
                .setProperty("mr_consumer_version", dl.getConsumerVersion())
                .setProperty("mr_error_type", dl.getErrorType())
                .setProperty("mr_error", dl.getError())
                .setProperty("mr_failed_at", dl.getFailedAt().toString())
                .setProperty("mr_first_seen_at", dl.getFirstSeenAt().toString())
                .setProperty("mr_original_jms_message_id", in.jmsMessageId())
                .setProperty("mr_payload_sha256", dl.getPayloadSha256());
        if (dl.getTraceId() != null) {
            p.setProperty("mr_trace_id", dl.getTraceId());
        }
        if (in.textMessage()) {
            p.send(destinations.deadLetterQueue(in.queue()), new String(in.body(), StandardCharsets.UTF_8));
        } else {
            p.send(destinations.deadLetterQueue(in.queue()), in.body());
        }
    }

    static String bound(String s) {
        return s == null || s.length() <= MAX_ERROR ? s : s.substring(0, MAX_ERROR);
    }

    static String sha256(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
