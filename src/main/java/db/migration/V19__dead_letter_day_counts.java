package db.migration;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * Daily tiers of the dead-letter counts, for the windows of days V18's hourly ones left slow at a million rows
 * (bench/README.md, "Dead-letter queries": the groups of a 7-day window read ~70,000 hourly rows, 295 ms inside
 * PostgreSQL); kept on write by {@code DeadLetterCounts.apply} like V8's and V18's, back-filled here from the rows:
 * <ul>
 *   <li>{@code dead_letter_group_day}: the group counts again per day of {@code failed_at} (UTC days since the
 *       epoch), so the groups of a window read its whole days from here, the hours at its ends from the hourly
 *       counts and only its ragged first and last hour from the rows;</li>
 *   <li>a daily tier of {@code dead_letter_arrival} ({@code bucket_seconds = 86400}): a month per day reads 30
 *       buckets per (queue, reason) instead of 720 hour rows.</li>
 * </ul>
 * A Java migration for the same reason as V18: on PostgreSQL the new table is laid out in key order with room for
 * in-page updates ({@code fillfactor}, {@code cluster}); the rest is the same on H2.
 */
public class V19__dead_letter_day_counts extends BaseJavaMigration {

    @Override
    public void migrate(Context context) throws SQLException {
        Connection c = context.getConnection();
        boolean postgres = c.getMetaData().getDatabaseProductName().toLowerCase(java.util.Locale.ROOT)
                .contains("postgres");
        try (Statement s = c.createStatement()) {
            s.execute("""
                    create table dead_letter_group_day (
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
                        constraint pk_dead_letter_group_day primary key (bucket, status, source_queue, reason,
                            failure_class, error_type, error_fingerprint, consumer_version)
                    )""");
            // bucket = floor(epoch seconds / 86400); null key columns stored as '' (as V8's and V18's)
            s.execute("""
                    insert into dead_letter_group_day (bucket, status, source_queue, reason, failure_class, error_type,
                        error_fingerprint, consumer_version, dead_letters, first_failed_at, last_failed_at)
                    select b, status, source_queue, reason, failure_class, et, fp, cv, count(*), min(failed_at),
                        max(failed_at)
                    from (select cast(floor(extract(epoch from failed_at) / 86400) as bigint) as b, status, source_queue,
                                 reason, failure_class, coalesce(error_type, '') as et,
                                 coalesce(error_fingerprint, '') as fp, coalesce(consumer_version, '') as cv, failed_at
                          from dead_letter) x
                    group by b, status, source_queue, reason, failure_class, et, fp, cv""");
            s.execute("""
                    insert into dead_letter_arrival (bucket_seconds, bucket, source_queue, reason, arrived)
                    select 86400, b, source_queue, reason, count(*)
                    from (select cast(floor(extract(epoch from failed_at) / 86400) as bigint) as b, source_queue, reason
                          from dead_letter) x
                    group by b, source_queue, reason""");
            if (postgres) {
                s.execute("alter table dead_letter_group_day set (fillfactor = 70)");
                s.execute("cluster dead_letter_group_day using pk_dead_letter_group_day");
                s.execute("analyze dead_letter_group_day");
                s.execute("analyze dead_letter_arrival");
            }
        }
    }
}
