package db.migration;

import java.sql.SQLException;
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
        MigrationSteps.countTier(context.getConnection(), "dead_letter_group_day", 86400, 86400, s -> {
            MigrationSteps.inKeyOrder(s, "dead_letter_group_day");
            s.execute("analyze dead_letter_arrival");
        });
    }
}
