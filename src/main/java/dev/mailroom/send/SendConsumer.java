package dev.mailroom.send;

import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;

/**
 * Consumes the send queue {@code mail.send} (transactional mail). Which queue and how many sessions are the
 * server's to say (WEB-INF/jboss-ejb3.xml on WildFly, an activation spec in server-config/liberty/server.xml on Open
 * Liberty): activation properties written here would override Liberty's configuration.
 */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue")
})
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class SendConsumer extends SendQueueConsumer {

    @Override
    protected String queue() {
        return "mail.send";
    }
}
