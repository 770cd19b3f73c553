package dev.mailroom.send;

import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;

/**
 * Consumes the send queue {@code mail.send.bulk} (campaign and other bulk mail): its own queue, DLQ,
 * policy and consumer count, so a bulk backlog never delays a password reset.
 */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue")
})
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class BulkSendConsumer extends SendQueueConsumer {

    @Override
    protected String queue() {
        return "mail.send.bulk";
    }
}
