package dev.mailroom.job;

import dev.mailroom.testsupport.ComponentDatabase;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link RetentionBatchComponentTest} again on a real PostgreSQL (the IT harness's, started in a few seconds): the
 * batch's locking read, its deletes by id list and the bounded deletes of claims and webhook calls run there as on H2.
 */
class RetentionBatchPostgresComponentTest extends RetentionBatchComponentTest {

    @BeforeAll
    static void database() {
        db = ComponentDatabase.onPostgres("retention-component", ENTITIES);
    }
}
