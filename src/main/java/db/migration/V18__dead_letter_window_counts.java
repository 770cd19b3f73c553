package db.migration;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * Counts for the two dead-letter questions V8's counts left slow at a million rows (bench/README.md,
 * "Dead-letter queries"), kept on write by {@code DeadLetterCounts.apply} like V8's and back-filled here from
 * the rows:
 * <ul>
 *   <li>{@code dead_letter_group_hour}: the group counts of {@code dead_letter_group_count} again per hour of
 *       {@code failed_at}, so the groups of a time window read the window's whole hours instead of grouping
 *       every dead letter in it (33,000 rows for a day of the bench's data).</li>
 *   <li>a 15-minute tier of {@code dead_letter_arrival} ({@code bucket_seconds = 900}): a day's chart per 15
 *       minutes (or 30, 45) reads 96 buckets per (queue, reason) instead of 1,440 minute rows.</li>
 * </ul>
 * On PostgreSQL both tables are then laid out in key order with room for in-page updates ({@code fillfactor},
 * {@code cluster}): V8's back-fill wrote the minute rows in hash order, so a day's 15,000 of them sat on as
 * many pages. A Java migration because only PostgreSQL has those statements; the rest is the same on H2.
 */
public class V18__dead_letter_window_counts extends BaseJavaMigration {

    @Override
    public void migrate(Context context) throws SQLException {
        Connection c = context.getConnection();
        boolean postgres = c.getMetaData().getDatabaseProductName().toLowerCase(java.util.Locale.ROOT)
                .contains("postgres");
        try (Statement s = c.createStatement()) {
            s.execute("""
                    create table dead_letter_group_hour (
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
                        constraint pk_dead_letter_group_hour primary key (bucket, status, source_queue, reason,
                            failure_class, error_type, error_fingerprint, consumer_version)
                    )""");
            // bucket = floor(epoch seconds / 3600), as dead_letter_arrival's; null key columns stored as ''
            s.execute("""
                    insert into dead_letter_group_hour (bucket, status, source_queue, reason, failure_class, error_type,
                        error_fingerprint, consumer_version, dead_letters, first_failed_at, last_failed_at)
                    select b, status, source_queue, reason, failure_class, et, fp, cv, count(*), min(failed_at),
                        max(failed_at)
                    from (select cast(floor(extract(epoch from failed_at) / 3600) as bigint) as b, status, source_queue,
                                 reason, failure_class, coalesce(error_type, '') as et,
                                 coalesce(error_fingerprint, '') as fp, coalesce(consumer_version, '') as cv, failed_at
                          from dead_letter) x
                    group by b, status, source_queue, reason, failure_class, et, fp, cv""");
            s.execute("""
                    insert into dead_letter_arrival (bucket_seconds, bucket, source_queue, reason, arrived)
                    select 900, b, source_queue, reason, count(*)
                    from (select cast(floor(extract(epoch from failed_at) / 900) as bigint) as b, source_queue, reason
                          from dead_letter) x
                    group by b, source_queue, reason""");
            if (postgres) {
                for (String table : new String[] {"dead_letter_arrival", "dead_letter_group_hour"}) {
                    s.execute("alter table " + table + " set (fillfactor = 70)");
                    s.execute("cluster " + table + " using pk_" + table);
                    s.execute("analyze " + table);
                }
            }
        }
    }
}
