package dev.mailroom.platform;

import jakarta.annotation.PostConstruct;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Queue;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * Makes sure every send queue and its dead-letter queue exist on the broker once the deployment is up.
 *
 * <p>The embedded broker's send queues are not WildFly {@code queue} resources (WildFly destroys those, with
 * their messages, at every graceful stop; see {@code server-config/wildfly/send-queue-mail.send.cli}): the
 * broker creates them, durable and never auto-deleted, when something first names them. The MDBs name
 * their send queue at deployment, but nothing names a dead-letter queue before the sweeper's first run,
 * and a message the broker dead-letters to an address without a queue would be dropped. So each queue is
 * named here, at deployment, by opening a consumer whose selector matches no message (nothing is received,
 * nothing is redelivered). On a remote broker, whose queues its own configuration creates, this only checks
 * that they are there. A queue that cannot be created fails the deployment.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class SendQueueProvisioner {

    private static final Logger LOG = Logger.getLogger(SendQueueProvisioner.class.getName());
    /** No message carries this property, so the consumer that creates the queue never takes one. */
    static final String MATCHES_NOTHING = "mailroom_queue_provisioning IS NOT NULL AND 1 = 0";

    @Inject
    JMSContext jms;
    @Inject
    Destinations destinations;
    @Inject
    MailroomConfig config;

    @PostConstruct
    void provision() {
        List<String> named = new ArrayList<>();
        for (String queue : config.queues()) {
            name(destinations.sendQueue(queue));
            name(destinations.deadLetterQueue(queue));
            named.add(queue + " + DLQ." + queue);
        }
        LOG.info(() -> "send queues on the broker: " + String.join(", ", named));
    }

    private void name(Queue queue) {
        try (JMSConsumer consumer = jms.createConsumer(queue, MATCHES_NOTHING)) {
            // opening it is the point: the broker creates the queue if it is missing
        }
    }
}
