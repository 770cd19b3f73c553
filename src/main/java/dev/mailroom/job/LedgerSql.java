package dev.mailroom.job;

import jakarta.persistence.EntityManager;
import jakarta.persistence.Query;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** What the ledger's parts share to talk to the database: native statements on named tables, times in UTC. */
final class LedgerSql {

    /** Hibernate's hint naming a native statement's tables ({@code HibernateHints.HINT_NATIVE_SPACES}). */
    static final String NATIVE_SPACES = "org.hibernate.query.native.spaces";

    private LedgerSql() {
    }

    /**
     * A native statement that reads or writes only {@code tables}. Before a native statement Hibernate flushes the
     * whole persistence context unless it is told which tables the statement touches
     * ({@code org.hibernate.query.native.spaces}); told, it flushes only what is pending for those. The admission's
     * claim and suppression read then no longer write the job row and its recipients early, so the job row is
     * updated once per admission, not twice (bench/README.md, "Where a job's CPU goes").
     */
    static Query onTables(EntityManager em, String sql, String... tables) {
        return em.createNativeQuery(sql).setHint(NATIVE_SPACES, tables);
    }

    static OffsetDateTime utc(Instant i) {
        return i == null ? null : i.atOffset(ZoneOffset.UTC);
    }

    /** A timestamp column as read by a native query, whichever type the driver gave it. */
    static Instant instant(Object value) {
        if (value instanceof Instant i) {
            return i;
        }
        if (value instanceof OffsetDateTime o) {
            return o.toInstant();
        }
        if (value instanceof java.sql.Timestamp t) {
            return t.toInstant();
        }
        return null;
    }
}
