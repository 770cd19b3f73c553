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
 * @param descendsFrom the JMS messages this copy descends from through put-backs nobody recorded
 *                    ({@code mr_descends_from}), oldest first; empty for any other message, never null
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
        java.util.Set<String> refusedBy,
        java.util.List<String> descendsFrom) {

    /** The providers this job failed over from ({@code mr_refused_by}, comma-separated); copies keep it. */
    public static final String REFUSED_BY_PROPERTY = "mr_refused_by";
    /**
     * The JMS messages a put-back's copy descends from (comma-separated, oldest first), set only on a copy whose
     * put-back was not recorded (the database stopped its line): the job's row still names one of them as its owner,
     * and admission lets the copy take the job over on that proof. Copies whose ownership is recorded do not carry it.
     */
    public static final String DESCENDS_FROM_PROPERTY = "mr_descends_from";

    public Incoming {
        refusedBy = refusedBy == null ? java.util.Set.of() : java.util.Set.copyOf(refusedBy);
        descendsFrom = descendsFrom == null ? java.util.List.of() : java.util.List.copyOf(descendsFrom);
    }

    /** A delivery that is no unrecorded put-back's copy. */
    public Incoming(String queue, String jmsMessageId, boolean redelivered, int deliveryCount, byte[] body,
                    boolean textMessage, String traceparent, Instant brokerTimestamp, String redriveId, Long replayOf,
                    Long sendAgainOf, java.util.Set<String> refusedBy) {
        this(queue, jmsMessageId, redelivered, deliveryCount, body, textMessage, traceparent, brokerTimestamp,
                redriveId, replayOf, sendAgainOf, refusedBy, java.util.List.of());
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
                brokerTimestamp, redriveId, replayOf, sendAgainOf, more, descendsFrom);
    }

    /** What a copy of this delivery put back without a record carries: this delivery's descent, then this delivery. */
    public java.util.List<String> descentOfACopy() {
        java.util.List<String> chain = new java.util.ArrayList<>(descendsFrom);
        if (jmsMessageId != null) { // a message without an id owns no job by it (AdmissionPolicy.ownership)
            chain.add(jmsMessageId);
        }
        return java.util.List.copyOf(chain);
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
