package dev.mailroom.client;

import jakarta.jms.JMSRuntimeException;
import java.time.Duration;

/**
 * The broker did not take the job within the client's send timeout ({@link JmsMailroomClient#withSendTimeout}): it
 * holds producers back (Artemis does while its store disk is above {@code max-disk-usage}, or an address under the
 * {@code BLOCK} policy is full) or does not answer. Not accepted: tell the caller to try later. The job may still have
 * reached the broker in the last instant; sending it again with the same {@code message_id} and idempotency key is
 * safe (the broker's duplicate detection and Mailroom's idempotency claim send one mail per key).
 */
public class JobNotAcceptedException extends JMSRuntimeException {

    private static final long serialVersionUID = 1L;
    private final String messageId;

    public JobNotAcceptedException(String messageId, Duration bound) {
        super("job " + messageId + " not accepted within " + bound.toMillis() + " ms: the broker holds producers back"
                + " (a full disk or a full address) or does not answer; send it again later with the same message_id",
                "MAILROOM_NOT_ACCEPTED");
        this.messageId = messageId;
    }

    /** The job's {@code message_id}: the one to send it again with. */
    public String messageId() {
        return messageId;
    }
}
