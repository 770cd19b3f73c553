package dev.mailroom.stopline;

import dev.mailroom.job.JmsMessages;
import dev.mailroom.platform.Destinations;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.transaction.Transactional;

/**
 * The probe of a stopped line: takes the queue's head job off the broker and hands it to the send path in one
 * transaction, exactly as a consumer would. The send path reports the provider's answer to {@link StopLine}
 * (its usual hook), which decides whether the line starts again; a refused job goes back to the broker as the
 * send path decides (a systemic answer uses no retry). One job, so at most one provider call per probe.
 */
@ApplicationScoped
public class HeadJobProbe {

    /** How long the probe waits for a message that is due. */
    static final long RECEIVE_TIMEOUT_MS = 500;

    @Inject
    JMSContext jms;
    @Inject
    Destinations destinations;
    @Inject
    QueueHandler handler;

    /** Sends the head job of {@code queue}; false when none was due. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean probe(String queue) {
        try (JMSConsumer consumer = jms.createConsumer(destinations.sendQueue(queue))) {
            Message head = consumer.receive(RECEIVE_TIMEOUT_MS);
            if (head == null) {
                return false;
            }
            handler.handle(JmsMessages.incoming(head, queue));
            return true;
        } catch (JMSException e) {
            throw new IllegalStateException("the probe could not read the head job of " + queue, e);
        }
    }
}
