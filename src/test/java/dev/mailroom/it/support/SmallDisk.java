package dev.mailroom.it.support;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A small filesystem of its own (tmpfs of a given size) under a server's data directory, which a test fills and frees:
 * a full disk without filling the machine's. Made with {@code mount -t tmpfs} where the harness may mount (root), else
 * inside an unprivileged user and mount namespace of the server's own ({@code unshare -rm}: the server is started
 * through {@link #launchPrefix}, and the test reaches the filesystem through {@code /proc/<pid>/root}); where neither
 * works it is {@link #unavailable} and says why.
 */
public final class SmallDisk implements AutoCloseable {

    private static final String FILLER = "chaos-filler";
    private final Path dir;
    private final int megabytes;
    private final String how;
    private final String unavailable;
    private volatile long serverPid;

    private SmallDisk(Path dir, int megabytes, String how, String unavailable) {
        this.dir = dir;
        this.megabytes = megabytes;
        this.how = how;
        this.unavailable = unavailable;
    }

    /** A tmpfs of {@code megabytes} for {@code dir}: mounted now, or to be mounted by the server's launch; or none. */
    public static SmallDisk prepare(Path dir, int megabytes) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // MAILROOM_IT_SMALL_DISK=unshare takes the unprivileged way on a machine where mount works too (to try it)
        String mount = "unshare".equals(System.getenv("MAILROOM_IT_SMALL_DISK")) ? "not tried (MAILROOM_IT_SMALL_DISK)"
                : run(List.of("mount", "-t", "tmpfs", "-o", "size=" + megabytes + "m", "tmpfs", dir.toString()));
        if (mount == null) {
            return new SmallDisk(dir, megabytes, "mount", null);
        }
        String unshare = run(List.of("unshare", "-rm", "true"));
        if (unshare == null) {
            return new SmallDisk(dir, megabytes, "unshare", null);
        }
        return new SmallDisk(dir, megabytes, "none", "mount -t tmpfs refused (" + mount + ") and unshare -rm refused ("
                + unshare + "): this machine lets the harness make no filesystem of its own");
    }

    /**
     * A tmpfs of {@code megabytes} for {@code dir}, mounted now, or none: for a server whose every program (an
     * {@code initdb}, a {@code pg_ctl}) must see it, which an own mount namespace of one process cannot give.
     */
    public static SmallDisk mounted(Path dir, int megabytes) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String mount = run(List.of("mount", "-t", "tmpfs", "-o", "size=" + megabytes + "m", "tmpfs", dir.toString()));
        return mount == null ? new SmallDisk(dir, megabytes, "mount", null) : new SmallDisk(dir, megabytes, "none",
                "mount -t tmpfs refused (" + mount + "): the harness may not mount a filesystem here");
    }

    /** Unmounts what an earlier run left mounted under {@code root} (a run killed before its clean-up). */
    public static void unmountUnder(Path root) {
        try {
            String prefix = root.toAbsolutePath().normalize() + "/";
            for (String line : Files.readAllLines(Path.of("/proc/mounts"))) {
                String[] f = line.split(" ");
                if (f.length > 1 && f[1].startsWith(prefix)) {
                    run(List.of("umount", "-l", f[1]));
                }
            }
        } catch (IOException e) {
            // no /proc/mounts: nothing this harness could have mounted
        }
    }

    /** Why there is no small disk, or null when there is one. */
    public String unavailable() {
        return unavailable;
    }

    /** What the server's command is prefixed with: the namespace that mounts the tmpfs, when the harness could not. */
    public List<String> launchPrefix() {
        if (!"unshare".equals(how)) {
            return List.of();
        }
        return List.of("unshare", "-rm", "sh", "-c",
                "mount -t tmpfs -o size=" + megabytes + "m tmpfs \"$0\" && exec \"$@\"", dir.toString());
    }

    /** The server's pid, once started: in an own mount namespace its filesystem is reached through it. */
    public void serverStarted(long pid) {
        this.serverPid = pid;
    }

    /** The directory as this process sees the small filesystem. */
    public Path visible() {
        return "unshare".equals(how) ? Path.of("/proc", Long.toString(serverPid), "root").resolve(dir.toString().substring(1))
                : dir;
    }

    /** Used share of the small filesystem, 0 to 1. */
    public double usage() throws IOException {
        FileStore store = Files.getFileStore(visible());
        return 1.0 - (double) store.getUsableSpace() / store.getTotalSpace();
    }

    /**
     * Adds to the filler file until the filesystem is used to {@code share} (0 to 1) or full; returns the usage. It
     * appends: a second fill (to the brim after a share) must not free what the first took.
     */
    public double fill(double share) throws IOException {
        FileStore store = Files.getFileStore(visible());
        long target = (long) (store.getTotalSpace() * share);
        long toWrite = Math.max(0, target - (store.getTotalSpace() - store.getUsableSpace()));
        byte[] block = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(visible().resolve(FILLER), StandardOpenOption.CREATE,
                StandardOpenOption.APPEND)) {
            for (long written = 0; written < toWrite; written += block.length) {
                out.write(block, 0, (int) Math.min(block.length, toWrite - written));
            }
        } catch (IOException full) {
            // no space left: as full as it gets
        }
        return usage();
    }

    /**
     * Fills the filesystem to the brim and keeps it there until closed: every {@code period} the filler takes
     * whatever the server freed (a journal file it deleted), so the server's own writes keep meeting ENOSPC for as
     * long as the fault lasts, not only its first one.
     */
    public Brim keepFull(Duration period) throws IOException {
        fill(1.0);
        return new Brim(period);
    }

    /** The filler keeping the filesystem full, until {@link #close}; {@link #takenAgain} says what it took back. */
    public final class Brim implements AutoCloseable {
        private final Thread thread;
        private volatile boolean running = true;
        private volatile long takenAgain;

        private Brim(Duration period) {
            thread = new Thread(() -> {
                while (running) {
                    try {
                        FileStore store = Files.getFileStore(visible());
                        long free = store.getUsableSpace();
                        if (free > 0) {
                            fill(1.0);
                            takenAgain += free - Files.getFileStore(visible()).getUsableSpace();
                        }
                    } catch (IOException e) {
                        // the server's directory gone for a moment (it restarted): the next round fills again
                    }
                    try {
                        Thread.sleep(period.toMillis());
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "small-disk-brim");
            thread.setDaemon(true);
            thread.start();
        }

        /** Bytes the filler took again after the first fill: space the server freed meanwhile. */
        public long takenAgain() {
            return takenAgain;
        }

        @Override
        public void close() {
            running = false;
            thread.interrupt();
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The directory on the small filesystem as the server sees it. */
    public Path dir() {
        return dir;
    }

    /** Removes the filler. */
    public void free() throws IOException {
        Files.deleteIfExists(visible().resolve(FILLER));
    }

    @Override
    public void close() {
        if ("mount".equals(how)) {
            run(List.of("umount", "-l", dir.toString()));
        }
    }

    @Override
    public String toString() {
        return unavailable != null ? "no small disk: " + unavailable
                : "tmpfs of " + megabytes + " MiB on " + dir + " (" + how + ")";
    }

    /** Runs a command; null when it succeeded, else what it said. */
    private static String run(List<String> cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return String.join(" ", cmd) + " did not end";
            }
            String out = new String(p.getInputStream().readAllBytes()).trim();
            return p.exitValue() == 0 ? null : "exit " + p.exitValue() + ": " + out;
        } catch (IOException e) {
            return e.toString();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
