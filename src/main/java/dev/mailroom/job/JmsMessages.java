package dev.mailroom.job;

import jakarta.jms.BytesMessage;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/** Reads a JMS message into an {@link Incoming}: the one place that knows JMS message types. */
public final class JmsMessages {

    private JmsMessages() {
    }

    /**
     * A new message with the delivery's body, byte-for-byte and of the same type (text or bytes): what a
     * retry copy and a dead-letter copy both start from.
     */
    public static Message copyOf(jakarta.jms.JMSContext jms, Incoming in) throws JMSException {
        Message copy = withBody(jms, in.body(), in.textMessage());
        if (in.traceparent() != null) {
            copy.setStringProperty("traceparent", in.traceparent());
        }
        if (in.redriveId() != null) {
            copy.setStringProperty(Incoming.REDRIVE_ID_PROPERTY, in.redriveId());
        }
        if (in.replayOf() != null) {
            copy.setLongProperty(Incoming.REPLAY_OF_PROPERTY, in.replayOf());
        }
        if (!in.refusedBy().isEmpty()) {
            copy.setStringProperty(Incoming.REFUSED_BY_PROPERTY, String.join(",", new java.util.TreeSet<>(in.refusedBy())));
        }
        return copy;
    }

    /** A new message holding {@code body} byte-for-byte: a TextMessage of it as UTF-8, or a BytesMessage. */
    public static Message withBody(jakarta.jms.JMSContext jms, byte[] body, boolean text) throws JMSException {
        if (text) {
            return jms.createTextMessage(new String(body, StandardCharsets.UTF_8));
        }
        BytesMessage bytes = jms.createBytesMessage();
        bytes.writeBytes(body);
        return bytes;
    }

    /**
     * @param queue the send queue the message belongs to (for a dead letter: the queue it came from)
     */
    public static Incoming incoming(Message m, String queue) throws JMSException {
        byte[] body;
        boolean text = m instanceof TextMessage;
        if (text) {
            String s = ((TextMessage) m).getText();
            body = s == null ? new byte[0] : s.getBytes(StandardCharsets.UTF_8);
        } else if (m instanceof BytesMessage bytes) {
            bytes.reset();
            body = new byte[(int) bytes.getBodyLength()];
            bytes.readBytes(body);
        } else {
            // Map/Object/Stream messages are not jobs: an empty body is dead-lettered as not_json.
            body = new byte[0];
        }
        int deliveryCount = m.propertyExists("JMSXDeliveryCount") ? m.getIntProperty("JMSXDeliveryCount") : 1;
        String traceparent = m.propertyExists("traceparent") ? m.getStringProperty("traceparent") : null;
        String redriveId = m.propertyExists(Incoming.REDRIVE_ID_PROPERTY)
                ? m.getStringProperty(Incoming.REDRIVE_ID_PROPERTY) : null;
        Long replayOf = null;
        if (m.propertyExists(Incoming.REPLAY_OF_PROPERTY)) {
            try {
                replayOf = Long.valueOf(String.valueOf(m.getObjectProperty(Incoming.REPLAY_OF_PROPERTY)));
            } catch (NumberFormatException ignored) {
                // a producer set it by hand and not to an id: the message is not a replay of ours
            }
        }
        Long sendAgainOf = null;
        if (m.propertyExists(Incoming.SEND_AGAIN_PROPERTY)) {
            try {
                sendAgainOf = Long.valueOf(String.valueOf(m.getObjectProperty(Incoming.SEND_AGAIN_PROPERTY)));
            } catch (NumberFormatException ignored) {
                // not one of ours
            }
        }
        return new Incoming(queue, m.getJMSMessageID(), m.getJMSRedelivered(), deliveryCount, body, text,
                traceparent, m.getJMSTimestamp() > 0 ? Instant.ofEpochMilli(m.getJMSTimestamp()) : null,
                redriveId, replayOf, sendAgainOf, java.util.Set.copyOf(commaList(m, Incoming.REFUSED_BY_PROPERTY)),
                commaList(m, Incoming.DESCENDS_FROM_PROPERTY));
    }

    /** A comma-separated string property as its non-empty items, in order; empty when the message has none. */
    private static java.util.List<String> commaList(Message m, String property) throws JMSException {
        if (!m.propertyExists(property)) {
            return java.util.List.of();
        }
        return java.util.Arrays.stream(m.getStringProperty(property).split(","))
                .map(String::trim).filter(x -> !x.isEmpty()).toList();
    }
}
