package dev.mailroom.platform;

import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Whether an exception means the database chose this transaction as a deadlock's victim (or refused it as a
 * serialization failure) and rolled it back: SQLState {@code 40001} (H2, the standard) or {@code 40P01}
 * (PostgreSQL) somewhere in its causes. Such a transaction did nothing and may simply run again. Pure.
 */
public final class Deadlocks {

    private Deadlocks() {
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
