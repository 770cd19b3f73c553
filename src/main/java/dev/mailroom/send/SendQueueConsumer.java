package dev.mailroom.send;

import dev.mailroom.job.JmsMessages;
import dev.mailroom.platform.SchemaMigration;

import jakarta.ejb.EJB;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;

/**
 * What every send-queue MDB does: read the message and hand it to {@link SendService} inside the
 * container's JTA transaction. Returning commits, so the delivery is acknowledged together with
 * whatever the send path recorded and scheduled; an exception nobody foresaw propagates, rolls back,
 * and the broker's redelivery limit is the backstop. One subclass per send queue binds it.
 */
public abstract class SendQueueConsumer implements MessageListener {

    @Inject
    SendService sendService;
    @EJB
    SchemaMigration schema;

    /** The send queue this consumer is bound to. */
    protected abstract String queue();

    @Override
    public void onMessage(Message message) {
        schema.awaitMigrated();
        try {
            sendService.handle(JmsMessages.incoming(message, queue()));
        } catch (JMSException e) {
            throw new IllegalStateException("cannot read JMS message from " + queue(), e);
        }
    }
}
