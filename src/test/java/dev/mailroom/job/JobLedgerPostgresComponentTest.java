package dev.mailroom.job;

import dev.mailroom.testsupport.ComponentDatabase;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link JobLedgerComponentTest} again on a real PostgreSQL (the IT harness's, started in a few seconds):
 * the claim's row lock and {@code on conflict do nothing} behave there as on H2.
 */
class JobLedgerPostgresComponentTest extends JobLedgerComponentTest {

    @BeforeAll
    static void database() {
        db = ComponentDatabase.onPostgres("ledger-component", ENTITIES);
        blockedSessions = ComponentDatabase.POSTGRES_LOCK_WAITS;
    }
}
