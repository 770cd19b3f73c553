package dev.mailroom.deadletter;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.mailroom.platform.BuildInfo;
import dev.mailroom.platform.MailroomConfig;
import dev.mailroom.platform.Destinations;
import dev.mailroom.job.Incoming;
import dev.mailroom.job.JmsMessages;
import dev.mailroom.job.JobLedger;
import dev.mailroom.job.JobQueries;
import dev.mailroom.job.JobState;
import dev.mailroom.job.MailJob;
import dev.mailroom.job.ParseResult;
import dev.mailroom.job.SendJob;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
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
    public static final String SYSTEM = "system";
    private static final Logger LOG = Logger.getLogger(DeadLetterRecorder.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Inject
    JMSContext jms;
    @Inject
    Destinations destinations;
    @Inject
    JobLedger ledger;
    @Inject
    JobQueries jobs;
    @Inject
    MailroomConfig config;
    @Inject
    DeadLetterRetention retention;
    @Inject
    BuildInfo build;
    @Inject
    Clock clock;
    @Inject
    Event<DeadLetterArrived> arrivals;
    @Inject
    DeadLetterCounts counts;

    /** Dead-letters a message that is not a valid job (reason {@code poison}, failure class {@code poison}). */
    @Transactional(Transactional.TxType.MANDATORY)
    public DeadLetter poison(Incoming in, ParseResult.Rejected rejected) {
        Instant now = clock.instant();
        String error = rejected.reason() + ": " + rejected.detail();
        MailJob job = null;
        if (rejected.messageId() != null) {
            job = recordOnJob(in, rejected, error, now);
        }
        String messageId = rejected.messageId() != null ? rejected.messageId() : "jms:" + in.jmsMessageId();
        DeadLetterEnvelope envelope = envelope(in, job, messageId, "poison", "poison", error,
                rejected.reason().name(), null, DeadLetterEnvelope.ROUTED_BY_POLICY, now);
        return recordAndCopy(in, envelope, job);
    }

    /**
     * Dead-letters a job the recoverability policy gave up on ({@code retries_exhausted},
     * {@code manual_review}, {@code unmapped_error}, {@code handler_error}, ...).
     *
     * @param cause the exception behind an internal failure (its stack trace is kept), or null
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public DeadLetter deadLetter(Incoming in, MailJob job, String reason, String failureClass, String error,
                                 String errorType, Throwable cause) {
        Instant now = clock.instant();
        ledger.moveTo(job, JobState.dead_lettered, now);
        ledger.event(job, "dead_lettered", reason + " (" + failureClass + "): "
                + DeadLetterEnvelope.bound(error, 3000), now);
        DeadLetterEnvelope envelope = envelope(in, job, job.getMessageId(), reason, failureClass, error, errorType,
                cause == null ? null : stackTrace(cause), DeadLetterEnvelope.ROUTED_BY_POLICY, now);
        return recordAndCopy(in, envelope, job);
    }

    /**
     * Records a message the broker dead-lettered by itself (after max-delivery-attempts), joined with what
     * the database knows of the job, and puts it back on the DLQ with its envelope: the caller (the sweeper)
     * has taken the bare copy off the DLQ in the same transaction, so every DLQ message carries the
     * envelope and the bare one is recorded once.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public DeadLetter recordBrokerRouted(Incoming in, MailJob job, String messageId, Instant failedAt) {
        DeadLetterEnvelope envelope = brokerRouted(in, job, messageId, failedAt);
        if (job != null && !job.getState().finished()) {
            ledger.moveTo(job, JobState.dead_lettered, failedAt);
            ledger.event(job, "dead_lettered", "redelivery_limit: " + envelope.error(), failedAt);
        }
        DeadLetter dl = store(in, envelope, job);
        dl.dlqCopy(sendToDlq(in, envelope, dl.getAttempts(), dl.getLap()));
        return dl;
    }

    /**
     * Puts another broker-routed copy of a dead letter already recorded back on the DLQ with its envelope
     * (the caller took the bare copy off): the row is not rewritten and nothing is announced again. If
     * the row pointed at this very copy (recorded before copies carried their envelope), it now points
     * at the enveloped one.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void reEnvelope(Incoming in, MailJob job, DeadLetter recorded, Instant failedAt) {
        DeadLetterEnvelope envelope = brokerRouted(in, job, recorded.getMessageId(), failedAt);
        String copy = sendToDlq(in, envelope, attemptsJson(envelope), recorded.getLap());
        if (in.jmsMessageId() != null && in.jmsMessageId().equals(recorded.getDlqJmsMessageId())) {
            recorded.dlqCopy(copy);
        }
    }

    private DeadLetterEnvelope brokerRouted(Incoming in, MailJob job, String messageId, Instant failedAt) {
        String error = "the broker moved it to DLQ." + in.queue() + " after its delivery limit: every delivery failed"
                + " in a way the handler did not foresee (see the server log)";
        return envelope(in, job, messageId, "redelivery_limit", "internal", error, "redelivery_limit", null,
                DeadLetterEnvelope.ROUTED_BY_BROKER, failedAt);
    }

    private MailJob recordOnJob(Incoming in, ParseResult.Rejected rejected, String error, Instant now) {
        // A job row makes the rejection visible in GET /jobs/{message_id} and its timeline.
        SendJob stub = new SendJob(0, rejected.messageId(), null, null, null, null, null, List.of(), null, null,
                null, null, null, null, null, null, null, null, null, null, null, null);
        MailJob job = ledger.receive(in, stub, JobState.dead_lettered, now);
        if (job.getState() == JobState.received || job.getState() == JobState.dead_lettered) {
            ledger.moveTo(job, JobState.dead_lettered, now);
            ledger.event(job, "dead_lettered", "poison: " + error, now);
        } else {
            ledger.event(job, "poison_copy_dead_lettered",
                    "a copy of this job (JMS message " + in.jmsMessageId() + ") was poison: " + error, now);
        }
        return job;
    }

    private DeadLetterEnvelope envelope(Incoming in, MailJob job, String messageId, String reason,
                                        String failureClass, String error, String errorType, String stacktrace,
                                        String routedBy, Instant now) {
        List<DeadLetterEnvelope.AttemptEntry> attempts = job == null ? List.of() : jobs.attempts(job.getId()).stream()
                .map(a -> new DeadLetterEnvelope.AttemptEntry(a.number(), a.startedAt(), a.provider(),
                        a.failureClass(), a.outcome(), a.code(), a.enhancedCode(), a.response()))
                .toList();
        String provider = job != null ? job.getProvider() : null;
        return new DeadLetterEnvelope(reason, failureClass, messageId,
                job != null ? job.getIdempotencyKey() : null, in.queue(), config.consumerName(),
                build.consumerVersion(), attempts, job != null ? job.getReceivedAt() : now, now, errorType, error,
                stacktrace, job != null && job.getTraceId() != null ? job.getTraceId() : in.traceId(),
                job != null ? job.getCampaignId() : null, job != null ? job.getTenant() : null, provider,
                job != null ? job.getExpiresAt() : null, routedBy, in.jmsMessageId(), sha256(in.body()));
    }

    private DeadLetter recordAndCopy(Incoming in, DeadLetterEnvelope envelope, MailJob job) {
        DeadLetter dl = store(in, envelope, job);
        dl.dlqCopy(sendToDlq(in, envelope, dl.getAttempts(), dl.getLap()));
        LOG.warning(() -> String.format("dead-lettered %s from %s to DLQ.%s: %s (%s): %s", envelope.messageId(),
                in.queue(), in.queue(), envelope.reason(), envelope.failureClass(),
                DeadLetterEnvelope.bound(envelope.error(), 500)));
        return dl;
    }

    /**
     * Upserts the row for (consumer, source queue, message_id): the latest lap is updated, unless it was
     * replayed, in which case the dead letter starts its next lap, linked to it. The unique constraint on
     * (consumer, source_queue, message_id, lap) makes a racing second insert fail.
     */
    DeadLetter store(Incoming in, DeadLetterEnvelope envelope, MailJob job) {
        DeadLetter latest = current(in, envelope.consumer(), envelope.messageId());
        boolean nextLap = latest != null && DeadLetter.Status.replayed.name().equals(latest.getStatus());
        boolean first = latest == null || nextLap;
        DeadLetter dl = latest == null ? new DeadLetter(envelope.consumer(), envelope.messageId(), in.queue())
                : nextLap ? DeadLetter.nextLap(latest) : latest;
        DeadLetterCounts.Counted before = first ? null : DeadLetterCounts.Counted.of(dl);
        byte[] body = in.body();
        Instant retentionUntil = envelope.failedAt().plus(
                retention.forQueue(in.queue()));
        dl.record(envelope, job == null ? null : job.getId(), attemptsJson(envelope),
                Arrays.copyOf(body, Math.min(body.length, MAX_STORED_PAYLOAD)), body.length, retentionUntil);
        if (first) {
            em.persist(dl);
            em.flush();
            em.persist(new DeadLetterEvent(dl.getId(), envelope.failedAt(), null, DeadLetter.Status.open.name(),
                    SYSTEM, envelope.reason() + " (" + envelope.routedBy() + ")" + (nextLap ? "; lap " + dl.getLap()
                    + ": dead-lettered again after replay of dead letter " + latest.getId()
                    + (in.redriveId() != null ? " by redrive " + in.redriveId() : "") : "")));
        } else if (!DeadLetter.Status.open.name().equals(dl.getStatus())) {
            // the same message failed again without a replay in between: it is open again
            em.persist(new DeadLetterEvent(dl.getId(), envelope.failedAt(), dl.getStatus(),
                    DeadLetter.Status.open.name(), SYSTEM, "dead-lettered again: " + envelope.reason()));
            dl.redriveStatus(DeadLetter.Status.open, null, envelope.failedAt());
        }
        em.flush();
        counts.apply(before, DeadLetterCounts.Counted.of(dl));
        arrivals.fire(new DeadLetterArrived(dl.getId(), envelope, first));
        return dl;
    }

    /**
     * The row a dead letter of this message is recorded onto (or, if replayed, after): the lap a replay
     * failed onto, else the latest lap of (consumer, source queue, message_id); null if there is none.
     */
    DeadLetter current(Incoming in, String consumer, String messageId) {
        DeadLetter latest = in.replayOf() == null ? null : replayed(in.replayOf(), consumer);
        if (latest != null) {
            return latest;
        }
        List<DeadLetter> existing = em.createQuery("""
                        select d from DeadLetter d where d.consumer = :c and d.sourceQueue = :q and d.messageId = :m
                        order by d.lap desc""", DeadLetter.class)
                .setParameter("c", consumer)
                .setParameter("q", in.queue())
                .setParameter("m", messageId)
                .setMaxResults(1)
                .getResultList();
        return existing.isEmpty() ? null : existing.get(0);
    }

    /**
     * The row a replay of dead letter {@code replayOf} fails onto: the lap after it if one exists already
     * (the replay failed before), else the replayed entry itself (its next lap starts). The link goes by
     * the replay's own property, so a replay whose message id is not in its payload still links.
     */
    private DeadLetter replayed(long replayOf, String consumer) {
        List<DeadLetter> laps = em.createQuery("""
                        select d from DeadLetter d where d.previousDeadLetterId = :p and d.consumer = :c order by d.lap desc""",
                        DeadLetter.class)
                .setParameter("p", replayOf)
                .setParameter("c", consumer)
                .setMaxResults(1)
                .getResultList();
        if (!laps.isEmpty()) {
            return laps.get(0);
        }
        DeadLetter previous = em.find(DeadLetter.class, replayOf);
        return previous != null && previous.getConsumer().equals(consumer) ? previous : null;
    }

    private String sendToDlq(Incoming in, DeadLetterEnvelope envelope, String attemptsJson, int lap) {
        try {
            Message copy = JmsMessages.copyOf(jms, in);
            for (Map.Entry<String, Object> p : envelope.jmsProperties(attemptsJson).entrySet()) {
                copy.setObjectProperty(p.getKey(), p.getValue());
            }
            copy.setIntProperty(DeadLetterCopies.LAP_PROPERTY, lap);
            jms.createProducer().send(destinations.deadLetterQueue(in.queue()), copy);
            return copy.getJMSMessageID();
        } catch (JMSException e) {
            throw new IllegalStateException("cannot dead-letter " + envelope.messageId() + " to DLQ." + in.queue(), e);
        }
    }

    static String attemptsJson(DeadLetterEnvelope envelope) {
        try {
            List<DeadLetterEnvelope.AttemptEntry> attempts = envelope.attempts();
            String json = JSON.writeValueAsString(attempts);
            // keep the newest attempts when the history is too long for a header and a row
            while (json.length() > DeadLetterEnvelope.MAX_ATTEMPTS_JSON && attempts.size() > 1) {
                attempts = attempts.subList(1, attempts.size());
                json = JSON.writeValueAsString(attempts);
            }
            return DeadLetterEnvelope.bound(json, DeadLetterEnvelope.MAX_ATTEMPTS_JSON);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static String stackTrace(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
    }

    static String sha256(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
