package dev.mailroom.job;

import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.PostgresServer;
import dev.mailroom.testsupport.ComponentDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link JobLedgerComponentTest} again on a real PostgreSQL (the IT harness's, started in a few seconds):
 * the claim's row lock and {@code on conflict do nothing} behave there as on H2.
 */
class JobLedgerPostgresComponentTest extends JobLedgerComponentTest {

    private static PostgresServer postgres;

    @BeforeAll
    static void database() {
        postgres = PostgresServer.start(ItEnvironment.workDir().resolve("ledger-component"));
        db = ComponentDatabase.postgres(postgres.jdbcUrl(), postgres.user(), postgres.password(), ENTITIES);
        blockedSessions = "select count(*) from pg_stat_activity where wait_event_type = 'Lock'";
    }

    @AfterAll
    static void close() {
        db.close();
        postgres.close();
    }
}
