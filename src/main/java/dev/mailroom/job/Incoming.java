package dev.mailroom.job;

import java.time.Instant;

/**
 * A message as it came off a send queue, already out of JMS: the send path works on this value, so
 * the MDB stays a thin adapter and the path can be driven without a broker.
 *
 * @param body        the payload byte-for-byte (a TextMessage's text as UTF-8)
 * @param textMessage whether it came as a TextMessage (a dead-letter copy keeps the same type)
 * @param traceparent the W3C {@code traceparent} JMS property, or null
 * @param redriveId   the redrive run that republished this message ({@code mr_redrive_id}), or null
 * @param replayOf    the dead letter it is a replay of ({@code mr_replay_of}), or null
 * @param sendAgainOf the {@code unknown} job an operator sent again ({@code mr_send_again}), or null
 * @param refusedBy   the providers this job failed over from ({@code mr_refused_by}); never null
 */
public record Incoming(
        String queue,
        String jmsMessageId,
        boolean redelivered,
        int deliveryCount,
        byte[] body,
        boolean textMessage,
        String traceparent,
        Instant brokerTimestamp,
        String redriveId,
        Long replayOf,
        Long sendAgainOf,
        java.util.Set<String> refusedBy) {

    /** The providers this job failed over from ({@code mr_refused_by}, comma-separated); copies keep it. */
    public static final String REFUSED_BY_PROPERTY = "mr_refused_by";

    public Incoming {
        refusedBy = refusedBy == null ? java.util.Set.of() : java.util.Set.copyOf(refusedBy);
    }

    /** A delivery no provider refused yet. */
    public Incoming(String queue, String jmsMessageId, boolean redelivered, int deliveryCount, byte[] body,
                    boolean textMessage, String traceparent, Instant brokerTimestamp, String redriveId, Long replayOf,
                    Long sendAgainOf) {
        this(queue, jmsMessageId, redelivered, deliveryCount, body, textMessage, traceparent, brokerTimestamp,
                redriveId, replayOf, sendAgainOf, java.util.Set.of());
    }

    /** This delivery, with {@code provider} added to the providers that refused it (a failover's copy carries it). */
    public Incoming refusedBy(String provider) {
        java.util.Set<String> more = new java.util.TreeSet<>(refusedBy);
        more.add(provider);
        return new Incoming(queue, jmsMessageId, redelivered, deliveryCount, body, textMessage, traceparent,
                brokerTimestamp, redriveId, replayOf, sendAgainOf, more);
    }

    /** The JMS properties that mark a replayed message; retry and dead-letter copies keep them. */
    public static final String REDRIVE_ID_PROPERTY = "mr_redrive_id";
    public static final String REPLAY_OF_PROPERTY = "mr_replay_of";
    /**
     * The JMS property that marks an operator's "send again" of an {@code unknown} job (the job's id): the
     * copy owns the job, which admission lets through once. Not carried over to retry copies.
     */
    public static final String SEND_AGAIN_PROPERTY = "mr_send_again";

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
