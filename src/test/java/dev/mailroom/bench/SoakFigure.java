package dev.mailroom.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The memory soak (bench/README.md, "Memory"): the server's heap after a full collection once the first jobs are
 * through and again at the end of a long run, and its resident memory beside it. The heap is read with the JDK's own
 * {@code jcmd} ({@code GC.run}, then {@code GC.heap_info}): a full collection first, so what is left is what the
 * server holds, not garbage not yet collected.
 */
final class SoakFigure {

    /** The JVM's sizing of {@code bin/standalone.conf}, which the embedded default ({@code mvn -Prun package}) runs with. */
    static final String EMBEDDED_HEAP = "-Xms64m -Xmx512m";
    /** The heap line of {@code GC.heap_info}, for G1 and the other collectors alike ({@code ... total 262144K, used 98304K}). */
    private static final Pattern HEAP_USED = Pattern.compile("(?m)^\\s*\\S.*?\\bheap\\s+total\\s+(\\d+)K,\\s+used\\s+(\\d+)K");
    private static final Pattern RSS = Pattern.compile("(?m)^VmRSS:\\s+(\\d+)\\s+kB");

    private SoakFigure() {
    }

    /** One reading: heap used after a full collection, the heap's committed size, the process's resident set (KiB). */
    record Reading(int jobs, long heapUsedKib, long heapTotalKib, long rssKib) {
    }

    /** The figures of a soak: the reading after the first jobs, the one at the end, and any OutOfMemoryError logged. */
    record Figures(String db, int consumers, Reading first, Reading last, int outOfMemoryErrors) {
        double ratio() {
            return (double) last.heapUsedKib() / first.heapUsedKib();
        }
    }

    /** Reads {@code pid}'s heap after a full collection and its resident memory. */
    static Reading read(long pid, int jobs) {
        jcmd(pid, "GC.run");
        long[] heap = heapUsed(jcmd(pid, "GC.heap_info"));
        return new Reading(jobs, heap[1], heap[0], rssKib(procStatus(pid)));
    }

    /** {@code {total, used}} in KiB from {@code GC.heap_info}'s output. */
    static long[] heapUsed(String heapInfo) {
        Matcher m = HEAP_USED.matcher(heapInfo);
        if (!m.find()) {
            throw new IllegalStateException("no heap line in GC.heap_info: " + heapInfo);
        }
        return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
    }

    /** VmRSS in KiB from {@code /proc/<pid>/status}. */
    static long rssKib(String procStatus) {
        Matcher m = RSS.matcher(procStatus);
        if (!m.find()) {
            throw new IllegalStateException("no VmRSS in /proc/<pid>/status");
        }
        return Long.parseLong(m.group(1));
    }

    /** How many times the server's log says OutOfMemoryError. */
    static int outOfMemoryErrors(Path serverLog) {
        try (var lines = Files.lines(serverLog, StandardCharsets.UTF_8)) {
            return (int) lines.filter(l -> l.contains("OutOfMemoryError")).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code Heap after a full GC, 200k jobs / first 10k, sandbox, 4 consumers, PostgreSQL: 1.03} and the memory line. */
    static List<String> summaryLines(Figures f) {
        List<String> out = new ArrayList<>();
        out.add(String.format(Locale.ROOT, "Heap after a full GC, %s jobs / first %s, sandbox, %d consumers, %s: %.2f",
                HistoryFigure.size(f.last().jobs()), HistoryFigure.size(f.first().jobs()), f.consumers(), f.db(), f.ratio()));
        out.add(String.format(Locale.ROOT, "Server resident memory after %s jobs, sandbox, %s: %d MiB (heap after a full GC "
                        + "%d MiB of %d MiB committed)", HistoryFigure.size(f.last().jobs()), f.db(), f.last().rssKib() / 1024,
                f.last().heapUsedKib() / 1024, f.last().heapTotalKib() / 1024));
        return out;
    }

    /** The readings behind the lines, and the targets (bench/README.md): at most 10 % more heap, no OutOfMemoryError. */
    static String note(Figures f) {
        return String.format(Locale.ROOT, "memory soak, %s, sandbox, %d consumers, heap %s: after %,d jobs heap %,d KiB "
                        + "of %,d KiB committed (RSS %,d KiB), after %,d jobs heap %,d KiB of %,d KiB committed (RSS %,d KiB) "
                        + "= %.2f, target <= 1.10: %s; OutOfMemoryError in the server log: %d", f.db(), f.consumers(),
                EMBEDDED_HEAP, f.first().jobs(), f.first().heapUsedKib(), f.first().heapTotalKib(), f.first().rssKib(),
                f.last().jobs(), f.last().heapUsedKib(), f.last().heapTotalKib(), f.last().rssKib(), f.ratio(),
                f.ratio() <= 1.10 ? "met" : "MISSED", f.outOfMemoryErrors());
    }

    private static String procStatus(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "status"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String jcmd(long pid, String command) {
        String home = System.getProperty("java.home");
        Path jcmd = Path.of(home, "bin", "jcmd");
        try {
            Process p = new ProcessBuilder(Files.isExecutable(jcmd) ? jcmd.toString() : "jcmd", Long.toString(pid), command)
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(Duration.ofMinutes(2).toSeconds(), TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("jcmd " + pid + " " + command + " failed: " + out);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
