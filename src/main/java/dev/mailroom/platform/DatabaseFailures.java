package dev.mailroom.platform;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * What a database exception means, read from its causes. Pure.
 * <ul>
 *   <li>{@link #isConnectionFailure}: the database cannot be reached (as opposed to a bug or a constraint): a
 *       connection-kind JDBC failure (SQLState class {@code 08}, a transient or non-transient connection
 *       exception, Hibernate's {@code JDBCConnectionException}) or the connection pool's "unable to get a
 *       managed connection".</li>
 *   <li>{@link #isDeadlockVictim}: the database chose this transaction as a deadlock's victim (or refused it as
 *       a serialization failure) and rolled it back: SQLState {@code 40001} (H2, the standard) or {@code 40P01}
 *       (PostgreSQL). Such a transaction did nothing and may simply run again ({@link #rerunDeadlockVictims}).</li>
 *   <li>{@link #outOfSpace}: the database answers but refuses the write for want of disk space: SQLState
 *       {@code 53100} ({@code disk_full}: PostgreSQL's "could not extend file ...: No space left on device") or H2's
 *       {@code 90100} ("No disk space available"); it says which of the database's disks, where the message tells.
 *       Like an outage it hits every job alike, so it must stop the line, never use up a job's attempts.</li>
 * </ul>
 */
public final class DatabaseFailures {

    private DatabaseFailures() {
    }

    public static boolean isConnectionFailure(Throwable t) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable c = t; c != null && seen.put(c, Boolean.TRUE) == null; c = c.getCause()) {
            if (c instanceof SQLTransientConnectionException || c instanceof SQLNonTransientConnectionException) {
                return true;
            }
            if (c instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("08")) {
                return true;
            }
            String type = c.getClass().getName();
            if (type.equals("org.hibernate.exception.JDBCConnectionException")) {
                return true;
            }
            String message = String.valueOf(c.getMessage());
            // IronJacamar: the pool could not create or hand out a connection (IJ000453, IJ031084)
            if (message.contains("IJ000453") || message.contains("IJ031084")
                    || message.contains("Unable to get managed connection")) {
                return true;
            }
            if (c instanceof SQLException sql) {
                for (Throwable next = sql.getNextException(); next != null && seen.put(next, Boolean.TRUE) == null;
                     next = next instanceof SQLException s ? s.getNextException() : null) {
                    if (isConnectionFailure(next)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** The database's disk that refused the write ({@link #fullDisk}), when {@code t} is such a refusal. */
    public static java.util.Optional<String> outOfSpace(Throwable t) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable c = t; c != null && seen.put(c, Boolean.TRUE) == null; c = c.getCause()) {
            if (c instanceof SQLException sql) {
                for (SQLException e = sql; e != null; e = e.getNextException()) {
                    if ("53100".equals(e.getSQLState()) || "90100".equals(e.getSQLState())) {
                        return java.util.Optional.of(fullDisk(e.getSQLState(), String.valueOf(e.getMessage())));
                    }
                    if (e.getNextException() != null && seen.put(e.getNextException(), Boolean.TRUE) != null) {
                        break; // a chain that loops
                    }
                }
            }
        }
        return java.util.Optional.empty();
    }

    /**
     * Which disk a refusal names, from the file in its message (PostgreSQL names it relative to its data directory):
     * the WAL's ({@code pg_wal/}), temporary files' ({@code pgsql_tmp}), a tablespace's ({@code pg_tblspc/}) or the
     * data directory's; the file's path is not repeated (an answer names no server internals).
     */
    static String fullDisk(String sqlState, String message) {
        String disk;
        if ("90100".equals(sqlState)) {
            disk = "the disk of its database file";
        } else if (message.contains("pg_wal/")) {
            disk = "the disk of its WAL (pg_wal)";
        } else if (message.contains("pgsql_tmp")) {
            disk = "the disk of its temporary files (pgsql_tmp)";
        } else if (message.contains("pg_tblspc/")) {
            disk = "the disk of a tablespace (pg_tblspc)";
        } else if (message.contains("\"base/") || message.contains("\"global/")) {
            disk = "the disk of its data directory (table files)";
        } else {
            disk = "its disk";
        }
        return disk + " is full (SQLSTATE " + sqlState + ")";
    }

    public static boolean isDeadlockVictim(Throwable t) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable c = t; c != null && seen.put(c, Boolean.TRUE) == null; c = c.getCause()) {
            if (c instanceof SQLException sql && ("40001".equals(sql.getSQLState()) || "40P01".equals(sql.getSQLState()))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Runs {@code transaction} (a whole transaction of its own, e.g. a {@code REQUIRES_NEW} step) and runs it
     * again, up to {@code attempts} times in all, while the database picks it as a deadlock's victim: such a
     * run did nothing, and the next one sees what the winner committed. Anything else, and the last victim,
     * is thrown as it came.
     */
    public static void rerunDeadlockVictims(int attempts, Runnable transaction) {
        rerun(attempts, java.time.Duration.ZERO, DatabaseFailures::isDeadlockVictim, transaction);
    }

    /**
     * Runs {@code transaction} (a whole transaction of its own) and, after {@code pause}, again, up to
     * {@code attempts} times in all, while it fails as {@code didNothing} says a rolled-back run of it fails. Anything
     * else, and the last failure, is thrown as it came.
     */
    public static void rerun(int attempts, java.time.Duration pause, java.util.function.Predicate<RuntimeException> didNothing,
                             Runnable transaction) {
        for (int attempt = 1; ; attempt++) {
            try {
                transaction.run();
                return;
            } catch (RuntimeException e) {
                if (attempt >= attempts || !didNothing.test(e)) {
                    throw e;
                }
            }
            if (!pause.isZero()) {
                try {
                    Thread.sleep(pause.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted between two runs of a transaction", e);
                }
            }
        }
    }
}
