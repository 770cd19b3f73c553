package dev.mailroom.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mailroom.reconcile.DeliveryWatch;
import dev.mailroom.testsupport.ComponentDatabase;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reads every node makes every minute or so, on a PostgreSQL holding thousands of finished jobs: each reads
 * what it needs, not every job of the history (bench/README.md, "History", where the same reads were measured at a
 * million jobs). Each asserts on the plan PostgreSQL executed ({@code explain (analyze)}): the rows each scan read.
 */
class HistoryQueriesPostgresComponentTest {

    private static final int JOBS = 5000;
    private static ComponentDatabase db;

    @BeforeAll
    static void database() {
        db = ComponentDatabase.onPostgres("history-queries", JobLedgerComponentTest.ENTITIES);
        // jobs sent and finished over the last months, none in the last day
        db.run(em -> em.createNativeQuery("""
                insert into mail_job (queue, message_id, idempotency_key, state, received_at, updated_at, sent_at)
                select 'mail.send', 'history-' || g, 'history-' || g, 'delivered', now() - g * interval '30 minutes',
                       now() - g * interval '30 minutes', now() - g * interval '30 minutes'
                from generate_series(50, 50 + """ + JOBS + ") g").executeUpdate());
        // as many sent long ago whose provider sends no webhooks: still sent_to_provider, reported silent already
        db.run(em -> em.createNativeQuery("""
                insert into mail_job (queue, message_id, idempotency_key, state, received_at, updated_at, sent_at)
                select 'mail.send', 'silent-' || g, 'silent-' || g, 'sent_to_provider', now() - g * interval '30 minutes',
                       now() - g * interval '30 minutes', now() - g * interval '30 minutes'
                from generate_series(50, 50 + """ + JOBS + ") g").executeUpdate());
        db.run(em -> em.createNativeQuery("""
                insert into job_event (job_id, at, type, detail, actor)
                select id, now(), 'delivery_silent', 'no event', 'system' from mail_job where state = 'sent_to_provider'
                """).executeUpdate());
        // and a few sent three hours ago, due for the watch's look
        db.run(em -> em.createNativeQuery("""
                insert into mail_job (queue, message_id, idempotency_key, state, received_at, updated_at, sent_at,
                                      silence_check_at)
                select 'mail.send', 'due-' || g, 'due-' || g, 'sent_to_provider', now() - interval '3 hours',
                       now() - interval '3 hours', now() - interval '3 hours', now() - interval '3 hours'
                from generate_series(1, 20) g""").executeUpdate());
        db.run(em -> em.createNativeQuery("analyze mail_job").executeUpdate());
        db.run(em -> em.createNativeQuery("analyze job_event").executeUpdate());
    }

    @AfterAll
    static void close() {
        db.close();
    }

    /** Retention's gauge of the oldest finished job (every tick, every node): one index probe per removable state. */
    @Test
    void theOldestFinishedJobIsFoundByOneIndexProbePerState() throws Exception {
        assertThat(rowsReadPerScan(RetentionBatch.OLDEST_FINISHED)).allSatisfy(rows -> assertThat(rows)
                .isLessThanOrEqualTo(1L));
    }

    /**
     * The delivery watch's bounce and complaint rates over the last day ({@code reconcile.DeliveryWatch#rates}, its
     * query in SQL): the jobs sent in that day, found by {@code ix_mail_job_sent_at}, none of the older ones.
     */
    @Test
    void theDeliveryRatesReadOnlyTheJobsSentInTheirWindow() throws Exception {
        assertThat(rowsReadPerScan("""
                select j.queue, j.tenant, count(r.job_id), sum(case when r.delivery_state = 'bounced' then 1 else 0 end)
                from job_recipient r, mail_job j where r.job_id = j.id and j.sent_at >= now() - interval '24 hours'
                group by j.queue, j.tenant""")).allSatisfy(rows -> assertThat(rows).isLessThan(100L));
    }

    /**
     * The delivery watch's search for silent jobs ({@code reconcile.DeliveryWatch}, every minute): the jobs due for a
     * check, found by {@code ix_mail_job_silence_check}, none of the history's {@code sent_to_provider} jobs it
     * reported already. Its first statements, which close the due jobs a provider event reached, read the same.
     */
    @Test
    void theSilentJobSearchReadsOnlyTheJobsDueNotTheOnesReportedAlready() throws Exception {
        String before = "now() - interval '2 hours'";
        assertThat(rowsReadPerScan(DeliveryWatch.DUE.replace("?1", before)))
                .allSatisfy(rows -> assertThat(rows).isLessThan(100L));
        for (String heard : DeliveryWatch.HEARD) {
            assertThat(rowsReadPerScan(heard.replace("?1", before))).allSatisfy(rows -> assertThat(rows).isLessThan(100L));
        }
    }

    private static List<Long> rowsReadPerScan(String sql) throws Exception {
        String plan = db.inTransaction(em -> em.createNativeQuery("explain (analyze, format json) " + sql)
                .getSingleResult().toString());
        List<Long> rows = new ArrayList<>();
        scans(new ObjectMapper().readTree(plan).get(0).get("Plan"), rows);
        assertThat(rows).as("the scans of %s", plan).isNotEmpty();
        return rows;
    }

    /** Rows each scan node returned (over all its loops), and for a filtered scan the rows its filter dropped too. */
    private static void scans(JsonNode node, List<Long> rows) {
        if (node.path("Node Type").asText().contains("Scan")) {
            long loops = Math.max(1, node.path("Actual Loops").asLong());
            rows.add((node.path("Actual Rows").asLong() + node.path("Rows Removed by Filter").asLong()) * loops);
        }
        for (JsonNode child : node.path("Plans")) {
            scans(child, rows);
        }
    }
}
