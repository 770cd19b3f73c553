package dev.mailroom.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * V34 on a database that already holds jobs: the ones the delivery watch has still to judge (sent, no provider event,
 * not reported) are due at their send, so an upgrade loses no silent job; the ones it is done with are not due.
 */
class SilenceCheckMigrationTest {

    private static final String URL = "jdbc:h2:mem:silence-" + UUID.randomUUID()
            + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH;DB_CLOSE_DELAY=-1";

    @Test
    void jobsTheWatchHasStillToJudgeAreDueAtTheirSendTheOthersNot() throws SQLException {
        try (Connection c = DriverManager.getConnection(URL, "sa", ""); Statement s = c.createStatement()) {
            Flyway.configure().dataSource(URL, "sa", "").locations("classpath:db/migration").target("33").load().migrate();
            s.execute("""
                    insert into mail_job (id, queue, message_id, idempotency_key, state, received_at, updated_at, sent_at)
                    values (1, 'mail.send', 'unjudged', 'k1', 'sent_to_provider', timestamp '2030-01-01 10:00:00',
                            timestamp '2030-01-01 10:00:00', timestamp '2030-01-01 10:00:00'),
                           (2, 'mail.send', 'reported', 'k2', 'sent_to_provider', timestamp '2030-01-01 10:00:00',
                            timestamp '2030-01-01 10:00:00', timestamp '2030-01-01 10:00:00'),
                           (3, 'mail.send', 'deferred', 'k3', 'sent_to_provider', timestamp '2030-01-01 10:00:00',
                            timestamp '2030-01-01 10:00:00', timestamp '2030-01-01 10:00:00'),
                           (4, 'mail.send', 'delivered', 'k4', 'delivered', timestamp '2030-01-01 10:00:00',
                            timestamp '2030-01-01 10:00:00', timestamp '2030-01-01 10:00:00'),
                           (5, 'mail.send', 'recipient-heard', 'k5', 'sent_to_provider', timestamp '2030-01-01 10:00:00',
                            timestamp '2030-01-01 10:00:00', timestamp '2030-01-01 10:00:00')""");
            s.execute("""
                    insert into job_event (job_id, at, type, detail, actor)
                    values (2, timestamp '2030-01-01 12:00:00', 'delivery_silent', 'no event', 'system'),
                           (3, timestamp '2030-01-01 10:05:00', 'delivery_state', 'deferred', 'webhook')""");
            s.execute("""
                    insert into job_recipient (job_id, position, kind, address, delivery_state)
                    values (5, 0, 'to', 'a@example.com', 'deferred')""");

            Flyway.configure().dataSource(URL, "sa", "").locations("classpath:db/migration").load().migrate();

            Map<String, Boolean> due = new TreeMap<>();
            try (ResultSet r = s.executeQuery("select message_id, silence_check_at = sent_at from mail_job")) {
                while (r.next()) {
                    due.put(r.getString(1), r.getBoolean(2) && !r.wasNull());
                }
            }
            assertThat(due).isEqualTo(Map.of("unjudged", true, "reported", false, "deferred", false,
                    "delivered", false, "recipient-heard", false));
        }
    }
}
