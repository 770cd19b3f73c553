package dev.mailroom.deadletter;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The dead letters grouped by cause (queue, reason, failure class, error type, fingerprint): from the counts kept on
 * write ({@link DeadLetterCounts}) when the filter asks only what they are keyed by, else by a GROUP BY over the rows
 * the filter selects.
 */
@ApplicationScoped
public class DeadLetterGroups {

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;

    /**
     * Dead letters with the same (queue, reason, error type, normalised error): one cause, usually one
     * fix. The normalised error is the {@link ErrorFingerprint} (numbers, ids, addresses, timestamps and
     * quoted text replaced), so "mailbox a@x full" and "mailbox b@y full" are one group.
     */
    public record Group(String queue, String reason, String failureClass, String errorType, String fingerprint,
                        String normalisedError, long count, Instant oldest, Instant newest, Instant firstSeen,
                        Instant lastSeen, List<String> consumerVersions) {

        /**
         * {@code fingerprint} is the normalised error itself (the list's {@code fingerprint=} matches it
         * exactly); {@code first_seen}/{@code last_seen} are {@code oldest}/{@code newest} (the first and
         * last {@code failed_at} of its dead letters) under the names a groups page uses.
         */
        Group(String queue, String reason, String failureClass, String errorType, String fingerprint, long count,
              Instant first, Instant last, List<String> consumerVersions) {
            this(queue, reason, failureClass, errorType, fingerprint, fingerprint, count, first, last, first, last,
                    consumerVersions);
        }
    }
    /** A group as the groups page reads it: with whether a fix may have shipped since it failed. */
    public record GroupView(@com.fasterxml.jackson.annotation.JsonUnwrapped Group group, boolean fixMayHaveShipped) { }

    /**
     * "A fix may have shipped": every dead letter of the group failed under a consumer version, none under
     * the one running now (versions are {@code <version>+<commit>}, so "older" can only mean "another").
     */
    public static boolean fixMayHaveShipped(java.util.Collection<String> versionsSeen, String running) {
        return running != null && !versionsSeen.isEmpty() && versionsSeen.stream().allMatch(v -> v != null)
                && !versionsSeen.contains(running);
    }


    /**
     * Counts by group for the filter (open and resolved alike unless the filter says a status), largest
     * first. Narrowed by what the groups are keyed by only (status, queue, reason, failure class, error type,
     * fingerprint, consumer version: the dashboard's and the groups page's questions), they are read from the
     * counts kept on write ({@link DeadLetterCounts}: a few hundred rows whatever the number of dead letters;
     * with a time window, its days' and hours' counts); with any other filter (campaign, tenant, provider,
     * message id, recipient), by one GROUP BY over the dead letters the filter selects (the fingerprint is
     * written with each dead letter, {@link ErrorFingerprint}).
     */
    public List<Group> groups(DeadLetterFilter f) {
        if (f.countedOnly()) {
            GroupMerge merge = new GroupMerge();
            countedGroups(f, null, merge);
            return merge.groups();
        }
        return f.windowCountedOnly() ? windowedGroups(f) : scannedGroups(f);
    }

    /**
     * The groups of a time window, narrowed by queue, reason and status only: the window's whole days from the
     * daily group counts (V19), the whole hours at its ends from the hourly ones (V18), its ragged first and last
     * hour (when {@code from} or {@code to} is not on the hour) by grouping those rows ({@link DeadLetterCounts});
     * a window inside two hours is grouped whole. A week reads ~7 day rows and at most ~46 hour rows per group.
     */
    private List<Group> windowedGroups(DeadLetterFilter f) {
        GroupMerge merge = new GroupMerge();
        Whole days = Whole.of(f.from(), f.to(), DeadLetterCounts.GroupTier.DAILY);
        if (days == null) {
            hoursOf(f, merge);
            return merge.groups();
        }
        countedGroups(f, days, merge);
        if (f.from() != null && f.from().isBefore(days.start())) {
            hoursOf(f.window(f.from(), days.start()), merge);
        }
        if (f.to() != null && f.to().isAfter(days.stop())) {
            hoursOf(f.window(days.stop(), f.to()), merge);
        }
        return merge.groups();
    }

    /** The groups of a window from its whole hours' counts and its ragged ends' rows. */
    private void hoursOf(DeadLetterFilter f, GroupMerge merge) {
        Whole hours = Whole.of(f.from(), f.to(), DeadLetterCounts.GroupTier.HOURLY);
        if (hours == null) {
            scannedGroups(f, merge);
            return;
        }
        countedGroups(f, hours, merge);
        if (f.from() != null && f.from().isBefore(hours.start())) {
            scannedGroups(f.window(f.from(), hours.start()), merge);
        }
        if (f.to() != null && f.to().isAfter(hours.stop())) {
            scannedGroups(f.window(hours.stop(), f.to()), merge);
        }
    }

    /**
     * The whole buckets of a tier (hours, days) in a window [from, to): bucket numbers (epoch seconds / the
     * tier's seconds) [{@code first}, {@code end}), null on a side the window leaves open.
     */
    record Whole(DeadLetterCounts.GroupTier tier, Long first, Long end) {

        /** The whole buckets of [from, to) (null: open on that side); null when the window holds none. */
        static Whole of(Instant from, Instant to, DeadLetterCounts.GroupTier tier) {
            long size = tier.seconds;
            // the first bucket that starts at or after from; the bucket that holds to, whose start ends the whole ones
            Long first = from == null ? null : from.getNano() == 0
                    ? -Math.floorDiv(-from.getEpochSecond(), size)
                    : Math.floorDiv(from.getEpochSecond(), size) + 1;
            Long end = to == null ? null : Math.floorDiv(to.getEpochSecond(), size);
            return first != null && end != null && first >= end ? null : new Whole(tier, first, end);
        }

        /** Where the whole buckets start (null: open). */
        Instant start() {
            return first == null ? null : Instant.ofEpochSecond(first * tier.seconds);
        }

        /** Where they stop (null: open). */
        Instant stop() {
            return end == null ? null : Instant.ofEpochSecond(end * tier.seconds);
        }
    }

    /**
     * From the group counts kept on write: every dead letter's ({@code dead_letter_group_count}) when
     * {@code buckets} is null, else those of a tier's whole buckets (a range of its table's key).
     */
    private void countedGroups(DeadLetterFilter f, Whole buckets, GroupMerge merge) {
        boolean tiered = buckets != null;
        // the buckets summed by the database: a day's ~10,000 hour rows (bench/) leave it as a few hundred groups
        StringBuilder sql = new StringBuilder(tiered ? """
                select source_queue, reason, failure_class, error_type, error_fingerprint, consumer_version,
                sum(dead_letters), min(first_failed_at), max(last_failed_at) from\s""" + buckets.tier().table : """
                select source_queue, reason, failure_class, error_type, error_fingerprint, consumer_version,
                dead_letters, first_failed_at, last_failed_at from dead_letter_group_count""")
                .append(" where dead_letters > 0");
        List<Object> params = new java.util.ArrayList<>();
        for (Object[] c : new Object[][] {{"bucket >=", tiered ? buckets.first() : null},
            {"bucket <", tiered ? buckets.end() : null}}) {
            if (c[1] != null) {
                params.add(c[1]);
                sql.append(" and ").append(c[0]).append(" ?").append(params.size());
            }
        }
        FilterSql.countedWhere(sql, params, f);
        if (tiered) {
            sql.append(" group by source_queue, reason, failure_class, error_type, error_fingerprint, consumer_version");
        }
        var q = em.createNativeQuery(sql.toString());
        for (int i = 0; i < params.size(); i++) {
            q.setParameter(i + 1, params.get(i));
        }
        for (Object row : q.getResultList()) {
            Object[] r = (Object[]) row;
            merge.add((String) r[0], (String) r[1], blankToNull(r[2]), blankToNull(r[3]), blankToNull(r[4]),
                    blankToNull(r[5]), ((Number) r[6]).longValue(), DeadLetterCounts.instant(r[7]),
                    DeadLetterCounts.instant(r[8]));
        }
    }

    /** By one GROUP BY over the dead letters the filter selects. */
    List<Group> scannedGroups(DeadLetterFilter f) {
        GroupMerge merge = new GroupMerge();
        scannedGroups(f, merge);
        return merge.groups();
    }

    private void scannedGroups(DeadLetterFilter f, GroupMerge merge) {
        StringBuilder jpql = new StringBuilder("""
                select d.sourceQueue, d.reason, d.failureClass, d.errorType, d.errorFingerprint, d.consumerVersion,
                count(d), min(d.failedAt), max(d.failedAt) from DeadLetter d where 1 = 1""");
        Map<String, Object> params = new LinkedHashMap<>();
        FilterSql.where(jpql, params, f, null, null);
        jpql.append(" group by d.sourceQueue, d.reason, d.failureClass, d.errorType, d.errorFingerprint,")
                .append(" d.consumerVersion");
        var q = em.createQuery(jpql.toString(), Object[].class);
        params.forEach(q::setParameter);
        q.getResultStream().forEach(r -> merge.add((String) r[0], (String) r[1], blankToNull(r[2]),
                blankToNull(r[3]), blankToNull(r[4]), blankToNull(r[5]), ((Number) r[6]).longValue(),
                (Instant) r[7], (Instant) r[8]));
    }

    /** Counts per (group, consumer version[, status]) summed into groups, with the versions seen. */
    private static final class GroupMerge {
        private record Key(String queue, String reason, String failureClass, String errorType, String fingerprint) { }

        private static final class Sum {
            long count;
            Instant first;
            Instant last;
            final java.util.SortedSet<String> versions = new java.util.TreeSet<>();
        }

        private final Map<Key, Sum> sums = new LinkedHashMap<>();

        void add(String queue, String reason, String failureClass, String errorType, String fingerprint,
                 String version, long count, Instant first, Instant last) {
            if (count <= 0) {
                return;
            }
            Sum s = sums.computeIfAbsent(new Key(queue, reason, failureClass, errorType, fingerprint), k -> new Sum());
            s.count += count;
            s.first = s.first == null || (first != null && first.isBefore(s.first)) ? first : s.first;
            s.last = s.last == null || (last != null && last.isAfter(s.last)) ? last : s.last;
            if (version != null) {
                s.versions.add(version);
            }
        }

        List<Group> groups() {
            java.util.Comparator<String> text = java.util.Comparator.nullsFirst(java.util.Comparator.naturalOrder());
            return sums.entrySet().stream()
                    .map(e -> new Group(e.getKey().queue(), e.getKey().reason(), e.getKey().failureClass(),
                            e.getKey().errorType(), e.getKey().fingerprint(), e.getValue().count, e.getValue().first,
                            e.getValue().last, List.copyOf(e.getValue().versions)))
                    .sorted(java.util.Comparator.comparingLong(Group::count).reversed()
                            .thenComparing(Group::newest, java.util.Comparator.nullsLast(
                                    java.util.Comparator.<Instant>reverseOrder()))
                            .thenComparing(Group::queue, text).thenComparing(Group::reason, text)
                            .thenComparing(Group::failureClass, text).thenComparing(Group::errorType, text)
                            .thenComparing(Group::fingerprint, text))
                    .toList();
        }
    }

    private static String blankToNull(Object value) {
        return value == null || value.toString().isEmpty() ? null : value.toString();
    }

    /**
     * {@link #groups} with the consumer versions each group's dead letters failed under (one more GROUP BY)
     * and whether a fix may have shipped since, judged against {@code runningVersion}.
     */
    public List<GroupView> groups(DeadLetterFilter f, String runningVersion) {
        return groups(f).stream().map(g -> new GroupView(g, fixMayHaveShipped(g.consumerVersions(), runningVersion)))
                .toList();
    }

}
