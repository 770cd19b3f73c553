package db.migration;

import dev.mailroom.deadletter.ErrorFingerprint;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * Dead-letter queries that stay fast at a million rows (see bench/README.md):
 * <ul>
 *   <li>{@code error_fingerprint}: the normalised error a group is made of, written with the dead letter
 *       from now on; this migration backfills the rows written before with the very same Java function
 *       ({@link ErrorFingerprint#of}). A Java migration because the rules are Java regular expressions,
 *       which neither H2's nor PostgreSQL's regexp_replace reproduces exactly.</li>
 *   <li>indexes for what the API filters and sorts on: each list filter with the list's order
 *       ({@code failed_at desc, id desc}), so a page reads only its own rows; a covering one for the groups
 *       of a status (an index-only GROUP BY); {@code failed_at} for the arrivals.</li>
 * </ul>
 * Plain SQL that H2 (MODE=PostgreSQL) and PostgreSQL both accept.
 */
public class V7__dead_letter_fingerprint_and_query_indexes extends BaseJavaMigration {

    private static final int BATCH = 1000;

    @Override
    public void migrate(Context context) throws SQLException {
        Connection c = context.getConnection();
        try (Statement s = c.createStatement()) {
            s.execute("alter table dead_letter add column error_fingerprint varchar(" + ErrorFingerprint.MAX_LENGTH + ")");
        }
        backfill(c);
        try (Statement s = c.createStatement()) {
            for (String column : new String[] {"source_queue", "reason", "failure_class", "error_type", "campaign_id",
                    "tenant", "provider", "consumer_version", "message_id"}) {
                s.execute("create index ix_dead_letter_list_" + column + " on dead_letter (" + column
                        + ", failed_at, id)");
            }
            s.execute("create index ix_dead_letter_list_failed_at on dead_letter (failed_at, id)");
            s.execute("create index ix_dead_letter_groups on dead_letter "
                    + "(status, source_queue, reason, error_type, error_fingerprint, failed_at)");
        }
    }

    private static void backfill(Connection c) throws SQLException {
        try (Statement read = c.createStatement();
             PreparedStatement write = c.prepareStatement("update dead_letter set error_fingerprint = ? where id = ?")) {
            read.setFetchSize(BATCH);
            int pending = 0;
            try (ResultSet rows = read.executeQuery("select id, error from dead_letter where error is not null")) {
                while (rows.next()) {
                    write.setString(1, ErrorFingerprint.of(rows.getString(2)));
                    write.setLong(2, rows.getLong(1));
                    write.addBatch();
                    if (++pending == BATCH) {
                        write.executeBatch();
                        pending = 0;
                    }
                }
            }
            if (pending > 0) {
                write.executeBatch();
            }
        }
    }
}
