package db.migration;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * Job search that stays fast at a million jobs ({@code GET /api/v1/jobs}, see bench/README.md "Job search"):
 * <ul>
 *   <li>{@code job_recipient.domain}: the part of the normalised address after its {@code @}, a column the
 *       database computes itself (so nothing that writes recipients has to know it), indexed with
 *       {@code job_id} like the address, so "every job to @example.com, newest first" is an index range read
 *       backwards. A Java migration because PostgreSQL needs {@code stored} generated columns and H2 refuses
 *       the word.</li>
 *   <li>each exact filter of the search with the search's order ({@code id desc}), so a page reads only its
 *       own rows: idempotency key, campaign, tenant, state. {@code message_id} is indexed since V1.</li>
 * </ul>
 */
public class V13__job_search_indexes extends BaseJavaMigration {

    @Override
    public void migrate(Context context) throws SQLException {
        Connection c = context.getConnection();
        boolean postgres = MigrationSteps.postgres(c);
        try (Statement s = c.createStatement()) {
            s.execute("alter table job_recipient add column domain varchar(320) generated always as "
                    + "(substring(address from position('@' in address) + 1))" + (postgres ? " stored" : ""));
            s.execute("create index ix_job_recipient_domain on job_recipient (domain, job_id)");
            for (String column : new String[] {"idempotency_key", "campaign_id", "tenant", "state"}) {
                s.execute("create index ix_mail_job_search_" + column + " on mail_job (" + column + ", id)");
            }
        }
    }
}
