package dev.mailroom.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * CPU time used by this JVM and everything it started (WildFly nodes, Artemis brokers, PostgreSQL and its backends),
 * by kind, read from {@code /proc/<pid>/stat}: on a machine shared with other builds the wall clock says how loaded
 * the machine was, the CPU seconds say what the work itself cost (a quiet 2-core machine needs at least half of them
 * in wall time).
 *
 * <p>A sampler thread reads every process of the tree every {@link #PERIOD_MS} ms and keeps each one's last reading,
 * so a process killed in between still counts (up to one period short). {@link #mark()} takes a reading of now;
 * {@link #since(Map)} is what was used after it.
 */
public final class ProcessCpu {

    public static final long PERIOD_MS = 2000;
    /** Clock ticks per second of {@code /proc/<pid>/stat} ({@code getconf CLK_TCK}; 100 on Linux). */
    private static final double TICKS = 100.0;

    private final Map<Long, Reading> last = new ConcurrentHashMap<>();
    private volatile boolean running = true;

    private record Reading(String kind, double seconds) {
    }

    private ProcessCpu() {
    }

    /** Starts sampling (a daemon thread) until {@link #stop()}. */
    public static ProcessCpu start() {
        ProcessCpu cpu = new ProcessCpu();
        Thread t = new Thread(cpu::run, "process-cpu");
        t.setDaemon(true);
        t.start();
        return cpu;
    }

    public void stop() {
        running = false;
    }

    /** A reading of every process now, by pid: give it to {@link #since}. */
    public synchronized Map<Long, Double> mark() {
        sample();
        Map<Long, Double> m = new LinkedHashMap<>();
        last.forEach((pid, r) -> m.put(pid, r.seconds()));
        return m;
    }

    /** CPU seconds used since the mark, by kind ({@code wildfly}, {@code liberty}, {@code configure} (jboss-cli), {@code artemis}, {@code postgres}, {@code tests},
     * {@code other}) and {@code total}. */
    public synchronized Map<String, Double> since(Map<Long, Double> mark) {
        sample();
        Map<String, Double> out = new LinkedHashMap<>();
        double total = 0;
        for (Map.Entry<Long, Reading> e : last.entrySet()) {
            double used = e.getValue().seconds() - mark.getOrDefault(e.getKey(), 0.0);
            if (used > 0) {
                out.merge(e.getValue().kind(), used, Double::sum);
                total += used;
            }
        }
        out.put("total", total);
        return out;
    }

    /** {@code since(mark)} as one line: {@code 412 s CPU (wildfly 300, artemis 60, ...)}. */
    public String describe(Map<Long, Double> mark) {
        Map<String, Double> used = since(mark);
        StringBuilder b = new StringBuilder(String.format("%.0f s CPU (", used.getOrDefault("total", 0.0)));
        String sep = "";
        for (Map.Entry<String, Double> e : used.entrySet()) {
            if (!e.getKey().equals("total")) {
                b.append(sep).append(e.getKey()).append(' ').append(String.format("%.0f", e.getValue()));
                sep = ", ";
            }
        }
        return b.append(')').toString();
    }

    /** The machine's load averages (1, 5, 15 minutes) as {@code /proc/loadavg} has them. */
    public static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    private void run() {
        while (running) {
            synchronized (this) {
                sample();
            }
            try {
                Thread.sleep(PERIOD_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void sample() {
        ProcessHandle self = ProcessHandle.current();
        Stream.concat(Stream.of(self), self.descendants()).forEach(h -> read(h.pid()).ifPresent(seconds ->
                last.compute(h.pid(), (pid, old) -> new Reading(old != null && !old.kind().equals("other") ? old.kind() : kind(h, self), seconds))));
    }

    private static Optional<Double> read(long pid) {
        OptionalLong ticks = cpuTicks(pid);
        return ticks.isPresent() ? Optional.of(ticks.getAsLong() / TICKS) : Optional.empty();
    }

    /**
     * User plus system CPU of a process so far, in clock ticks ({@code /proc/<pid>/stat}'s utime and stime); empty
     * once it is gone (or not on Linux).
     */
    public static OptionalLong cpuTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // after the command: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
            return OptionalLong.of(Long.parseLong(f[11]) + Long.parseLong(f[12]));
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * User plus system CPU so far, in clock ticks, of this JVM's living descendants of one {@code kind} (as
     * {@link #since} names them, e.g. {@code postgres}: the postmaster and every backend); empty when there is none.
     * A process that ended is no longer counted: for a pool's long-lived backends, not for short-lived workers.
     */
    public static OptionalLong descendantTicks(String kind) {
        ProcessHandle self = ProcessHandle.current();
        long[] sum = {0, 0};
        self.descendants().filter(h -> kind.equals(kind(h, self))).forEach(h -> cpuTicks(h.pid()).ifPresent(t -> {
            sum[0] += t;
            sum[1]++;
        }));
        return sum[1] == 0 ? OptionalLong.empty() : OptionalLong.of(sum[0]);
    }

    private static String kind(ProcessHandle h, ProcessHandle self) {
        if (h.pid() == self.pid()) {
            return "tests";
        }
        String cmd;
        try {
            cmd = Files.readString(Path.of("/proc", Long.toString(h.pid()), "cmdline"));
        } catch (IOException e) {
            return "other";
        }
        if (cmd.contains("org.jboss.as.cli") || cmd.contains("jboss-cli")) {
            return "configure";
        }
        if (cmd.contains("jboss-modules.jar")) {
            return "wildfly";
        }
        if (cmd.contains("ws-server.jar")) {
            return "liberty";
        }
        if (cmd.contains("org.apache.activemq.artemis.boot.Artemis")) {
            return "artemis";
        }
        if (cmd.contains("postgres")) {
            return "postgres";
        }
        return "other";
    }
}
