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

    public record Summary(long id, String consumer, String messageId, String sourceQueue, String reason,
                          String failureClass, String status, String routedBy, String errorType, String error,
                          String campaignId, String tenant, String provider, String consumerVersion,
                          int attemptCount, long payloadSize, Instant firstSeenAt, Instant failedAt) { }

    /**
     * A page of dead letters, newest first; {@code next} is the offset of the next page (null: none), and
     * {@code nextCursor} the same place as a keyset cursor (the list's {@code after}), which costs the same
     * however deep the page is.
     */
    public record Page(List<Summary> items, int offset, int limit, Integer next, String nextCursor) { }

    /**
     * A keyset position in the list's order ({@code failed_at desc, id desc}): the page after it starts
     * with the next older row. Written {@code <epoch seconds>.<nanos>_<id>}, opaque to clients.
     */
    public record Cursor(Instant failedAt, long id) {

        public static Cursor of(Summary s) {
            return new Cursor(s.failedAt(), s.id());
        }

        /** Parses a cursor this class wrote; an {@link IllegalArgumentException} says why not. */
        public static Cursor parse(String text) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(-?[0-9]{1,19})\\.([0-9]{1,9})_([0-9]{1,19})")
                    .matcher(text.trim());
            if (!m.matches()) {
                throw new IllegalArgumentException("after is a cursor from a page's next_cursor, not " + text);
            }
            try {
                return new Cursor(Instant.ofEpochSecond(Long.parseLong(m.group(1)), Long.parseLong(m.group(2))),
                        Long.parseLong(m.group(3)));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("after is a cursor from a page's next_cursor, not " + text, e);
            }
        }

        @Override
        public String toString() {
            return failedAt.getEpochSecond() + "." + failedAt.getNano() + "_" + id;
        }
    }

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
     * The list reads a projection (the columns of {@link Summary}, never the payload, attempts or stack
     * trace): a page of 100 costs 100 narrow rows, and an index per filter ({@code V7}) serves its order.
     */
    static final String SUMMARY_COLUMNS = """
            d.id, d.consumer, d.messageId, d.sourceQueue, d.reason, d.failureClass, d.status, d.routedBy,
            d.errorType, d.error, d.campaignId, d.tenant, d.provider, d.consumerVersion, d.attemptCount,
            d.payloadSize, d.firstSeenAt, d.failedAt""";

    public Page find(DeadLetterFilter f, int offset, int limit) {
        return find(f, null, offset, limit);
    }

    /**
     * A page of the list: after {@code after} (keyset: an index range from that position on, see
     * {@code V7}/{@code V8}), else from {@code offset}.
     */
    public Page find(DeadLetterFilter f, Cursor after, int offset, int limit) {
        return find(f, ExactValues.NONE, after, offset, limit);
    }

    private Page find(DeadLetterFilter f, ExactValues exact, Cursor after, int offset, int limit) {
        StringBuilder jpql = new StringBuilder("select " + SUMMARY_COLUMNS + " from DeadLetter d where 1 = 1");
        Map<String, Object> params = new LinkedHashMap<>();
        FilterSql.where(jpql, params, f, exact.campaignIds(), exact.tenants());
        if (after != null) {
            // failed_at <= t bounds the index range; the rest only drops the ties before the cursor
            jpql.append(" and d.failedAt <= :afterAt and (d.failedAt < :afterAt or d.id < :afterId)");
            params.put("afterAt", after.failedAt());
            params.put("afterId", after.id());
        }
        jpql.append(" order by d.failedAt desc, d.id desc");
        TypedQuery<Object[]> q = em.createQuery(jpql.toString(), Object[].class)
                .setFirstResult(offset).setMaxResults(limit + 1);
        params.forEach(q::setParameter);
        List<Summary> rows = q.getResultStream().map(r -> new Summary((Long) r[0], (String) r[1], (String) r[2],
                (String) r[3], (String) r[4], (String) r[5], (String) r[6], (String) r[7], (String) r[8],
                (String) r[9], (String) r[10], (String) r[11], (String) r[12], (String) r[13], (Integer) r[14],
                (Long) r[15], (Instant) r[16], (Instant) r[17])).toList();
        boolean more = rows.size() > limit;
        List<Summary> items = more ? rows.subList(0, limit) : rows;
        return new Page(items, offset, limit, more ? offset + limit : null,
                more ? Cursor.of(items.get(items.size() - 1)).toString() : null);
    }

    /**
     * A row of the console's list: the {@link Summary}, to whom and about what (the first "to" and the
     * subject, read from the stored payload: null when it is not a job), and the dead letter's next lap
     * when a replay of it failed again.
     */
    public record Row(@com.fasterxml.jackson.annotation.JsonUnwrapped Summary summary, String recipient,
                      String subject, Long nextDeadLetterId) { }

    /**
     * A page of {@link Row}s with the filter's total: exact when {@code totalExact}, else a lower bound (at least
     * {@code total} dead letters match and the list counted no further, see {@link #TOTAL_BOUND}).
     */
    public record ListPage(List<Row> items, long total, boolean totalExact, int offset, int limit, Integer next,
                           String nextCursor) { }

    /**
     * Most rows the list counts for its total when the counts kept on write do not answer its filter (campaign,
     * tenant, provider, message id, recipient): past it the total is a lower bound ("10,000+ match"), so a filter
     * that selects most of a million rows costs an index range of 10,001 entries, not a million (bench/: counting
     * every row of one tenant in 50 took ~265 ms of database CPU per page).
     */
    public static final int TOTAL_BOUND = 10_000;

    /** Most distinct campaigns or tenants a substring filter is resolved over ({@link #valuesContaining}). */
    static final int DISTINCT_VALUES_CAP = 5_000;

    /** {@link #TOTAL_BOUND} and {@link #DISTINCT_VALUES_CAP}, lowered by tests to reach both sides at small scale. */
    int totalBound = TOTAL_BOUND;
    int distinctValuesCap = DISTINCT_VALUES_CAP;

    /** The list's total: how many dead letters match, exactly or at least. */
    public record Total(long count, boolean exact) { }

    /**
     * The list a person reads: {@link #find}, the filter's {@link #total}, and per row of the page its
     * recipient, subject and next lap (two more statements, over the page's ids only). Campaign and tenant
     * substrings are first resolved to the exact values they match ({@link #valuesContaining}), so the page and
     * the count read index ranges.
     */
    public ListPage listPage(DeadLetterFilter f, Cursor after, int offset, int limit) {
        ExactValues exact = new ExactValues(valuesContaining("campaign_id", f.campaignId()),
                valuesContaining("tenant", f.tenant()));
        Page page = find(f, exact, after, offset, limit);
        Total total = total(f, exact);
        List<Long> ids = page.items().stream().map(Summary::id).toList();
        Map<Long, String[]> about = new java.util.HashMap<>();
        Map<Long, Long> next = new java.util.HashMap<>();
        if (!ids.isEmpty()) {
            em.createQuery("select d.id, d.payload from DeadLetter d where d.id in :ids", Object[].class)
                    .setParameter("ids", ids).getResultStream()
                    .forEach(r -> about.put((Long) r[0], JobHeadline.of((byte[]) r[1])));
            em.createQuery("select d.previousDeadLetterId, d.id from DeadLetter d where d.previousDeadLetterId in :ids",
                            Object[].class)
                    .setParameter("ids", ids).getResultStream()
                    .forEach(r -> next.put((Long) r[0], (Long) r[1]));
        }
        List<Row> rows = page.items().stream().map(s -> {
            String[] a = about.getOrDefault(s.id(), new String[2]);
            return new Row(s, a[0], a[1], next.get(s.id()));
        }).toList();
        return new ListPage(rows, total.count(), total.exact(), page.offset(), page.limit(), page.next(),
                page.nextCursor());
    }

    /**
     * How many dead letters the filter selects: exactly from the counts kept on write when they answer it (as the
     * groups are read), else by reading at most {@link #totalBound} + 1 ids of them (an index range: the filter
     * column's list index, {@code V7}); past the bound the total is that lower bound, not exact.
     */
    Total total(DeadLetterFilter f, ExactValues exact) {
        if (f.windowCountedOnly()) {
            return new Total(groups(f).stream().mapToLong(Group::count).sum(), true);
        }
        StringBuilder jpql = new StringBuilder("select d.id from DeadLetter d where 1 = 1");
        Map<String, Object> params = new LinkedHashMap<>();
        FilterSql.where(jpql, params, f, exact.campaignIds(), exact.tenants());
        TypedQuery<Long> q = em.createQuery(jpql.toString(), Long.class).setMaxResults(totalBound + 1);
        params.forEach(q::setParameter);
        int counted = q.getResultList().size();
        return counted > totalBound ? new Total(totalBound, false) : new Total(counted, true);
    }

    /**
     * The campaigns and tenants a substring filter matches, as exact values (null: not resolved, the filter stays a
     * substring match).
     */
    record ExactValues(List<String> campaignIds, List<String> tenants) {
        static final ExactValues NONE = new ExactValues(null, null);
    }

    /**
     * The distinct values of {@code column} whose lower case contains {@code text} as the list's substring filter
     * matches it ({@link FilterSql#likePattern}), read by skipping through the column's list index ({@code V7}; a recursive
     * query, one index descent per distinct value: 500 campaigns cost 500 descents, not a trigram check of every
     * candidate row), so that the filter becomes an exact {@code in} whose page and bounded count are index ranges.
     * Null when {@code text} is null, or when the column has {@link #distinctValuesCap} distinct values or more
     * (then the filter stays a substring match, served by the trigram index of {@code V16}).
     */
    List<String> valuesContaining(String column, String text) {
        if (text == null) {
            return null;
        }
        // column is one of ours (campaign_id, tenant), the cap an int of ours: inlined, because H2 takes parameters
        // in a recursive query's last select only
        var q = em.createNativeQuery("""
                with recursive v (val, n) as (
                  select min(%1$s), 1 from dead_letter
                  union all
                  select (select min(d.%1$s) from dead_letter d where d.%1$s > v.val), v.n + 1 from v
                  where v.val is not null and v.n < %2$d)
                select val, n from v where val is not null and (n = %2$d or lower(val) like ?1 escape '!')
                """.formatted(column, distinctValuesCap))
                .setParameter(1, FilterSql.likePattern(text));
        List<String> values = new java.util.ArrayList<>();
        for (Object row : q.getResultList()) {
            Object[] r = (Object[]) row;
            if (((Number) r[1]).intValue() >= distinctValuesCap) {
                return null;
            }
            values.add((String) r[0]);
        }
        return values;
    }

    /** What a redrive plan needs of a dead letter: its identity and state, never its payload. */
    public record Candidate(long id, String messageId, String sourceQueue, String reason, String failureClass,
                            Instant failedAt, int lap, String idempotencyKey, String status) { }

    /**
     * The dead letters the filter selects, oldest first, at most {@code max} (+1, so a caller sees that
     * there are more).
     */
    public List<Candidate> matching(DeadLetterFilter f, int max) {
        StringBuilder jpql = new StringBuilder("""
                select d.id, d.messageId, d.sourceQueue, d.reason, d.failureClass, d.failedAt, d.lap,
                d.idempotencyKey, d.status from DeadLetter d where 1 = 1""");
        Map<String, Object> params = new LinkedHashMap<>();
        FilterSql.where(jpql, params, f, null, null);
        jpql.append(" order by d.failedAt, d.id");
        TypedQuery<Object[]> q = em.createQuery(jpql.toString(), Object[].class).setMaxResults(max + 1);
        params.forEach(q::setParameter);
        return q.getResultStream().map(r -> new Candidate((Long) r[0], (String) r[1], (String) r[2], (String) r[3],
                (String) r[4], (Instant) r[5], (Integer) r[6], (String) r[7], (String) r[8])).toList();
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
    private List<Arrivals> countedArrivals(String queue, java.time.Duration bucket, long counted, Instant from,
                                           Instant now) {
        long seconds = bucket.getSeconds();
        List<Arrivals> empty = arrivalBuckets(Map.of(), from, now, bucket);
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
    List<Arrivals> scannedArrivals(String queue, java.time.Duration bucket, Instant from, Instant now) {
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
