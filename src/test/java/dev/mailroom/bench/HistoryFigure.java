package dev.mailroom.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The history figure's summary lines and notes (bench/README.md, "History"), from its three runs and the purge. */
final class HistoryFigure {

    private HistoryFigure() {
    }

    /**
     * The sandbox run on an empty database ({@code emptyFirst}, and {@code emptyLast} after the rest), on the seeded
     * one ({@code full}), beside retention's purge of the seeded jobs ({@code purge}, with the purge itself) and on
     * the same server after it ({@code after}).
     */
    record Figures(String db, int consumers, int history, SendBench.Result emptyFirst, SendBench.Result emptyLast,
                   SendBench.Result full, SendBench.Result after, RetentionPurge.Observed purge) {

        /** The empty database's figure: its two runs, one before and one after the seeded ones. */
        SendBench.Result empty() {
            return SendBench.Result.combined(emptyFirst, emptyLast);
        }

        /** Sending without the purge: the runs just before and just after it, on the same server. */
        SendBench.Result withoutPurge() {
            return SendBench.Result.combined(full, after);
        }
    }

    /** {@code 1M} for a million, {@code 250k} for 250,000, else the number. */
    static String size(int history) {
        if (history % 1_000_000 == 0) {
            return history / 1_000_000 + "M";
        }
        return history % 1000 == 0 ? history / 1000 + "k" : Integer.toString(history);
    }

    /**
     * {@code CPU per job, 1M history / empty, PostgreSQL: 1.04} (the server's CPU, as every "CPU per job" line),
     * then the database's CPU and the rate the same way, the purge's rows per second and the rate beside it.
     */
    static List<String> summaryLines(Figures f) {
        // empty and without: the mean of the runs on either side (Figures)
        String h = size(f.history()) + " history";
        List<String> out = new ArrayList<>();
        out.add(String.format(Locale.ROOT, "CPU per job, %s / empty, %s: %.2f", h, f.db(), f.full().cpuMs() / f.empty().cpuMs()));
        out.add(String.format(Locale.ROOT, "Database CPU per job, %s / empty, %s: %.2f", h, f.db(),
                f.full().dbCpuMs() / f.empty().dbCpuMs()));
        out.add(String.format(Locale.ROOT, "Jobs/s, %s / empty, %s: %.2f", h, f.db(), f.full().rate() / f.empty().rate()));
        out.add(String.format(Locale.ROOT, "Retention purge, %s, %s: %.0f rows/s (%.0f jobs/s)", h, f.db(),
                f.purge().rowsPerSecond(), f.purge().jobsPerSecond()));
        out.add(String.format(Locale.ROOT, "Sending during retention's purge / without, sandbox, %d consumers, %s: %.2f",
                f.consumers(), f.db(), f.purge().during().rate() / f.withoutPurge().rate()));
        return out;
    }

    private static String figures(SendBench.Result r) {
        return String.format(Locale.ROOT, "%.1f / %.1f / %.1f", r.rate(), r.cpuMs(), r.dbCpuMs());
    }

    /** The figures behind the lines. */
    static List<String> notes(Figures f) {
        RetentionPurge.Observed p = f.purge();
        List<String> out = new ArrayList<>();
        out.add(String.format(Locale.ROOT, "history, %s, sandbox, %d consumers (jobs/s, server CPU ms/job, PostgreSQL CPU "
                        + "ms/job), in the order run: empty %s; %s history %s; during the purge %s; after it %s; empty "
                        + "again %s", f.db(), f.consumers(), figures(f.emptyFirst()), size(f.history()), figures(f.full()),
                figures(p.during()), figures(f.after()), figures(f.emptyLast())));
        out.add(String.format(Locale.ROOT, "retention purge: %,d rows of jobs (%s) in %.0f s after its first batch = %.0f "
                        + "rows/s, %.0f jobs/s; %,d seeded jobs left when the run beside it ended, %,d at the end%s",
                p.jobRows(), p.rows(), p.seconds(), p.rowsPerSecond(), p.jobsPerSecond(), p.jobsLeftAtRunEnd(),
                p.jobsLeftAtEnd(), p.problem() == null ? "" : "; PROBLEM: " + p.problem()));
        return out;
    }
}
