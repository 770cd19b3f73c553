package db.migration;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * {@code ix_mail_job_state (state)} (V1) beside V13's {@code ix_mail_job_search_state (state, id)}: on H2 the two hold
 * the same entries (H2 ends every secondary index's key with the row's key, here {@code id}), so every query that
 * filters jobs by state is served as well by the second, and each of a job's three state changes wrote both: dropped.
 * On PostgreSQL it stays: there the single-column index is deduplicated (7 MB against 46-82 MB for
 * {@code (state, id)} at a million jobs) and reads a rare state 2-3 times faster (the delivery watch's
 * {@code sent_to_provider} once webhooks have moved most jobs on, a job search by state and tenant), so the longer
 * index does not serve those as well (bench/README.md, "Where a job's CPU goes"). A Java migration
 * because the two databases need different statements.
 */
public class V20__duplicate_state_index extends BaseJavaMigration {

    @Override
    public void migrate(Context context) throws SQLException {
        Connection c = context.getConnection();
        if (MigrationSteps.postgres(c)) {
            return;
        }
        try (Statement s = c.createStatement()) {
            s.execute("drop index ix_mail_job_state");
        }
    }
}
