package dev.mailroom.deadletter;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.TypedQuery;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/** Read side of the dead-letter store. */
@ApplicationScoped
public class DeadLetterQueries {

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;

    /** A filter; null fields match everything. */
    public record Filter(String queue, String reason, String messageId) { }

    public record Summary(long id, String consumer, String messageId, String sourceQueue, String reason,
                          String failureClass, String status, String errorType, String error, long payloadSize,
                          Instant firstSeenAt, Instant failedAt) { }

    /** The whole envelope; {@code payloadBase64} is the stored (possibly truncated) payload. */
    public record Envelope(long id, String consumer, String messageId, Long jobId, String sourceQueue,
                           String reason, String failureClass, String status, String errorType, String error,
                           String payloadBase64, long payloadSize, String payloadSha256, boolean payloadTruncated,
                           String jmsMessageId, String traceId, String consumerVersion, Instant firstSeenAt,
                           Instant failedAt) { }

    public List<Summary> find(Filter f, int limit) {
        StringBuilder jpql = new StringBuilder("select d from DeadLetter d where 1 = 1");
        List<Object[]> params = new ArrayList<>();
        if (f.queue() != null) {
            jpql.append(" and d.sourceQueue = :queue");
            params.add(new Object[] {"queue", f.queue()});
        }
        if (f.reason() != null) {
            jpql.append(" and d.reason = :reason");
            params.add(new Object[] {"reason", f.reason()});
        }
        if (f.messageId() != null) {
            jpql.append(" and d.messageId = :messageId");
            params.add(new Object[] {"messageId", f.messageId()});
        }
        jpql.append(" order by d.failedAt desc, d.id desc");
        TypedQuery<DeadLetter> q = em.createQuery(jpql.toString(), DeadLetter.class).setMaxResults(limit);
        params.forEach(p -> q.setParameter((String) p[0], p[1]));
        return q.getResultStream().map(d -> new Summary(d.getId(), d.getConsumer(), d.getMessageId(),
                d.getSourceQueue(), d.getReason(), d.getFailureClass(), d.getStatus(), d.getErrorType(), d.getError(),
                d.getPayloadSize(), d.getFirstSeenAt(), d.getFailedAt())).toList();
    }

    public Optional<Envelope> envelope(long id) {
        return Optional.ofNullable(em.find(DeadLetter.class, id)).map(d -> new Envelope(d.getId(), d.getConsumer(),
                d.getMessageId(), d.getJobId(), d.getSourceQueue(), d.getReason(), d.getFailureClass(), d.getStatus(),
                d.getErrorType(), d.getError(), Base64.getEncoder().encodeToString(d.getPayload()), d.getPayloadSize(),
                d.getPayloadSha256(), d.isPayloadTruncated(), d.getJmsMessageId(), d.getTraceId(),
                d.getConsumerVersion(), d.getFirstSeenAt(), d.getFailedAt()));
    }
}
