package dev.mailroom.platform.lease;

import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.PostgresServer;
import dev.mailroom.testsupport.ComponentDatabase;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link LeaseTableComponentTest} again on a real PostgreSQL: the conditional update behaves there as on H2. */
class LeaseTablePostgresComponentTest extends LeaseTableComponentTest {

    private static PostgresServer postgres;

    @BeforeAll
    static void database() {
        postgres = PostgresServer.start(ItEnvironment.workDir().resolve("lease-component"));
        db = ComponentDatabase.postgres(postgres.jdbcUrl(), postgres.user(), postgres.password(), List.of());
        blockedSessions = "select count(*) from pg_stat_activity where wait_event_type = 'Lock'";
    }

    @AfterAll
    static void close() {
        db.close();
        postgres.close();
    }
}
