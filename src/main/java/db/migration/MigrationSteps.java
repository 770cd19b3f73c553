package db.migration;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/**
 * What the Java migrations of the dead-letter counts (V18, V19) and the job search (V13) share: whether the
 * database is PostgreSQL, a per-bucket tier of the group counts (its table and its back-fill from the rows), a tier
 * of {@code dead_letter_arrival} back-filled from the rows, and a table laid out in key order with room for in-page
 * updates. The statements are exactly those the migrations ran before they shared them (a migration already
 * applied must not behave differently when it runs on another database). Not a migration: Flyway runs only
 * classes that implement its {@code JavaMigration}.
 */
final class MigrationSteps {

    private MigrationSteps() {
    }

    /** Whether the migration runs on PostgreSQL (else H2 in PostgreSQL mode). */
    static boolean postgres(Connection c) throws SQLException {
        return c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT).contains("postgres");
    }

    /** Statements run on PostgreSQL only. */
    @FunctionalInterface
    interface OnPostgres {
        void run(Statement s) throws SQLException;
    }

    /**
     * A tier of the dead-letter counts: the group counts per {@code groupSeconds} in {@code groupTable}
     * ({@link #groupTier}), the arrivals per {@code arrivalSeconds} ({@link #arrivalTier}), then, on PostgreSQL
     * only, {@code onPostgres} (laying tables out in key order, analysing them).
     */
    static void countTier(Connection c, String groupTable, int groupSeconds, int arrivalSeconds, OnPostgres onPostgres)
            throws SQLException {
        try (Statement s = c.createStatement()) {
            groupTier(s, groupTable, groupSeconds);
            arrivalTier(s, arrivalSeconds);
            if (postgres(c)) {
                onPostgres.run(s);
            }
        }
    }

    /**
     * A table of group counts per bucket of {@code failed_at} (as {@code dead_letter_group_count}'s, keyed by the
     * bucket too), and its back-fill: bucket = floor(epoch seconds / {@code seconds}); null key columns stored as
     * '' (as V8's).
     */
    static void groupTier(Statement s, String table, int seconds) throws SQLException {
        s.execute("""
                create table %1$s (
                    bucket            bigint        not null,
                    status            varchar(20)   not null,
                    source_queue      varchar(200)  not null,
                    reason            varchar(60)   not null,
                    failure_class     varchar(40)   not null,
                    error_type        varchar(300)  not null,
                    error_fingerprint varchar(1000) not null,
                    consumer_version  varchar(100)  not null,
                    dead_letters      bigint        not null,
                    first_failed_at   timestamp with time zone,
                    last_failed_at    timestamp with time zone,
                    constraint pk_%1$s primary key (bucket, status, source_queue, reason,
                        failure_class, error_type, error_fingerprint, consumer_version)
                )""".formatted(table));
        s.execute("""
                insert into %1$s (bucket, status, source_queue, reason, failure_class, error_type,
                    error_fingerprint, consumer_version, dead_letters, first_failed_at, last_failed_at)
                select b, status, source_queue, reason, failure_class, et, fp, cv, count(*), min(failed_at),
                    max(failed_at)
                from (select cast(floor(extract(epoch from failed_at) / %2$d) as bigint) as b, status, source_queue,
                             reason, failure_class, coalesce(error_type, '') as et,
                             coalesce(error_fingerprint, '') as fp, coalesce(consumer_version, '') as cv, failed_at
                      from dead_letter) x
                group by b, status, source_queue, reason, failure_class, et, fp, cv""".formatted(table, seconds));
    }

    /** A tier of {@code dead_letter_arrival} ({@code bucket_seconds = seconds}) back-filled from the rows. */
    static void arrivalTier(Statement s, int seconds) throws SQLException {
        s.execute("""
                insert into dead_letter_arrival (bucket_seconds, bucket, source_queue, reason, arrived)
                select %1$d, b, source_queue, reason, count(*)
                from (select cast(floor(extract(epoch from failed_at) / %1$d) as bigint) as b, source_queue, reason
                      from dead_letter) x
                group by b, source_queue, reason""".formatted(seconds));
    }

    /**
     * PostgreSQL only: the table rewritten in the order of its primary key {@code pk_<table>} with 30 % of each page
     * free ({@code fillfactor}, {@code cluster}), so a range of its key reads few pages and an update of a count
     * stays on its page; then analysed.
     */
    static void inKeyOrder(Statement s, String table) throws SQLException {
        s.execute("alter table " + table + " set (fillfactor = 70)");
        s.execute("cluster " + table + " using pk_" + table);
        s.execute("analyze " + table);
    }
}
