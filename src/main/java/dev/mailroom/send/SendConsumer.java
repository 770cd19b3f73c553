package dev.mailroom.send;

import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.EJB;
import jakarta.ejb.MessageDriven;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.jms.BytesMessage;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.TextMessage;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Consumes {@code mail.send} inside a container-managed JTA transaction and delegates to
 * {@link SendService}. Returning commits: the delivery is acknowledged together with whatever the
 * send path recorded and scheduled. An exception nobody foresaw propagates, rolls back, and the
 * broker's redelivery limit is the backstop.
 */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "destinationLookup", propertyValue = "java:/jms/queue/mail.send"),
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "maxSession", propertyValue = "${env.MAILROOM_CONSUMERS:4}")
})
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class SendConsumer implements MessageListener {

    static final String QUEUE = "mail.send";

    @Inject
    SendService sendService;
    @EJB
    SchemaMigration schema;

    @Override
    public void onMessage(Message message) {
        schema.awaitMigrated();
        try {
            sendService.handle(incoming(message));
        } catch (JMSException e) {
            throw new IllegalStateException("cannot read JMS message", e);
        }
    }

    static Incoming incoming(Message m) throws JMSException {
        byte[] body;
        boolean text = m instanceof TextMessage;
        if (text) {
            String s = ((TextMessage) m).getText();
            body = s == null ? new byte[0] : s.getBytes(StandardCharsets.UTF_8);
        } else if (m instanceof BytesMessage bytes) {
            body = new byte[(int) bytes.getBodyLength()];
            bytes.readBytes(body);
        } else {
            // Map/Object/Stream messages are not jobs: an empty body is dead-lettered as not_json.
            body = new byte[0];
        }
        int deliveryCount = m.propertyExists("JMSXDeliveryCount") ? m.getIntProperty("JMSXDeliveryCount") : 1;
        String traceparent = m.propertyExists("traceparent") ? m.getStringProperty("traceparent") : null;
        return new Incoming(QUEUE, m.getJMSMessageID(), m.getJMSRedelivered(), deliveryCount, body, text,
                traceparent, m.getJMSTimestamp() > 0 ? Instant.ofEpochMilli(m.getJMSTimestamp()) : null);
    }
}
