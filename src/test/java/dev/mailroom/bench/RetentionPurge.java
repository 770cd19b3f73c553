package dev.mailroom.bench;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Watches retention remove the seeded history ({@link HistorySeed}) through its counter
 * {@code mailroom_jobs_retention_removed_total{kind}}: when the first batch landed, the counts when the run sent
 * beside it ended, and when the last seeded job was gone. Polls; the bench's own thread waits on it.
 */
final class RetentionPurge {

    /** The kinds that are a job's own rows (claims outlive the job, webhook calls go by their own age). */
    static final List<String> JOB_ROWS = List.of("job", "attempt", "recipient", "timeline");
    private static final Pattern LINE = Pattern.compile(
            "(?m)^mailroom_jobs_retention_removed_total\\{[^}]*kind=\"(\\w+)\"[^}]*}\\s+(\\S+)");

    /** What the watch saw: rows per kind removed from the first batch seen to the end, over how long. */
    record Observed(SendBench.Result during, Map<String, Long> rows, double seconds, long jobsLeftAtRunEnd,
                    long jobsLeftAtEnd, String problem) {

        long jobRows() {
            return JOB_ROWS.stream().mapToLong(k -> rows.getOrDefault(k, 0L)).sum();
        }

        double rowsPerSecond() {
            return jobRows() / seconds;
        }

        double jobsPerSecond() {
            return rows.getOrDefault("job", 0L) / seconds;
        }
    }

    private final int jobs;
    private final Supplier<Map<String, Long>> removed;
    private final Map<String, Long> base;
    private volatile Map<String, Long> atStart;
    private volatile long startedAt;
    private volatile Map<String, Long> atEnd;
    private volatile long endedAt;
    private volatile RuntimeException failed;
    private final Thread sampler;
    private long leftAtRunEnd = -1;
    private String problem;

    /**
     * {@code jobs}: how many seeded jobs retention must remove; {@code removed}: the counter now, by kind. Reads it
     * now, then every {@link #PERIOD_MS} ms on a thread of its own, noting when the first removal and the last showed.
     */
    RetentionPurge(int jobs, Supplier<Map<String, Long>> removed) {
        this.jobs = jobs;
        this.removed = removed;
        this.base = removed.get();
        this.sampler = new Thread(this::sample, "retention-purge-watch");
        sampler.setDaemon(true);
        sampler.start();
    }

    /** A scrape costs the server a little CPU: once a second is enough against a purge of minutes. */
    static final long PERIOD_MS = 1000;

    private void sample() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                Map<String, Long> now = removed.get();
                long at = System.nanoTime();
                if (atStart == null && delta(base, now, "job") > 0) {
                    startedAt = at;
                    atStart = now;
                }
                if (delta(base, now, "job") >= jobs) {
                    endedAt = at;
                    atEnd = now;
                    return;
                }
                Thread.sleep(PERIOD_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failed = e;
        }
    }

    /** Until retention's first batch is counted; the bench breaks (exception) if none comes within {@code timeout}. */
    void awaitStart(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (atStart == null) {
            if (failed != null) {
                throw failed;
            }
            if (System.nanoTime() > deadline) {
                sampler.interrupt();
                throw new IllegalStateException("retention removed no job within " + timeout.toSeconds()
                        + " s of its lease being released");
            }
            sleep(200);
        }
    }

    /** The run beside the purge ended with {@code left} seeded jobs still there (0: the purge ended first). */
    void runEnded(long left) {
        leftAtRunEnd = left;
        if (left == 0) {
            problem = "the purge ended before the run beside it did: the rate during it is not measured";
        }
    }

    /** Until every seeded job is counted removed, or {@code timeout}. */
    void awaitEnd(Duration timeout) {
        try {
            sampler.join(timeout.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (atEnd == null) {
            sampler.interrupt();
            endedAt = System.nanoTime();
            atEnd = failed != null ? atStart : removed.get();
            problem = (problem == null ? "" : problem + "; ") + (failed != null ? "watching failed: " + failed
                    : "timed out after " + timeout.toSeconds() + " s with " + (jobs - delta(base, atEnd, "job"))
                    + " seeded jobs not removed");
        }
    }

    Observed observed(SendBench.Result during, long jobsLeftAtEnd) {
        Map<String, Long> rows = new LinkedHashMap<>();
        for (String kind : atEnd.keySet()) {
            rows.put(kind, delta(atStart, atEnd, kind));
        }
        return new Observed(during, rows, (endedAt - startedAt) / 1e9, leftAtRunEnd, jobsLeftAtEnd, problem);
    }

    /** The counter's values by kind from a Prometheus page. */
    static Map<String, Long> removed(String prometheus) {
        Map<String, Long> out = new LinkedHashMap<>();
        Matcher m = LINE.matcher(prometheus);
        while (m.find()) {
            out.merge(m.group(1), Math.round(Double.parseDouble(m.group(2))), Long::sum);
        }
        return out;
    }

    private static long delta(Map<String, Long> from, Map<String, Long> to, String kind) {
        return to.getOrDefault(kind, 0L) - from.getOrDefault(kind, 0L);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
