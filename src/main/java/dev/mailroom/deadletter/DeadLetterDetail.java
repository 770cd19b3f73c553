package dev.mailroom.deadletter;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/** One dead letter whole, as its detail page and the JMX operations read it: the envelope with its history. */
@ApplicationScoped
public class DeadLetterDetail {

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;

    /**
     * The whole envelope; {@code payloadBase64} is the stored (possibly truncated) payload, null once
     * retention expired it; {@code attempts} is the attempt history as JSON.
     */
    public record Envelope(long id, int schemaVersion, String consumer, String messageId, String idempotencyKey,
                           Long jobId, String sourceQueue, String reason, String failureClass, String status,
                           String routedBy, String errorType, String error, String stacktrace,
                           int attemptCount, com.fasterxml.jackson.databind.JsonNode attempts, String payloadBase64,
                           long payloadSize, String payloadSha256, boolean payloadTruncated, String jmsMessageId,
                           String dlqJmsMessageId, String traceId, String consumerVersion, String campaignId,
                           String tenant, String provider, Instant expiresAt, Instant firstSeenAt, Instant failedAt,
                           Instant retentionUntil, Instant retentionAlertedAt, Instant statusChangedAt,
                           List<StatusChange> history, int lap, Long previousDeadLetterId, String redriveId,
                           long revisions, Long nextDeadLetterId) { }

    public record StatusChange(Instant at, String fromStatus, String toStatus, String actor, String reason) { }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    public Optional<Envelope> envelope(long id) {
        return Optional.ofNullable(em.find(DeadLetter.class, id)).map(d -> new Envelope(d.getId(),
                DeadLetterEnvelope.SCHEMA_VERSION, d.getConsumer(), d.getMessageId(), d.getIdempotencyKey(),
                d.getJobId(), d.getSourceQueue(), d.getReason(), d.getFailureClass(), d.getStatus(), d.getRoutedBy(),
                d.getErrorType(), d.getError(), d.getStacktrace(), d.getAttemptCount(), json(d.getAttempts()),
                d.getPayload() == null ? null : Base64.getEncoder().encodeToString(d.getPayload()),
                d.getPayloadSize(), d.getPayloadSha256(), d.isPayloadTruncated(), d.getJmsMessageId(),
                d.getDlqJmsMessageId(), d.getTraceId(), d.getConsumerVersion(), d.getCampaignId(), d.getTenant(),
                d.getProvider(), d.getExpiresAt(), d.getFirstSeenAt(), d.getFailedAt(), d.getRetentionUntil(),
                d.getRetentionAlertedAt(), d.getStatusChangedAt(), history(d.getId()), d.getLap(),
                d.getPreviousDeadLetterId(), d.getRedriveId(), em.createQuery(
                        "select count(r) from DeadLetterRevision r where r.deadLetterId = :d", Long.class)
                        .setParameter("d", d.getId()).getSingleResult(),
                em.createQuery("select d.id from DeadLetter d where d.previousDeadLetterId = :d", Long.class)
                        .setParameter("d", d.getId()).getResultStream().findFirst().orElse(null)));
    }

    private List<StatusChange> history(long id) {
        return em.createQuery("select e from DeadLetterEvent e where e.deadLetterId = :d order by e.id",
                        DeadLetterEvent.class)
                .setParameter("d", id)
                .getResultStream()
                .map(e -> new StatusChange(e.getAt(), e.getFromStatus(), e.getToStatus(), e.getActor(), e.getReason()))
                .toList();
    }

    private static com.fasterxml.jackson.databind.JsonNode json(String s) {
        if (s == null) {
            return null;
        }
        try {
            return JSON.readTree(s);
        } catch (java.io.IOException e) {
            return JSON.getNodeFactory().textNode(s);
        }
    }
}
