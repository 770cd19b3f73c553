package dev.mailroom.it.support;


import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.it.support.ItEnvironment;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;

/**
 * What ITs need to see of the DLQ sweeper: that it has run (its Prometheus counter, so a test waits for
 * real sweeps instead of sleeping) and what the DLQs hold.
 */
public final class DlqSweeps {

    private DlqSweeps() {
    }

    /** How many sweeps of every DLQ have finished ({@code mailroom_deadletter_sweeps_total}). */
    public static double count(ItEnvironment env) {
        try {
            return Prometheus.scrape(env).getOrDefault("mailroom_deadletter_sweeps_total|", 0.0);
        } catch (Exception e) {
            throw new IllegalStateException("cannot scrape the server's metrics", e);
        }
    }

    /** Waits until {@code n} more whole sweeps have finished than had when it was called. */
    public static void awaitMore(ItEnvironment env, int n) {
        double from = count(env);
        Awaitility.await("" + n + " more DLQ sweeps").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> count(env) >= from + n);
    }

    /** The arrivals the server counted for (queue, reason) ({@code mailroom_deadletter_arrivals_total}). */
    public static double arrivals(ItEnvironment env, String queue, String reason) {
        try {
            return Prometheus.scrape(env).getOrDefault("mailroom_deadletter_arrivals_total|queue=" + queue
                    + ",reason=" + reason, 0.0);
        } catch (Exception e) {
            throw new IllegalStateException("cannot scrape the server's metrics", e);
        }
    }

    /** The copies of a dead letter on its DLQ, by the envelope's message id. */
    public static List<Message> copies(ItEnvironment env, String queue, String messageId) {
        return env.jms().browse("DLQ." + queue, "mr_message_id = '" + messageId + "'");
    }

    /** Every message on a send queue's DLQ carries the envelope: what it is, where from, which dead letter. */
    public static void assertEveryMessageEnveloped(ItEnvironment env, String queue) throws JMSException {
        assertThat(env.jms().browse("DLQ." + queue, "mr_reason IS NULL")).as("bare messages on DLQ." + queue).isEmpty();
        for (Message m : env.jms().browse("DLQ." + queue)) {
            assertThat(m.getStringProperty("mr_message_id")).as(m.getJMSMessageID()).isNotBlank();
            assertThat(m.getStringProperty("mr_source_queue")).as(m.getJMSMessageID()).isEqualTo(queue);
            assertThat(m.getStringProperty("mr_consumer")).as(m.getJMSMessageID()).isNotBlank();
            assertThat(m.getIntProperty("mr_lap")).as(m.getJMSMessageID()).isPositive();
            assertThat(m.getIntProperty("mr_schema_version")).isEqualTo(1);
        }
    }
}
