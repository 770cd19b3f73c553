package dev.mailroom.reconcile;

import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.PostgresServer;
import dev.mailroom.testsupport.ComponentDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link ReconcileBatchComponentTest} again on a real PostgreSQL (the IT harness's): the batch's IN-list
 * matches, its {@code for update} of the finished jobs in id order and the suppression list's
 * {@code on conflict do nothing} behave there as on H2.
 */
class ReconcileBatchPostgresComponentTest extends ReconcileBatchComponentTest {

    private static PostgresServer postgres;

    @BeforeAll
    static void database() {
        postgres = PostgresServer.start(ItEnvironment.workDir().resolve("reconcile-component"));
        db = ComponentDatabase.postgres(postgres.jdbcUrl(), postgres.user(), postgres.password(), ENTITIES);
    }

    @AfterAll
    static void close() {
        db.close();
        postgres.close();
    }
}
