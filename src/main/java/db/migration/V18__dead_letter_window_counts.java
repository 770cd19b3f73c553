package db.migration;

import java.sql.SQLException;
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
        MigrationSteps.countTier(context.getConnection(), "dead_letter_group_hour", 3600, 900, s -> {
            for (String table : new String[] {"dead_letter_arrival", "dead_letter_group_hour"}) {
                MigrationSteps.inKeyOrder(s, table);
            }
        });
    }
}
