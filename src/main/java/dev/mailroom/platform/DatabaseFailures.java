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
