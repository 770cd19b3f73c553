package dev.mailroom.deadletter;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.TypedQuery;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/** Read side of the dead-letter store. */
@ApplicationScoped
public class DeadLetterQueries {

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;

    /** A filter; null fields match everything. The time window is on {@code failed_at}, [from, to). */
    public record Filter(String queue, String reason, String failureClass, String errorType, String campaignId,
                         String tenant, String provider, String consumerVersion, String status, String messageId,
                         Instant from, Instant to) { }

    public record Summary(long id, String consumer, String messageId, String sourceQueue, String reason,
                          String failureClass, String status, String routedBy, String errorType, String error,
                          String campaignId, String tenant, String provider, String consumerVersion,
                          int attemptCount, long payloadSize, Instant firstSeenAt, Instant failedAt) { }

    /** A page of dead letters, newest first; {@code next} is the offset of the next page, or null. */
    public record Page(List<Summary> items, int offset, int limit, Integer next) { }

    /**
     * Dead letters with the same (queue, reason, error type, normalised error): one cause, usually one
     * fix. The error is normalised by replacing numbers, ids, addresses and quoted text, so "mailbox
     * a@x full" and "mailbox b@y full" are one group.
     */
    public record Group(String queue, String reason, String errorType, String normalisedError, long count,
                        Instant oldest, Instant newest) { }

    public Page find(Filter f, int offset, int limit) {
        StringBuilder jpql = new StringBuilder("select d from DeadLetter d where 1 = 1");
        Map<String, Object> params = new LinkedHashMap<>();
        where(jpql, params, f);
        jpql.append(" order by d.failedAt desc, d.id desc");
        TypedQuery<DeadLetter> q = em.createQuery(jpql.toString(), DeadLetter.class)
                .setFirstResult(offset).setMaxResults(limit + 1);
        params.forEach(q::setParameter);
        List<Summary> rows = q.getResultStream().map(d -> new Summary(d.getId(), d.getConsumer(), d.getMessageId(),
                d.getSourceQueue(), d.getReason(), d.getFailureClass(), d.getStatus(), d.getRoutedBy(),
                d.getErrorType(), d.getError(), d.getCampaignId(), d.getTenant(), d.getProvider(),
                d.getConsumerVersion(), d.getAttemptCount(), d.getPayloadSize(), d.getFirstSeenAt(),
                d.getFailedAt())).toList();
        boolean more = rows.size() > limit;
        return new Page(more ? rows.subList(0, limit) : rows, offset, limit, more ? offset + limit : null);
    }

    /** What a redrive plan needs of a dead letter: its identity and state, never its payload. */
    public record Candidate(long id, String messageId, String sourceQueue, String reason, String failureClass,
                            Instant failedAt, int lap, String idempotencyKey, String status) { }

    /**
     * The dead letters the filter selects, oldest first, at most {@code max} (+1, so a caller sees that
     * there are more); {@code ids}, when not null, narrows to those entries.
     */
    public List<Candidate> matching(Filter f, java.util.Collection<Long> ids, int max) {
        StringBuilder jpql = new StringBuilder("""
                select d.id, d.messageId, d.sourceQueue, d.reason, d.failureClass, d.failedAt, d.lap,
                d.idempotencyKey, d.status from DeadLetter d where 1 = 1""");
        Map<String, Object> params = new LinkedHashMap<>();
        where(jpql, params, f);
        if (ids != null) {
            jpql.append(" and d.id in :ids");
            params.put("ids", ids);
        }
        jpql.append(" order by d.failedAt, d.id");
        TypedQuery<Object[]> q = em.createQuery(jpql.toString(), Object[].class).setMaxResults(max + 1);
        params.forEach(q::setParameter);
        return q.getResultStream().map(r -> new Candidate((Long) r[0], (String) r[1], (String) r[2], (String) r[3],
                (String) r[4], (Instant) r[5], (Integer) r[6], (String) r[7], (String) r[8])).toList();
    }

    /** Counts by group for the filter (open and resolved alike unless the filter says a status). */
    public List<Group> groups(Filter f) {
        StringBuilder jpql = new StringBuilder(
                "select d.sourceQueue, d.reason, d.errorType, d.error, d.failedAt from DeadLetter d where 1 = 1");
        Map<String, Object> params = new LinkedHashMap<>();
        where(jpql, params, f);
        var q = em.createQuery(jpql.toString(), Object[].class);
        params.forEach(q::setParameter);
        Map<List<String>, Group> groups = new LinkedHashMap<>();
        q.getResultStream().forEach(r -> {
            String normalised = normalise((String) r[3]);
            List<String> key = java.util.Arrays.asList((String) r[0], (String) r[1], (String) r[2], normalised);
            Instant at = (Instant) r[4];
            groups.merge(key, new Group((String) r[0], (String) r[1], (String) r[2], normalised, 1, at, at),
                    (a, b) -> new Group(a.queue(), a.reason(), a.errorType(), a.normalisedError(), a.count() + 1,
                            a.oldest().isBefore(b.oldest()) ? a.oldest() : b.oldest(),
                            a.newest().isAfter(b.newest()) ? a.newest() : b.newest()));
        });
        return groups.values().stream()
                .sorted(java.util.Comparator.comparingLong(Group::count).reversed()
                        .thenComparing(Group::newest, java.util.Comparator.reverseOrder()))
                .toList();
    }

    /** Dead letters that arrived (by {@code failed_at}) in [start, start + bucket). */
    public record Arrivals(Instant start, long count) { }

    /** Most buckets one arrivals query answers (a week of minutes is too many for a chart). */
    public static final int MAX_BUCKETS = 2000;

    /**
     * Arrivals per bucket over the last {@code hours} up to {@code now}, on {@code queue} (null: all
     * queues), oldest bucket first, empty buckets included (see {@link #arrivalBuckets}).
     */
    public List<Arrivals> arrivals(String queue, java.time.Duration bucket, int hours, Instant now) {
        Instant from = arrivalsFrom(bucket, hours, now);
        StringBuilder jpql = new StringBuilder("select d.failedAt from DeadLetter d where d.failedAt >= :from");
        if (queue != null) {
            jpql.append(" and d.sourceQueue = :queue");
        }
        var q = em.createQuery(jpql.toString(), Instant.class).setParameter("from", from);
        if (queue != null) {
            q.setParameter("queue", queue);
        }
        return arrivalBuckets(q.getResultList(), from, now, bucket);
    }

    /**
     * The start of the first bucket of an arrivals window: {@code now - hours}, rounded down to a whole
     * multiple of {@code bucket} since the epoch (so buckets line up from one call to the next).
     */
    public static Instant arrivalsFrom(java.time.Duration bucket, int hours, Instant now) {
        if (bucket.isNegative() || bucket.isZero()) {
            throw new IllegalArgumentException("bucket must be positive: " + bucket);
        }
        long size = bucket.toMillis();
        long from = now.minus(java.time.Duration.ofHours(hours)).toEpochMilli();
        return Instant.ofEpochMilli(Math.floorDiv(from, size) * size);
    }

    /**
     * Pure bucketing: one {@link Arrivals} per bucket of {@code bucket} from {@code from} up to and including
     * the bucket that holds {@code now}, with the number of {@code times} in it; times outside are ignored.
     */
    public static List<Arrivals> arrivalBuckets(java.util.Collection<Instant> times, Instant from, Instant now,
                                                java.time.Duration bucket) {
        long size = bucket.toMillis();
        if (size <= 0) {
            throw new IllegalArgumentException("bucket must be at least a millisecond: " + bucket);
        }
        long span = now.toEpochMilli() - from.toEpochMilli();
        int n = span < 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, span / size + 1);
        long[] counts = new long[n];
        for (Instant t : times) {
            if (t == null) {
                continue;
            }
            long offset = t.toEpochMilli() - from.toEpochMilli();
            if (offset >= 0 && offset / size < n) {
                counts[(int) (offset / size)]++;
            }
        }
        List<Arrivals> result = new java.util.ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            result.add(new Arrivals(from.plusMillis(i * size), counts[i]));
        }
        return result;
    }

    static String normalise(String error) {
        if (error == null) {
            return null;
        }
        String s = error.length() > 300 ? error.substring(0, 300) : error;
        return s.replaceAll("[\\w.+-]+@[\\w.-]+", "<address>")
                .replaceAll("\"[^\"]*\"|'[^']*'", "<text>")
                .replaceAll("\\b[0-9a-fA-F]{8}-[0-9a-fA-F-]{27,}\\b", "<id>")
                .replaceAll("\\b\\d+\\b", "<n>")
                .trim();
    }

    private static void where(StringBuilder jpql, Map<String, Object> params, Filter f) {
        eq(jpql, params, "sourceQueue", f.queue());
        eq(jpql, params, "reason", f.reason());
        eq(jpql, params, "failureClass", f.failureClass());
        eq(jpql, params, "errorType", f.errorType());
        eq(jpql, params, "campaignId", f.campaignId());
        eq(jpql, params, "tenant", f.tenant());
        eq(jpql, params, "provider", f.provider());
        eq(jpql, params, "consumerVersion", f.consumerVersion());
        eq(jpql, params, "status", f.status());
        eq(jpql, params, "messageId", f.messageId());
        if (f.from() != null) {
            jpql.append(" and d.failedAt >= :from");
            params.put("from", f.from());
        }
        if (f.to() != null) {
            jpql.append(" and d.failedAt < :to");
            params.put("to", f.to());
        }
    }

    private static void eq(StringBuilder jpql, Map<String, Object> params, String field, String value) {
        if (value != null) {
            jpql.append(" and d.").append(field).append(" = :").append(field);
            params.put(field, value);
        }
    }

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
                           long revisions) { }

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
                        .setParameter("d", d.getId()).getSingleResult()));
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
