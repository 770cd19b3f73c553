package dev.mailroom.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The history figure's summary lines and notes (bench/README.md, "History"), from its three runs and the purge. */
final class HistoryFigure {

    private HistoryFigure() {
    }

    /**
     * {@code empty} and {@code full}: the sandbox run on an empty and on the seeded database; {@code purge}: the run
     * beside retention's purge of the seeded jobs, and the purge itself.
     */
    record Figures(String db, int consumers, int history, SendBench.Result empty, SendBench.Result full,
                   RetentionPurge.Observed purge) {
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
        String h = size(f.history()) + " history";
        List<String> out = new ArrayList<>();
        out.add(String.format(Locale.ROOT, "CPU per job, %s / empty, %s: %.2f", h, f.db(), f.full().cpuMs() / f.empty().cpuMs()));
        out.add(String.format(Locale.ROOT, "Database CPU per job, %s / empty, %s: %.2f", h, f.db(),
                f.full().dbCpuMs() / f.empty().dbCpuMs()));
        out.add(String.format(Locale.ROOT, "Jobs/s, %s / empty, %s: %.2f", h, f.db(), f.full().rate() / f.empty().rate()));
        out.add(String.format(Locale.ROOT, "Retention purge, %s, %s: %.0f rows/s (%.0f jobs/s)", h, f.db(),
                f.purge().rowsPerSecond(), f.purge().jobsPerSecond()));
        out.add(String.format(Locale.ROOT, "Sending during retention's purge / without, sandbox, %d consumers, %s: %.2f",
                f.consumers(), f.db(), f.purge().during().rate() / f.full().rate()));
        return out;
    }

    /** The figures behind the lines. */
    static List<String> notes(Figures f) {
        RetentionPurge.Observed p = f.purge();
        List<String> out = new ArrayList<>();
        out.add(String.format(Locale.ROOT, "history, %s, sandbox, %d consumers: empty %.1f jobs/s, server CPU %.1f ms/job, "
                        + "PostgreSQL CPU %.1f ms/job; %s history %.1f jobs/s, %.1f ms/job, %.1f ms/job; during the purge "
                        + "%.1f jobs/s, %.1f ms/job, %.1f ms/job", f.db(), f.consumers(), f.empty().rate(),
                f.empty().cpuMs(), f.empty().dbCpuMs(), size(f.history()), f.full().rate(), f.full().cpuMs(),
                f.full().dbCpuMs(), p.during().rate(), p.during().cpuMs(), p.during().dbCpuMs()));
        out.add(String.format(Locale.ROOT, "retention purge: %,d rows of jobs (%s) in %.0f s after its first batch = %.0f "
                        + "rows/s, %.0f jobs/s; %,d seeded jobs left when the run beside it ended, %,d at the end%s",
                p.jobRows(), p.rows(), p.seconds(), p.rowsPerSecond(), p.jobsPerSecond(), p.jobsLeftAtRunEnd(),
                p.jobsLeftAtEnd(), p.problem() == null ? "" : "; PROBLEM: " + p.problem()));
        return out;
    }
}
