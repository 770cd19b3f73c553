package dev.mailroom.job;

import dev.mailroom.platform.DatabaseFailures;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * What each send queue's provider calls did lately, for the dashboard: over the last hour how many were accepted and
 * how many failed, by failure class, and the send rate (accepted per minute over the last five minutes). Read from
 * {@code job_attempt} (every node's attempts, not only this one's), by when the attempt finished.
 *
 * <p>Cheap without an index on {@code finished_at}: each call notes the highest attempt id at that moment, and a
 * later call reads only attempts above the id noted at least {@link #LONGEST_ATTEMPT} before its window starts: a
 * range of the primary key instead of the whole table. An attempt that started before that note and finished
 * inside the window is missed only if it took longer than {@link #LONGEST_ATTEMPT}, far beyond any provider
 * timeout. Until a note is old enough (the first hour after a start) the whole table is read.
 */
@ApplicationScoped
public class SendActivity {

    /** The window of the counts. */
    public static final Duration WINDOW = Duration.ofHours(1);
    /** The window of the send rate. */
    public static final Duration RATE_WINDOW = Duration.ofMinutes(5);
    /** Longer than any attempt takes from its start (its id) to its end (its finished_at). */
    static final Duration LONGEST_ATTEMPT = Duration.ofMinutes(15);
    /** One note per minute at most; notes older than the window plus {@link #LONGEST_ATTEMPT} are dropped. */
    private static final Duration NOTE_EVERY = Duration.ofMinutes(1);

    /**
     * One queue's last hour.
     *
     * @param acceptedLastHour     attempts the provider accepted
     * @param failedLastHour       attempts that did not end accepted (refused, not connected, ambiguous, abandoned)
     * @param failedByClass        those failures by failure class ({@code unclassified} where none was recorded)
     * @param sentPerMinute        accepted attempts per minute over the last {@link #RATE_WINDOW}
     */
    public record QueueActivity(long acceptedLastHour, long failedLastHour, Map<String, Long> failedByClass,
                                double sentPerMinute) {
        public static final QueueActivity NONE = new QueueActivity(0, 0, Map.of(), 0);
    }

    /** One group of the query: queue, outcome, class, how many in the window, how many in the rate window. */
    record Row(String queue, String outcome, String failureClass, long count, long recent) { }

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;

    /** Highest attempt id seen at a moment: the floor of later windows. */
    private final ConcurrentSkipListMap<Instant, Long> notes = new ConcurrentSkipListMap<>();

    /**
     * Each send queue that had finished attempts in the last hour, with its figures (absent: none); empty while
     * the database does not answer, so the queues' broker figures and pauses stay readable during a database
     * outage — exactly when an operator looks at them.
     */
    public Optional<Map<String, QueueActivity>> lastHourIfReachable(Instant now) {
        try {
            return Optional.of(lastHour(now));
        } catch (RuntimeException e) {
            if (DatabaseFailures.isConnectionFailure(e)) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** Each send queue that had finished attempts in the last hour, with its figures (absent: none). */
    public Map<String, QueueActivity> lastHour(Instant now) {
        Instant since = now.minus(WINDOW);
        long floor = floor(notes, since);
        List<Row> rows = em.createQuery("select j.queue, a.outcome, a.failureClass, count(a),"
                        + " sum(case when a.finishedAt >= :recent then 1 else 0 end)"
                        + " from JobAttempt a, MailJob j where j.id = a.jobId and a.id > :floor"
                        + " and a.finishedAt >= :since and a.finishedAt <= :now"
                        + " group by j.queue, a.outcome, a.failureClass", Object[].class)
                .setParameter("recent", now.minus(RATE_WINDOW))
                .setParameter("floor", floor)
                .setParameter("since", since)
                .setParameter("now", now)
                .getResultStream()
                .map(r -> new Row((String) r[0], (String) r[1], (String) r[2], ((Number) r[3]).longValue(),
                        r[4] == null ? 0 : ((Number) r[4]).longValue()))
                .toList();
        Long highest = em.createQuery("select max(a.id) from JobAttempt a", Long.class).getSingleResult();
        note(notes, now, highest == null ? 0 : highest);
        return summarise(rows);
    }

    /** The highest id noted at least {@link #LONGEST_ATTEMPT} before {@code since}; 0 (everything) if none is. */
    static long floor(NavigableMap<Instant, Long> notes, Instant since) {
        Map.Entry<Instant, Long> e = notes.floorEntry(since.minus(LONGEST_ATTEMPT));
        return e == null ? 0 : e.getValue();
    }

    /** Notes {@code highestId} at {@code now} unless a note is less than a minute old; drops notes no window needs. */
    static void note(NavigableMap<Instant, Long> notes, Instant now, long highestId) {
        Map.Entry<Instant, Long> last = notes.lastEntry();
        if (last == null || !last.getKey().plus(NOTE_EVERY).isAfter(now)) {
            notes.put(now, highestId);
        }
        // keep the newest note old enough to be a floor; everything older is of no use
        Instant oldestUseful = notes.floorKey(now.minus(WINDOW).minus(LONGEST_ATTEMPT));
        if (oldestUseful != null) {
            notes.headMap(oldestUseful, false).clear();
        }
    }

    /** Pure: the rows of the query folded into one {@link QueueActivity} per queue. */
    static Map<String, QueueActivity> summarise(List<Row> rows) {
        Map<String, long[]> totals = new TreeMap<>();
        Map<String, Map<String, Long>> byClass = new HashMap<>();
        for (Row r : rows) {
            long[] t = totals.computeIfAbsent(r.queue(), q -> new long[3]);
            if (JobAttempt.Outcome.accepted.name().equals(r.outcome())) {
                t[0] += r.count();
                t[2] += r.recent();
            } else {
                t[1] += r.count();
                byClass.computeIfAbsent(r.queue(), q -> new TreeMap<>())
                        .merge(r.failureClass() == null ? "unclassified" : r.failureClass(), r.count(), Long::sum);
            }
        }
        Map<String, QueueActivity> result = new TreeMap<>();
        totals.forEach((queue, t) -> result.put(queue, new QueueActivity(t[0], t[1],
                Map.copyOf(byClass.getOrDefault(queue, Map.of())),
                Math.round(t[2] * 10.0 / RATE_WINDOW.toMinutes()) / 10.0)));
        return result;
    }
}
