package dev.mailroom.client;

import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;

/**
 * Puts {@link MailJob}s on Mailroom's send queues. {@link #over(ConnectionFactory)} for the usual case; in a Jakarta
 * EE container give it the JTA-enlisted (pooled) connection factory, and a job is on the queue if and only if the
 * caller's transaction commits. {@link RecordingMailroomClient} stands in for it in the producer's own tests.
 */
public interface MailroomClient {

    /** The send queue of the embedded default, used when neither the job nor the client names one. */
    String DEFAULT_QUEUE = "mail.send";

    /**
     * Sends one job: persistent, with its idempotency key as the broker's duplicate-detection id (a second send of
     * the same key within the broker's duplicate-id cache is dropped by the broker; inside a JTA transaction the
     * broker refuses that transaction at its commit instead) and its {@code traceparent}.
     *
     * @return the job's {@code message_id}, the id to look it up by ({@code GET /api/v1/jobs/<message_id>})
     * @throws jakarta.jms.JMSRuntimeException when the broker cannot take it (nothing was sent, or the caller's
     *     transaction decides)
     */
    String send(MailJob job);

    /** A client that opens a {@link JMSContext} from {@code factory} per send, to {@link #DEFAULT_QUEUE}. */
    static JmsMailroomClient over(ConnectionFactory factory) {
        return new JmsMailroomClient(factory, null, null, DEFAULT_QUEUE, null);
    }

    /** A client that sends with the caller's {@code context} (its session, its transaction), to the default queue. */
    static JmsMailroomClient over(JMSContext context) {
        return new JmsMailroomClient(null, context, null, DEFAULT_QUEUE, null);
    }
}
