package db.migration;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.logging.Logger;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * The console's list matches campaign, tenant and recipient as case-insensitive substrings
 * ({@code lower(campaign_id) like '%…%'}), which no B-tree serves. On PostgreSQL a trigram GIN index does
 * ({@code pg_trgm}, shipped with Debian's postgresql package, a trusted extension since PostgreSQL 13, so the
 * database's owner may create it): one per matched expression. Where the extension is missing or may not be
 * created the indexes are left out and the filters still work, by a scan; H2 has no trigram index and
 * needs none at its sizes. A Java migration because H2 and PostgreSQL need different statements.
 */
public class V16__substring_search_indexes extends BaseJavaMigration {

    private static final Logger LOG = Logger.getLogger(V16__substring_search_indexes.class.getName());

    @Override
    public void migrate(Context context) throws SQLException {
        Connection c = context.getConnection();
        if (!c.getMetaData().getDatabaseProductName().toLowerCase().contains("postgresql")) {
            return;
        }
        try (Statement s = c.createStatement()) {
            try (ResultSet available = s.executeQuery("select 1 from pg_available_extensions where name = 'pg_trgm'")) {
                if (!available.next()) {
                    LOG.warning("pg_trgm is not installed: campaign, tenant and recipient substring filters scan");
                    return;
                }
            }
            Savepoint before = c.setSavepoint();
            try {
                s.execute("create extension if not exists pg_trgm");
            } catch (SQLException e) {
                c.rollback(before);
                LOG.warning("pg_trgm may not be created here (" + e.getMessage()
                        + "): campaign, tenant and recipient substring filters scan");
                return;
            }
            s.execute("create index ix_dead_letter_campaign_trgm on dead_letter using gin (lower(campaign_id) gin_trgm_ops)");
            s.execute("create index ix_dead_letter_tenant_trgm on dead_letter using gin (lower(tenant) gin_trgm_ops)");
            s.execute("create index ix_job_recipient_address_trgm on job_recipient using gin (address gin_trgm_ops)");
        }
    }
}
