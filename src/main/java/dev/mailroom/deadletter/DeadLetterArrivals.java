package dev.mailroom.deadletter;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Dead letters per time bucket for the dashboard's chart: from the arrival counts kept on write where they fit. */
@ApplicationScoped
public class DeadLetterArrivals {

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;

    /**
     * Dead letters that arrived (by {@code failed_at}) in [start, start + bucket): {@code count} in all, and
     * {@code byReason} per dead-letter reason (only the reasons that occur; the console stacks the bars by them).
     */
    public record Bucket(Instant start, long count, Map<String, Long> byReason) {
        public Bucket(Instant start, long count) {
            this(start, count, Map.of());
        }
    }

    /** Most buckets one arrivals query answers (a week of minutes is too many for a chart). */
    public static final int MAX_BUCKETS = 2000;

    /**
     * Arrivals per bucket over the last {@code hours} up to {@code now}, on {@code queue} (null: all
     * queues), oldest bucket first, empty buckets included (see {@link #arrivalBuckets}).
     */
    public List<Bucket> arrivals(String queue, java.time.Duration bucket, int hours, Instant now) {
        Instant from = arrivalsFrom(bucket, hours, now);
        long seconds = bucket.getSeconds();
        if (seconds < 1 || bucket.getNano() != 0) {
            throw new IllegalArgumentException("bucket must be whole seconds: " + bucket);
        }
        long counted = countedTier(seconds);
        if (counted > 0) {
            return countedArrivals(queue, bucket, counted, from, now);
        }
        return scannedArrivals(queue, bucket, from, now);
    }

    /**
     * The coarsest arrival tier kept on write ({@link DeadLetterCounts}: an hour, 15 minutes, a minute) that a
     * bucket of {@code seconds} holds whole numbers of; 0: none (a bucket that is not whole minutes).
     */
    static long countedTier(long seconds) {
        for (int i = DeadLetterCounts.ARRIVAL_TIERS.length - 1; i >= 0; i--) {
            if (seconds % DeadLetterCounts.ARRIVAL_TIERS[i] == 0) {
                return DeadLetterCounts.ARRIVAL_TIERS[i];
            }
        }
        return 0;
    }

    /**
     * From the arrival counts kept on write ({@link DeadLetterCounts}): those of the tier
     * {@link #countedTier} chooses, summed into the requested buckets (which start at multiples of
     * their size since the epoch, so each holds whole counted ones).
     */
    private List<Bucket> countedArrivals(String queue, java.time.Duration bucket, long counted, Instant from,
                                           Instant now) {
        long seconds = bucket.getSeconds();
        List<Bucket> empty = arrivalBuckets(Map.of(), from, now, bucket);
        Instant to = empty.isEmpty() ? from : empty.get(empty.size() - 1).start().plus(bucket);
        // summed into the requested buckets by the database (a month of hour rows per 6 hours leaves it as
        // 120 buckets per reason); bucket numbers are whole and not negative, so integer division floors them.
        // The sizes inlined (longs of ours) so that the select and the group by are one expression.
        String target = "(bucket * " + counted + ") / " + seconds;
        var q = em.createNativeQuery("select " + target + ", reason, sum(arrived) from dead_letter_arrival"
                + " where bucket_seconds = ?1 and bucket >= ?2 and bucket < ?3"
                + (queue != null ? " and source_queue = ?4" : "") + " group by " + target + ", reason")
                .setParameter(1, (int) counted)
                .setParameter(2, Math.floorDiv(from.getEpochSecond(), counted))
                .setParameter(3, Math.floorDiv(to.getEpochSecond(), counted));
        if (queue != null) {
            q.setParameter(4, queue);
        }
        Map<Instant, Map<String, Long>> counts = new java.util.HashMap<>();
        for (Object row : q.getResultList()) {
            Object[] r = (Object[]) row;
            long start = ((Number) r[0]).longValue() * seconds;
            long arrived = ((Number) r[2]).longValue();
            if (arrived > 0) {
                counts.computeIfAbsent(Instant.ofEpochSecond(start), k -> new java.util.TreeMap<>())
                        .merge((String) r[1], arrived, Long::sum);
            }
        }
        return arrivalBucketsByReason(counts, from, now, bucket);
    }

    /** Counted by the database over the window's dead letters (a bucket that is not whole minutes). */
    List<Bucket> scannedArrivals(String queue, java.time.Duration bucket, Instant from, Instant now) {
        long seconds = bucket.getSeconds();
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
        List<Bucket> empty = arrivalBuckets(Map.of(), from, now, bucket);
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
     * Pure bucketing: one {@link Bucket} per bucket of {@code bucket} from {@code from} up to and including
     * the bucket that holds {@code now}, with the count {@code countsByStart} has for that bucket's start
     * (0 when it has none); counts of other starts are ignored.
     */
    public static List<Bucket> arrivalBuckets(Map<Instant, Long> countsByStart, Instant from, Instant now,
                                                java.time.Duration bucket) {
        long size = bucket.toMillis();
        if (size <= 0) {
            throw new IllegalArgumentException("bucket must be at least a millisecond: " + bucket);
        }
        long span = now.toEpochMilli() - from.toEpochMilli();
        int n = span < 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, span / size + 1);
        List<Bucket> result = new java.util.ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Instant start = from.plusMillis(i * size);
            result.add(new Bucket(start, countsByStart.getOrDefault(start, 0L)));
        }
        return result;
    }

    /** {@link #arrivalBuckets} with each bucket's counts per reason; a bucket's count is their sum. */
    public static List<Bucket> arrivalBucketsByReason(Map<Instant, Map<String, Long>> countsByStart, Instant from,
                                                        Instant now, java.time.Duration bucket) {
        return arrivalBuckets(Map.of(), from, now, bucket).stream().map(b -> {
            Map<String, Long> byReason = countsByStart.getOrDefault(b.start(), Map.of());
            return new Bucket(b.start(), byReason.values().stream().mapToLong(Long::longValue).sum(),
                    Map.copyOf(byReason));
        }).toList();
    }

}
