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
     * fix. The normalised error is the {@link ErrorFingerprint} (numbers, ids, addresses, timestamps and
     * quoted text replaced), so "mailbox a@x full" and "mailbox b@y full" are one group.
     */
    public record Group(String queue, String reason, String errorType, String normalisedError, long count,
                        Instant oldest, Instant newest) { }

    /**
     * The list reads a projection (the columns of {@link Summary}, never the payload, attempts or stack
     * trace): a page of 100 costs 100 narrow rows, and an index per filter ({@code V7}) serves its order.
     */
    static final String SUMMARY_COLUMNS = """
            d.id, d.consumer, d.messageId, d.sourceQueue, d.reason, d.failureClass, d.status, d.routedBy,
            d.errorType, d.error, d.campaignId, d.tenant, d.provider, d.consumerVersion, d.attemptCount,
            d.payloadSize, d.firstSeenAt, d.failedAt""";

    public Page find(Filter f, int offset, int limit) {
        StringBuilder jpql = new StringBuilder("select " + SUMMARY_COLUMNS + " from DeadLetter d where 1 = 1");
        Map<String, Object> params = new LinkedHashMap<>();
        where(jpql, params, f);
        jpql.append(" order by d.failedAt desc, d.id desc");
        TypedQuery<Object[]> q = em.createQuery(jpql.toString(), Object[].class)
                .setFirstResult(offset).setMaxResults(limit + 1);
        params.forEach(q::setParameter);
        List<Summary> rows = q.getResultStream().map(r -> new Summary((Long) r[0], (String) r[1], (String) r[2],
                (String) r[3], (String) r[4], (String) r[5], (String) r[6], (String) r[7], (String) r[8],
                (String) r[9], (String) r[10], (String) r[11], (String) r[12], (String) r[13], (Integer) r[14],
                (Long) r[15], (Instant) r[16], (Instant) r[17])).toList();
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

    /**
     * Counts by group for the filter (open and resolved alike unless the filter says a status), largest
     * first: one GROUP BY over the fingerprint written with each dead letter ({@link ErrorFingerprint}).
     */
    public List<Group> groups(Filter f) {
        StringBuilder jpql = new StringBuilder("""
                select d.sourceQueue, d.reason, d.errorType, d.errorFingerprint, count(d), min(d.failedAt),
                max(d.failedAt) from DeadLetter d where 1 = 1""");
        Map<String, Object> params = new LinkedHashMap<>();
        where(jpql, params, f);
        jpql.append(" group by d.sourceQueue, d.reason, d.errorType, d.errorFingerprint")
                .append(" order by count(d) desc, max(d.failedAt) desc, d.sourceQueue, d.reason, d.errorType,")
                .append(" d.errorFingerprint");
        var q = em.createQuery(jpql.toString(), Object[].class);
        params.forEach(q::setParameter);
        return q.getResultStream().map(r -> new Group((String) r[0], (String) r[1], (String) r[2], (String) r[3],
                ((Number) r[4]).longValue(), (Instant) r[5], (Instant) r[6])).toList();
    }

    /**
     * Dead letters that arrived (by {@code failed_at}) in [start, start + bucket): {@code count} in all, and
     * {@code byReason} per dead-letter reason (only the reasons that occur; the console stacks the bars by them).
     */
    public record Arrivals(Instant start, long count, Map<String, Long> byReason) {
        public Arrivals(Instant start, long count) {
            this(start, count, Map.of());
        }
    }

    /** Most buckets one arrivals query answers (a week of minutes is too many for a chart). */
    public static final int MAX_BUCKETS = 2000;

    /**
     * Arrivals per bucket over the last {@code hours} up to {@code now}, on {@code queue} (null: all
     * queues), oldest bucket first, empty buckets included (see {@link #arrivalBuckets}).
     */
    public List<Arrivals> arrivals(String queue, java.time.Duration bucket, int hours, Instant now) {
        Instant from = arrivalsFrom(bucket, hours, now);
        long seconds = bucket.getSeconds();
        if (seconds < 1 || bucket.getNano() != 0) {
            throw new IllegalArgumentException("bucket must be whole seconds: " + bucket);
        }
        // Counted per bucket by the database: the bucket is floor(epoch seconds / bucket seconds), inlined
        // as a literal (a validated long) so that the select and the group by are one expression; floor
        // through function() because WildFly asks Hibernate for strict JPA compliance.
        String bucketOf = "function('floor', extract(epoch from d.failedAt) / " + seconds + ")";
        StringBuilder jpql = new StringBuilder("select " + bucketOf + ", d.reason, count(d) from DeadLetter d"
                + " where d.failedAt >= :from and d.failedAt < :to");
        if (queue != null) {
            jpql.append(" and d.sourceQueue = :queue");
        }
        jpql.append(" group by ").append(bucketOf).append(", d.reason");
        List<Arrivals> empty = arrivalBuckets(Map.of(), from, now, bucket);
        Instant to = empty.isEmpty() ? from : empty.get(empty.size() - 1).start().plus(bucket);
        var q = em.createQuery(jpql.toString(), Object[].class).setParameter("from", from).setParameter("to", to);
        if (queue != null) {
            q.setParameter("queue", queue);
        }
        Map<Instant, Map<String, Long>> counts = new java.util.HashMap<>();
        q.getResultStream().forEach(r -> counts.computeIfAbsent(
                Instant.ofEpochSecond(((Number) r[0]).longValue() * seconds), k -> new java.util.TreeMap<>())
                .merge((String) r[1], ((Number) r[2]).longValue(), Long::sum));
        return arrivalBucketsByReason(counts, from, now, bucket);
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
     * the bucket that holds {@code now}, with the count {@code countsByStart} has for that bucket's start
     * (0 when it has none); counts of other starts are ignored.
     */
    public static List<Arrivals> arrivalBuckets(Map<Instant, Long> countsByStart, Instant from, Instant now,
                                                java.time.Duration bucket) {
        long size = bucket.toMillis();
        if (size <= 0) {
            throw new IllegalArgumentException("bucket must be at least a millisecond: " + bucket);
        }
        long span = now.toEpochMilli() - from.toEpochMilli();
        int n = span < 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, span / size + 1);
        List<Arrivals> result = new java.util.ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Instant start = from.plusMillis(i * size);
            result.add(new Arrivals(start, countsByStart.getOrDefault(start, 0L)));
        }
        return result;
    }

    /** {@link #arrivalBuckets} with each bucket's counts per reason; a bucket's count is their sum. */
    public static List<Arrivals> arrivalBucketsByReason(Map<Instant, Map<String, Long>> countsByStart, Instant from,
                                                        Instant now, java.time.Duration bucket) {
        return arrivalBuckets(Map.of(), from, now, bucket).stream().map(b -> {
            Map<String, Long> byReason = countsByStart.getOrDefault(b.start(), Map.of());
            return new Arrivals(b.start(), byReason.values().stream().mapToLong(Long::longValue).sum(),
                    Map.copyOf(byReason));
        }).toList();
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
