package dev.mailroom.deadletter;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.Query;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The counts the groups and the arrivals are read from, kept on write (migration {@code V8}): so that
 * neither has to scan a million dead letters. Every change of a dead letter's row that moves it between
 * groups or buckets (recorded, recorded again, status changed, expired, purged) goes through
 * {@link #apply}, in the transaction of the change itself, so the counts are exactly what a
 * {@code GROUP BY} over {@code dead_letter} would say once that transaction commits
 * ({@code DeadLetterCountsComponentTest} checks it on H2 and PostgreSQL).
 *
 * <ul>
 *   <li>{@code dead_letter_group_count}: per (status, source queue, reason, failure class, error type,
 *       fingerprint of the normalised error, consumer version) the number of dead letters and the first
 *       and last {@code failed_at} among them.</li>
 *   <li>{@code dead_letter_arrival}: per (bucket of 60, 900, 3600 or 86400 s, source queue, reason) the number
 *       of dead letters whose {@code failed_at} falls in it, whatever their status (what the arrivals chart
 *       shows); a 30-day chart reads at most 720 hour buckets per (queue, reason), or 30 day buckets, a day per
 *       15 minutes 96 (the 15-minute tier is V18's, the daily one V19's).</li>
 *   <li>{@code dead_letter_group_hour} (V18) and {@code dead_letter_group_day} (V19): the group counts again
 *       per hour and per day of {@code failed_at}, so the groups of a time window read the window's whole days,
 *       the whole hours at its ends (and scan at most its ragged first and last hour) instead of every dead
 *       letter in it.</li>
 * </ul>
 * Null key columns are stored as {@code ''} (so the key is a plain primary key). A row is created by an
 * {@code insert ... on conflict do nothing} (safe when two transactions create it at once), changed by an
 * {@code update} under its row lock, and deleted by {@link #dropEmpty} once it counts nothing.
 *
 * <p>One lock order, so that writers of the counts cannot deadlock on them: {@link #apply} locks the rows it
 * changes table after table (group totals, hourly groups, daily groups, arrivals), each table in key order, and
 * a transaction calls it once, after it has changed (and so locked) every {@code dead_letter} row it changes:
 * a writer that changes many dead letters collects their changes and applies them together
 * ({@link Change}s; {@code DeadLetterActions.transition} with a list). Then a transaction waiting for a count
 * row holds only count rows before it in that order, and no cycle of waits can form. {@link #dropEmpty} never
 * waits for a row (it skips the locked ones).
 */
@ApplicationScoped
public class DeadLetterCounts {

    /** The granularities arrivals are counted at, in seconds. */
    public static final long MINUTE = 60;
    public static final long QUARTER_HOUR = 900;
    public static final long HOUR = 3600;
    public static final long DAY = 86400;
    /** Every arrival tier kept, finest first. */
    static final long[] ARRIVAL_TIERS = {MINUTE, QUARTER_HOUR, HOUR, DAY};

    /** The group counts kept per bucket of {@code failed_at} as well as in total, finest first, with their table. */
    enum GroupTier {
        HOURLY(HOUR, "dead_letter_group_hour"),
        DAILY(DAY, "dead_letter_group_day");

        final long seconds;
        final String table;

        GroupTier(long seconds, String table) {
            this.seconds = seconds;
            this.table = table;
        }
    }

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;

    /** What of a dead letter's row the counts depend on. */
    public record Counted(String status, String queue, String reason, String failureClass, String errorType,
                          String fingerprint, String consumerVersion, Instant failedAt) {

        public static Counted of(DeadLetter d) {
            return new Counted(d.getStatus(), d.getSourceQueue(), d.getReason(), d.getFailureClass(),
                    d.getErrorType(), d.getErrorFingerprint(), d.getConsumerVersion(), d.getFailedAt());
        }

        GroupKey group() {
            return new GroupKey(key(status), key(queue), key(reason), key(failureClass), key(errorType),
                    key(fingerprint), key(consumerVersion));
        }

        TierGroupKey tierGroup(GroupTier tier) {
            return new TierGroupKey(tier, Math.floorDiv(failedAt.getEpochSecond(), tier.seconds), group());
        }

        ArrivalKey arrival(long seconds) {
            return new ArrivalKey(seconds, Math.floorDiv(failedAt.getEpochSecond(), seconds), key(queue), key(reason));
        }
    }

    /** One row's change: {@code before} null for a new row, {@code after} null for a deleted one. */
    public record Change(Counted before, Counted after) { }

    record GroupKey(String status, String queue, String reason, String failureClass, String errorType,
                    String fingerprint, String consumerVersion) implements Comparable<GroupKey> {
        private static final Comparator<GroupKey> ORDER = Comparator.comparing(GroupKey::status)
                .thenComparing(GroupKey::queue).thenComparing(GroupKey::reason).thenComparing(GroupKey::failureClass)
                .thenComparing(GroupKey::errorType).thenComparing(GroupKey::fingerprint)
                .thenComparing(GroupKey::consumerVersion);

        @Override
        public int compareTo(GroupKey o) {
            return ORDER.compare(this, o);
        }

        List<String> values() {
            return List.of(status, queue, reason, failureClass, errorType, fingerprint, consumerVersion);
        }
    }

    /** A group's row in a tier: ordered by tier (the tables' lock order), then by the table's key. */
    record TierGroupKey(GroupTier tier, long bucket, GroupKey group) implements Comparable<TierGroupKey> {
        private static final Comparator<TierGroupKey> ORDER = Comparator.comparing(TierGroupKey::tier)
                .thenComparingLong(TierGroupKey::bucket).thenComparing(TierGroupKey::group);

        @Override
        public int compareTo(TierGroupKey o) {
            return ORDER.compare(this, o);
        }
    }

    record ArrivalKey(long seconds, long bucket, String queue, String reason) implements Comparable<ArrivalKey> {
        private static final Comparator<ArrivalKey> ORDER = Comparator.comparingLong(ArrivalKey::seconds)
                .thenComparingLong(ArrivalKey::bucket).thenComparing(ArrivalKey::queue).thenComparing(ArrivalKey::reason);

        @Override
        public int compareTo(ArrivalKey o) {
            return ORDER.compare(this, o);
        }
    }

    /** Added and removed rows of one group within one call; first/last only over the added ones. */
    private static final class GroupDelta {
        long added;
        long removed;
        Instant first;
        Instant last;

        void add(Instant at) {
            added++;
            first = first == null || at.isBefore(first) ? at : first;
            last = last == null || at.isAfter(last) ? at : last;
        }
    }

    static final String[] GROUP_COLUMNS = {"status", "source_queue", "reason", "failure_class", "error_type",
        "error_fingerprint", "consumer_version"};

    private static String key(String value) {
        return value == null ? "" : value;
    }

    /** Shorthand for one row's change. */
    public void apply(Counted before, Counted after) {
        apply(List.of(new Change(before, after)));
    }

    /**
     * Brings the counts up to date with {@code changes}, already made to {@code dead_letter} in this
     * transaction (they are flushed first, so that a first/last recomputed after a removal sees them). Once per
     * transaction, after its last change of a {@code dead_letter} row (the lock order above).
     */
    public void apply(Collection<Change> changes) {
        Map<GroupKey, GroupDelta> groups = new TreeMap<>();
        Map<TierGroupKey, GroupDelta> tierGroups = new TreeMap<>();
        Map<ArrivalKey, long[]> arrivals = new TreeMap<>();
        for (Change c : changes) {
            if (c.before() != null && c.after() != null && c.before().equals(c.after())) {
                continue;
            }
            if (c.before() != null) {
                groups.computeIfAbsent(c.before().group(), k -> new GroupDelta()).removed++;
                for (GroupTier tier : GroupTier.values()) {
                    tierGroups.computeIfAbsent(c.before().tierGroup(tier), k -> new GroupDelta()).removed++;
                }
                for (long tier : ARRIVAL_TIERS) {
                    arrivals.computeIfAbsent(c.before().arrival(tier), k -> new long[1])[0]--;
                }
            }
            if (c.after() != null) {
                groups.computeIfAbsent(c.after().group(), k -> new GroupDelta()).add(c.after().failedAt());
                for (GroupTier tier : GroupTier.values()) {
                    tierGroups.computeIfAbsent(c.after().tierGroup(tier), k -> new GroupDelta()).add(c.after().failedAt());
                }
                for (long tier : ARRIVAL_TIERS) {
                    arrivals.computeIfAbsent(c.after().arrival(tier), k -> new long[1])[0]++;
                }
            }
        }
        if (groups.isEmpty()) {
            return;
        }
        em.flush();
        // one table after the other, each in key order: two writers lock the rows they share in the same order
        groups.forEach((k, d) -> applyGroup(k, null, 0, d));
        tierGroups.forEach((k, d) -> applyGroup(k.group(), k.tier(), k.bucket(), d));
        arrivals.forEach((k, d) -> {
            if (d[0] != 0) {
                applyArrival(k, d[0]);
            }
        });
    }

    /**
     * One group row's change: of {@code dead_letter_group_count} when {@code tier} is null, else of that
     * tier's row for {@code bucket} (whose first/last are within the bucket).
     */
    private void applyGroup(GroupKey k, GroupTier tier, long bucket, GroupDelta d) {
        if (d.added == 0 && d.removed == 0) {
            return;
        }
        String table = tier == null ? "dead_letter_group_count" : tier.table;
        Long bucketed = tier == null ? null : bucket;
        String where = " where status = ?1 and source_queue = ?2 and reason = ?3 and failure_class = ?4"
                + " and error_type = ?5 and error_fingerprint = ?6 and consumer_version = ?7"
                // the bucket inlined (a long of ours): ordinal parameters may have no gap, and ?8.. differ per statement
                + (bucketed == null ? "" : " and bucket = " + bucketed);
        while (true) {
            if (d.added > 0) {
                keyed(em.createNativeQuery("insert into " + table + " (status, source_queue, reason,"
                        + " failure_class, error_type, error_fingerprint, consumer_version, dead_letters"
                        + (bucketed == null ? ") values (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0)" : ", bucket) values (?1, ?2, ?3,"
                        + " ?4, ?5, ?6, ?7, 0, " + bucketed + ")") + " on conflict do nothing"), k.values()).executeUpdate();
            }
            Query update;
            if (d.removed == 0) {
                update = em.createNativeQuery("update " + table + " set dead_letters = dead_letters + ?8,"
                                + " first_failed_at = least(coalesce(first_failed_at, ?9), ?9),"
                                + " last_failed_at = greatest(coalesce(last_failed_at, ?10), ?10)" + where)
                        .setParameter(9, d.first).setParameter(10, d.last);
            } else {
                update = em.createNativeQuery("update " + table + " set dead_letters = dead_letters + ?8" + where);
            }
            int n = keyed(update, k.values()).setParameter(8, d.added - d.removed).executeUpdate();
            if (n == 1) {
                break;
            }
            if (d.added == 0) {
                throw new IllegalStateException("dead-letter counts out of step: no group row to remove from " + k);
            }
            // deleted as empty between our insert and update (dropEmpty): create it again
        }
        if (d.removed > 0) {
            refreshFirstAndLast(k, tier, bucketed, table, where);
        }
    }

    /**
     * After a removal, which may have taken the group's first or last dead letter: both read again from the rows
     * (an index range, V8), now that this transaction holds the group row's lock.
     */
    private void refreshFirstAndLast(GroupKey k, GroupTier tier, Long bucketed, String table, String where) {
        StringBuilder sql = new StringBuilder("select min(failed_at), max(failed_at) from dead_letter where 1 = 1");
        List<String> values = k.values();
        List<String> params = new ArrayList<>();
        for (int i = 0; i < GROUP_COLUMNS.length; i++) {
            if (values.get(i).isEmpty()) {
                sql.append(" and (").append(GROUP_COLUMNS[i]).append(" is null or ").append(GROUP_COLUMNS[i])
                        .append(" = '')");
            } else {
                params.add(values.get(i));
                sql.append(" and ").append(GROUP_COLUMNS[i]).append(" = ?").append(params.size());
            }
        }
        if (bucketed != null) {
            // the bucket's members only: the same index, a narrower failed_at range
            sql.append(" and failed_at >= ?").append(params.size() + 1).append(" and failed_at < ?")
                    .append(params.size() + 2);
        }
        Query q = em.createNativeQuery(sql.toString());
        for (int i = 0; i < params.size(); i++) {
            q.setParameter(i + 1, params.get(i));
        }
        if (bucketed != null) {
            q.setParameter(params.size() + 1, Instant.ofEpochSecond(bucketed * tier.seconds))
                    .setParameter(params.size() + 2, Instant.ofEpochSecond((bucketed + 1) * tier.seconds));
        }
        Object[] r = (Object[]) q.getSingleResult();
        if (r[0] == null) {
            keyed(em.createNativeQuery("update " + table + " set first_failed_at = null,"
                    + " last_failed_at = null" + where), k.values()).executeUpdate();
        } else {
            keyed(em.createNativeQuery("update " + table + " set first_failed_at = ?8,"
                    + " last_failed_at = ?9" + where), k.values())
                    .setParameter(8, instant(r[0])).setParameter(9, instant(r[1])).executeUpdate();
        }
    }

    private void applyArrival(ArrivalKey k, long delta) {
        String where = " where bucket_seconds = ?1 and bucket = ?2 and source_queue = ?3 and reason = ?4";
        while (true) {
            if (delta > 0) {
                arrivalKeyed(em.createNativeQuery("""
                        insert into dead_letter_arrival (bucket_seconds, bucket, source_queue, reason, arrived)
                        values (?1, ?2, ?3, ?4, 0) on conflict do nothing"""), k).executeUpdate();
            }
            int n = arrivalKeyed(em.createNativeQuery("update dead_letter_arrival set arrived = arrived + ?5" + where), k)
                    .setParameter(5, delta).executeUpdate();
            if (n == 1) {
                return;
            }
            if (delta < 0) {
                throw new IllegalStateException("dead-letter counts out of step: no arrival row to remove from " + k);
            }
        }
    }

    /**
     * Deletes the rows that count nothing any more (a purged hour, a group whose dead letters all moved
     * on). A writer that created such a row again in between finds no row to update and inserts it anew. Rows
     * another transaction holds are skipped ({@code skip locked}: a row being written is about to count again,
     * or is left for the next pass), so this never waits for a lock and cannot close a cycle of waits.
     */
    public int dropEmpty() {
        String groupKey = "(status, source_queue, reason, failure_class, error_type, error_fingerprint, consumer_version)";
        String tierKey = "(bucket, status, source_queue, reason, failure_class, error_type, error_fingerprint,"
                + " consumer_version)";
        int dropped = dropEmpty("dead_letter_group_count", groupKey, "dead_letters");
        for (GroupTier tier : GroupTier.values()) {
            dropped += dropEmpty(tier.table, tierKey, "dead_letters");
        }
        return dropped + dropEmpty("dead_letter_arrival", "(bucket_seconds, bucket, source_queue, reason)", "arrived");
    }

    private int dropEmpty(String table, String key, String count) {
        return em.createNativeQuery("delete from " + table + " where " + count + " = 0 and " + key + " in (select "
                + key.substring(1, key.length() - 1) + " from " + table + " where " + count + " = 0 for update skip locked)")
                .executeUpdate();
    }

    private static Query keyed(Query q, List<String> values) {
        for (int i = 0; i < values.size(); i++) {
            q.setParameter(i + 1, values.get(i));
        }
        return q;
    }

    private static Query arrivalKeyed(Query q, ArrivalKey k) {
        return q.setParameter(1, k.seconds()).setParameter(2, k.bucket()).setParameter(3, k.queue())
                .setParameter(4, k.reason());
    }

    /** A timestamp as a native query answers it (the type differs by database and driver). */
    static Instant instant(Object value) {
        if (value == null || value instanceof Instant) {
            return (Instant) value;
        }
        if (value instanceof Timestamp t) {
            return t.toInstant();
        }
        if (value instanceof java.time.OffsetDateTime o) {
            return o.toInstant();
        }
        if (value instanceof java.time.ZonedDateTime z) {
            return z.toInstant();
        }
        throw new IllegalStateException("not a timestamp: " + value.getClass());
    }
}
