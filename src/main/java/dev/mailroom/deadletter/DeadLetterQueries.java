package dev.mailroom.deadletter;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.TypedQuery;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The dead-letter list a person pages through (a page, its bounded total, each row's recipient and subject) and the
 * dead letters a redrive plan selects. Groups, arrivals and one dead letter whole are read by {@link DeadLetterGroups},
 * {@link DeadLetterArrivals} and {@link DeadLetterDetail}.
 */
@ApplicationScoped
public class DeadLetterQueries {

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;

    @Inject
    DeadLetterGroups groups;

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
     * The list reads a projection (the columns of {@link Summary}, never the payload, attempts or stack
     * trace): a page of 100 costs 100 narrow rows, and an index per filter ({@code V7}) serves its order.
     */
    static final String SUMMARY_COLUMNS = """
            new dev.mailroom.deadletter.DeadLetterQueries$Summary(d.id, d.consumer, d.messageId, d.sourceQueue,
            d.reason, d.failureClass, d.status, d.routedBy, d.errorType, d.error, d.campaignId, d.tenant, d.provider,
            d.consumerVersion, d.attemptCount, d.payloadSize, d.firstSeenAt, d.failedAt)""";

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
        TypedQuery<Summary> q = em.createQuery(jpql.toString(), Summary.class)
                .setFirstResult(offset).setMaxResults(limit + 1);
        params.forEach(q::setParameter);
        List<Summary> rows = q.getResultList();
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
            return new Total(groups.groups(f).stream().mapToLong(DeadLetterGroups.Group::count).sum(), true);
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
                select new dev.mailroom.deadletter.DeadLetterQueries$Candidate(d.id, d.messageId, d.sourceQueue,
                d.reason, d.failureClass, d.failedAt, d.lap, d.idempotencyKey, d.status) from DeadLetter d where 1 = 1""");
        Map<String, Object> params = new LinkedHashMap<>();
        FilterSql.where(jpql, params, f, null, null);
        jpql.append(" order by d.failedAt, d.id");
        TypedQuery<Candidate> q = em.createQuery(jpql.toString(), Candidate.class).setMaxResults(max + 1);
        params.forEach(q::setParameter);
        return q.getResultList();
    }

}
