package dev.mailroom.reconcile;

import dev.mailroom.testsupport.ComponentDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link ReconcileBatchComponentTest} again on a real PostgreSQL (the IT harness's): the batch's IN-list
 * matches, its {@code for update} of the finished jobs in id order and the suppression list's
 * {@code on conflict do nothing} behave there as on H2.
 */
class ReconcileBatchPostgresComponentTest extends ReconcileBatchComponentTest {

    @BeforeAll
    static void database() {
        db = ComponentDatabase.onPostgres("reconcile-component", ENTITIES);
    }

    @AfterAll
    static void close() {
        db.close();
    }
}
