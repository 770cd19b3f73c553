package dev.mailroom.deadletter;

import dev.mailroom.testsupport.ComponentDatabase;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link DeadLetterCountsComponentTest} again on a real PostgreSQL (the IT harness's): the counts'
 * {@code on conflict do nothing}, row locks and the first/last read again after a removal behave there
 * as on H2.
 */
class DeadLetterCountsPostgresComponentTest extends DeadLetterCountsComponentTest {

    @BeforeAll
    static void database() {
        db = ComponentDatabase.onPostgres("dead-letter-counts-component", ENTITIES);
        blockedSessions = ComponentDatabase.POSTGRES_LOCK_WAITS;
    }
}
