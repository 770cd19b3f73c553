package dev.mailroom.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mailroom.testsupport.ComponentDatabase;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link RetentionBatchComponentTest} again on a real PostgreSQL (the IT harness's, started in a few seconds): the
 * batch's locking read, its deletes by id list and the bounded deletes of claims and webhook calls run there as on H2.
 */
class RetentionBatchPostgresComponentTest extends RetentionBatchComponentTest {

    @BeforeAll
    static void database() {
        db = ComponentDatabase.onPostgres("retention-component", ENTITIES);
    }

    /**
     * Every node reads the oldest finished job's age at every retention tick: with thousands of finished jobs it reads
     * one index entry per removable state, not every finished job's (bench/README.md, "History").
     */
    @Test
    void theOldestFinishedJobIsFoundByOneIndexProbePerStateNotByReadingEveryFinishedJob() throws Exception {
        db.run(em -> em.createNativeQuery("""
                insert into mail_job (queue, message_id, idempotency_key, state, received_at, updated_at)
                select 'mail.send', 'probe-' || g, 'probe-' || g, 'delivered', timestamp '3000-01-01 00:00:00' + g * interval '1 second',
                       timestamp '3000-01-01 00:00:00' + g * interval '1 second' from generate_series(1, 5000) g""").executeUpdate());
        try {
            db.run(em -> em.createNativeQuery("analyze mail_job").executeUpdate());
            String plan = db.inTransaction(em -> (String) em.createNativeQuery("explain (analyze, format json) "
                    + RetentionBatch.OLDEST_FINISHED).getSingleResult().toString());
            List<Long> rowsPerScan = new ArrayList<>();
            scans(new ObjectMapper().readTree(plan).get(0).get("Plan"), rowsPerScan);
            assertThat(rowsPerScan).as("rows each scan of the plan read: %s", plan).isNotEmpty()
                    .allSatisfy(rows -> assertThat(rows).isLessThanOrEqualTo(1L));
        } finally {
            db.run(em -> em.createNativeQuery("delete from mail_job where message_id like 'probe-%'").executeUpdate());
        }
    }

    private static void scans(JsonNode node, List<Long> rows) {
        if (node.path("Node Type").asText().contains("Scan")) {
            rows.add(node.path("Actual Rows").asLong() * Math.max(1, node.path("Actual Loops").asLong()));
        }
        for (JsonNode child : node.path("Plans")) {
            scans(child, rows);
        }
    }
}
