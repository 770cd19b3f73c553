package dev.mailroom.erasure;

import dev.mailroom.testsupport.ComponentDatabase;
import org.junit.jupiter.api.BeforeAll;

/** {@link ErasureBatchComponentTest} again on a real PostgreSQL (the IT harness's): the same batches, the same search. */
class ErasureBatchPostgresComponentTest extends ErasureBatchComponentTest {

    @BeforeAll
    static void database() {
        db = ComponentDatabase.onPostgres("erasure-component", ENTITIES);
    }
}
