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
 *       (PostgreSQL). Such a transaction did nothing and may simply run again.</li>
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
}
