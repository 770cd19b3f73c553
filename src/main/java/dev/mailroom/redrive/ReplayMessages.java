package dev.mailroom.redrive;

import dev.mailroom.deadletter.DeadLetter;
import dev.mailroom.job.Incoming;
import dev.mailroom.job.JmsMessages;
import dev.mailroom.platform.Destinations;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.BytesMessage;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import java.nio.charset.StandardCharsets;

/** What a replay does on the broker, inside the publishing step's transaction: take the DLQ copy, send the replay. */
@ApplicationScoped
public class ReplayMessages {

    /** How long a publish waits for the broker's DLQ copy to be handed over. */
    private static final long DLQ_RECEIVE_TIMEOUT_MS = 2_000;

    @Inject
    JMSContext jms;
    @Inject
    Destinations destinations;

    /**
     * The broker's DLQ copy of {@code d}, received inside the caller's transaction: it leaves the DLQ when, and only
     * when, that transaction commits. Null when there is none (or it was not handed over in time).
     */
    Incoming takeDlqCopy(DeadLetter d) {
        if (d.getDlqJmsMessageId() == null) {
            return null;
        }
        try (JMSConsumer consumer = jms.createConsumer(destinations.deadLetterQueue(d.getSourceQueue()),
                "JMSMessageID = '" + d.getDlqJmsMessageId().replace("'", "''") + "'")) {
            Message m = consumer.receive(DLQ_RECEIVE_TIMEOUT_MS);
            return m == null ? null : JmsMessages.incoming(m, d.getSourceQueue());
        } catch (JMSException ex) {
            throw new IllegalStateException("cannot read the DLQ copy of dead letter " + d.getId(), ex);
        }
    }

    /** Republishes {@code d}'s body to its source queue, marked as a replay of it by {@code redriveId}. */
    String send(DeadLetter d, byte[] body, boolean text, String traceparent, String redriveId) {
        try {
            Message m;
            if (text) {
                m = jms.createTextMessage(new String(body, StandardCharsets.UTF_8));
            } else {
                BytesMessage bytes = jms.createBytesMessage();
                bytes.writeBytes(body);
                m = bytes;
            }
            m.setStringProperty(Incoming.REDRIVE_ID_PROPERTY, redriveId);
            m.setLongProperty(Incoming.REPLAY_OF_PROPERTY, d.getId());
            if (traceparent != null) {
                m.setStringProperty("traceparent", traceparent);
            }
            jms.createProducer().send(destinations.sendQueue(d.getSourceQueue()), m);
            return m.getJMSMessageID();
        } catch (JMSException ex) {
            throw new IllegalStateException("cannot republish dead letter " + d.getId() + " to " + d.getSourceQueue(), ex);
        }
    }

    static boolean isUtf8(byte[] body) {
        try {
            StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(body));
            return true;
        } catch (java.nio.charset.CharacterCodingException e) {
            return false;
        }
    }
}
