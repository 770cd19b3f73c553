package dev.mailroom.platform.lease;

import dev.mailroom.testsupport.ComponentDatabase;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;

/** {@link LeaseTableComponentTest} again on a real PostgreSQL: the conditional update behaves there as on H2. */
class LeaseTablePostgresComponentTest extends LeaseTableComponentTest {

    @BeforeAll
    static void database() {
        db = ComponentDatabase.onPostgres("lease-component", List.of());
        blockedSessions = ComponentDatabase.POSTGRES_LOCK_WAITS;
    }
}
