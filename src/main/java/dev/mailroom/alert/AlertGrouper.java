package dev.mailroom.alert;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Folds occurrences into alerts, the way Alertmanager's group_wait and group_interval do, so that a
 * burst of 5,000 dead letters is one alert with a count of 5,000, not 5,000 alerts.
 *
 * <p>Occurrences with equal alert labels (name, severity, grouping labels; never a message id) join
 * one open group. A group opened for labels that were not alerted lately is due {@code groupWait}
 * after it opened: a new problem is reported quickly, with what arrived in the first seconds. Once
 * alerted, the same labels are not alerted again before {@code groupInterval} has passed: a problem
 * that goes on is reported as a running count every interval, not every few seconds.
 *
 * <p>Windows are measured in the time passed in (the dispatcher's tick time), not the occurrences'
 * own times, so an occurrence reported late (a swept dead letter from yesterday) cannot make a window
 * close early. Not thread-safe: the dispatcher calls it from its one ticking thread.
 */
public final class AlertGrouper {

    public static final Duration DEFAULT_GROUP_WAIT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_GROUP_INTERVAL = Duration.ofMinutes(1);
    /** Distinct values kept per detail label (error types, ...): enough to see what is going on. */
    static final int MAX_DETAIL_VALUES = 5;

    private final Duration groupWait;
    private final Duration groupInterval;
    /** Open groups in the order they opened: alerts come out in that order. */
    private final Map<Map<String, String>, Group> open = new LinkedHashMap<>();
    /** When each label set was last alerted, kept while it still holds back the next group. */
    private final Map<Map<String, String>, Instant> lastAlerted = new HashMap<>();

    public AlertGrouper(Duration groupWait, Duration groupInterval) {
        this.groupWait = positive(groupWait, "groupWait");
        this.groupInterval = positive(groupInterval, "groupInterval");
    }

    /** An alert drained from its group, with the lowest outbox sequence of the occurrences counted in it. */
    record Drained(Alert alert, long minSeq) {
    }

    /** Adds one occurrence (or {@code r.count()} of them) at {@code now}. */
    public void add(RoutedAlert r, Instant now) {
        add(r, now, AlertDispatcher.UNTRACKED);
    }

    /** As {@link #add(RoutedAlert, Instant)}, for an occurrence with outbox sequence {@code seq}. */
    void add(RoutedAlert r, Instant now, long seq) {
        Map<String, String> key = r.alertLabels();
        Group g = open.get(key);
        if (g == null) {
            Instant due = now.plus(groupWait);
            Instant last = lastAlerted.get(key);
            if (last != null && last.plus(groupInterval).isAfter(due)) {
                due = last.plus(groupInterval);
            }
            g = new Group(r, key, due);
            open.put(key, g);
        }
        g.add(r);
        g.minSeq = Math.min(g.minSeq, seq);
    }

    /** The alerts of every group whose window has closed at {@code now}, in the order the groups opened. */
    public List<Alert> drainDue(Instant now) {
        return drainDueTracked(now).stream().map(Drained::alert).toList();
    }

    /** The lowest outbox sequence of the occurrences in an open group ({@link AlertDispatcher#UNTRACKED} if none). */
    long minOpenSeq() {
        return open.values().stream().mapToLong(g -> g.minSeq).min().orElse(AlertDispatcher.UNTRACKED);
    }

    List<Drained> drainDueTracked(Instant now) {
        List<Drained> out = new ArrayList<>();
        for (Iterator<Group> it = open.values().iterator(); it.hasNext(); ) {
            Group g = it.next();
            if (!now.isBefore(g.due)) {
                out.add(new Drained(g.toAlert(), g.minSeq));
                lastAlerted.put(g.key, now);
                it.remove();
            }
        }
        // a label set alerted longer than an interval ago holds nothing back any more
        lastAlerted.values().removeIf(t -> !t.plus(groupInterval).isAfter(now));
        return out;
    }

    /** The alerts of every open group, due or not: for a shutdown, which must not keep anything back. */
    public List<Alert> drainAll() {
        return drainAllTracked().stream().map(Drained::alert).toList();
    }

    List<Drained> drainAllTracked() {
        List<Drained> out = new ArrayList<>();
        open.values().forEach(g -> out.add(new Drained(g.toAlert(), g.minSeq)));
        open.clear();
        lastAlerted.clear();
        return out;
    }

    /** How many groups are open. */
    public int openGroups() {
        return open.size();
    }

    /** When the next open group is due, if any: lets a caller or a test know when to look again. */
    public java.util.Optional<Instant> nextDue() {
        return open.values().stream().map(g -> g.due).min(Instant::compareTo);
    }

    private static Duration positive(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive: " + d);
        }
        return d;
    }

    private static final class Group {
        final Map<String, String> key;
        final Instant due;
        final String name;
        final Severity severity;
        final String title;
        long count;
        /** Occurrences added: a single one (even standing for a count) describes itself. */
        int added;
        Instant firstAt;
        Instant lastAt;
        String latestDescription;
        final Set<String> examples = new LinkedHashSet<>();
        final Map<String, Set<String>> details = new TreeMap<>();
        final Set<String> detailsCut = new java.util.TreeSet<>();
        long minSeq = AlertDispatcher.UNTRACKED;

        Group(RoutedAlert first, Map<String, String> key, Instant due) {
            this.key = key;
            this.due = due;
            this.name = first.name();
            this.severity = first.severity();
            this.title = first.title();
            this.firstAt = first.at();
            this.lastAt = first.at();
        }

        void add(RoutedAlert r) {
            count += r.count();
            added++;
            if (r.at().isBefore(firstAt)) {
                firstAt = r.at();
            }
            if (!r.at().isBefore(lastAt)) {
                lastAt = r.at();
                latestDescription = r.description();
            } else if (latestDescription == null) {
                latestDescription = r.description();
            }
            if (r.example() != null && examples.size() < Alert.MAX_EXAMPLES) {
                examples.add(r.example());
            }
            r.details().forEach((label, value) -> {
                Set<String> seen = details.computeIfAbsent(label, k -> new LinkedHashSet<>());
                if (!seen.contains(value)) {
                    if (seen.size() < MAX_DETAIL_VALUES) {
                        seen.add(value);
                    } else {
                        detailsCut.add(label);
                    }
                }
            });
        }

        Alert toAlert() {
            // one occurrence describes itself; for many, the latest and the distinct values seen of the
            // labels not grouped on (error types, failure classes) say what the count is made of
            String d = latestDescription;
            if (added > 1) {
                List<String> parts = new ArrayList<>();
                details.forEach((label, values) -> parts.add(label + " " + String.join(", ", values)
                        + (detailsCut.contains(label) ? ", ..." : "")));
                d = "Latest: " + latestDescription + (parts.isEmpty() ? "" : ". Seen: " + String.join("; ", parts));
            }
            return new Alert(name, severity, key, title, d, count, firstAt, lastAt, new ArrayList<>(examples));
        }
    }
}
