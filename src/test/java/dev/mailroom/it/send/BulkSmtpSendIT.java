package dev.mailroom.it.send;

import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.testsupport.SmtpTestServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * 1,000 jobs from an external JMS client through the SMTP provider to a real SMTP server on loopback:
 * every one arrives exactly once, counted by Message-ID. Runs in the h2 and the postgres executions.
 */
@Tag("smtp")
class BulkSmtpSendIT {

    static final int JOBS = 1000;

    @Test
    void thousandJobsArriveEachExactlyOnce() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        SmtpTestServer smtp = env.smtp();
        String prefix = Jobs.runPrefix("bulk-" + env.profile());
        List<String> ids = Jobs.ids(prefix, JOBS);
        int before = smtp.receivedCount();

        long start = System.nanoTime();
        env.jms().sendAll("mail.send", Jobs.jobs(ids));
        assertThat(smtp.awaitReceived(before + JOBS, Duration.ofMinutes(5)))
                .as("SMTP server received %d of %d", smtp.receivedCount() - before, JOBS).isTrue();
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("[%s] %d jobs through SMTP in %.1f s (%.0f jobs/s)%n", env.profile(), JOBS, seconds,
                JOBS / seconds);

        Map<String, Integer> counts = smtp.countsByMessageId();
        Map<String, Integer> mine = new HashMap<>();
        for (String id : ids) {
            mine.put(id, counts.getOrDefault(Jobs.smtpMessageId(id), 0));
        }
        assertThat(mine.values()).as("deliveries per job").allMatch(n -> n == 1);

        // nothing more trickles in afterwards: a duplicate would need a redelivery, so once nothing is left on
        // the queues (ready, scheduled or in delivery) the counts are final
        Jobs.awaitSendQueuesDrained(env.api(), Duration.ofSeconds(60));
        Map<String, Integer> later = smtp.countsByMessageId();
        assertThat(ids).allMatch(id -> later.get(Jobs.smtpMessageId(id)) == 1);

        // Mailroom's own record agrees: every job sent_to_provider after exactly one attempt
        if (env.postgres() != null) {
            try (Connection c = env.postgres().connect();
                 PreparedStatement s = c.prepareStatement("""
                         select state, attempt_count, count(*) from mail_job where message_id like ?
                         group by state, attempt_count""")) {
                s.setString(1, prefix + "%");
                try (ResultSet r = s.executeQuery()) {
                    assertThat(r.next()).isTrue();
                    assertThat(r.getString(1)).isEqualTo("sent_to_provider");
                    assertThat(r.getInt(2)).isEqualTo(1);
                    assertThat(r.getInt(3)).isEqualTo(JOBS);
                    assertThat(r.next()).as("only one (state, attempts) group").isFalse();
                }
            }
        }
        for (String id : ids.subList(0, 50)) {
            JsonNode job = env.api().awaitJson("/api/v1/jobs/" + id,
                    j -> "sent_to_provider".equals(j.path("state").asText()), Duration.ofSeconds(30));
            assertThat(job.path("attempts")).hasSize(1);
            assertThat(job.path("provider").asText()).isEqualTo("smtp");
            assertThat(job.path("attempts").get(0).path("code").asText()).isEqualTo("250");
        }
        JsonNode queue = env.api().awaitJson("/api/v1/queues",
                q -> q.get(0).path("depth").asLong() == 0 && q.get(0).path("in_flight").asLong() == 0,
                Duration.ofSeconds(30));
        assertThat(queue.get(0).path("depth").asLong()).isZero();
    }
}
