package dev.mailroom.deadletter;

import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.PostgresServer;
import dev.mailroom.testsupport.ComponentDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link DeadLetterCountsComponentTest} again on a real PostgreSQL (the IT harness's): the counts'
 * {@code on conflict do nothing}, row locks and the first/last read again after a removal behave there
 * as on H2.
 */
class DeadLetterCountsPostgresComponentTest extends DeadLetterCountsComponentTest {

    private static PostgresServer postgres;

    @BeforeAll
    static void database() {
        postgres = PostgresServer.start(ItEnvironment.workDir().resolve("dead-letter-counts-component"));
        db = ComponentDatabase.postgres(postgres.jdbcUrl(), postgres.user(), postgres.password(), ENTITIES);
        blockedSessions = "select count(*) from pg_stat_activity where wait_event_type = 'Lock'";
    }

    @AfterAll
    static void close() {
        db.close();
        postgres.close();
    }
}
