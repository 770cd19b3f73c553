package dev.mailroom.send;

import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;

/** Consumes the send queue {@code mail.send} (transactional mail). */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "destinationLookup", propertyValue = "java:/jms/queue/mail.send"),
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "maxSession", propertyValue = "${env.MAILROOM_CONSUMERS:4}")
})
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class SendConsumer extends SendQueueConsumer {

    @Override
    protected String queue() {
        return "mail.send";
    }
}
