package dev.mailroom.send;

import java.time.Instant;

/**
 * A message as it came off a send queue, already out of JMS: the send path works on this value, so
 * the MDB stays a thin adapter and the path can be driven without a broker.
 *
 * @param body        the payload byte-for-byte (a TextMessage's text as UTF-8)
 * @param textMessage whether it came as a TextMessage (a dead-letter copy keeps the same type)
 * @param traceparent the W3C {@code traceparent} JMS property, or null
 */
public record Incoming(
        String queue,
        String jmsMessageId,
        boolean redelivered,
        int deliveryCount,
        byte[] body,
        boolean textMessage,
        String traceparent,
        Instant brokerTimestamp) {

    /** The trace id of a W3C traceparent ({@code 00-<32 hex>-<16 hex>-<2 hex>}), or null. */
    public String traceId() {
        if (traceparent == null) {
            return null;
        }
        String[] parts = traceparent.trim().split("-");
        if (parts.length == 4 && parts[1].matches("[0-9a-f]{32}") && !parts[1].matches("0{32}")) {
            return parts[1];
        }
        return null;
    }
}
