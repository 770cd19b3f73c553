package dev.mailroom.job;

import jakarta.persistence.Column;
import jakarta.persistence.Embedded;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * The original bytes of a job {@code waiting_for_key}: its message was acknowledged (it neither circles on the broker
 * nor uses up its redelivery attempts), and when the job before it ends, these bytes go back to its queue as a copy.
 */
@Entity
@Table(name = "key_wait")
public class KeyWait {

    @Id
    @Column(name = "job_id")
    private Long jobId;
    @Column(name = "jms_message_id")
    private String jmsMessageId;
    @Embedded
    private KeptMessage message;
    @Column(name = "waiting_since")
    private Instant waitingSince;

    protected KeyWait() {
    }

    KeyWait(long jobId, Incoming in, Instant at) {
        this.jobId = jobId;
        this.jmsMessageId = in.jmsMessageId();
        this.message = new KeptMessage(in);
        this.waitingSince = at;
    }

    public Long getJobId() { return jobId; }
    public KeptMessage getMessage() { return message; }
    public Instant getWaitingSince() { return waitingSince; }

    /** The waiting delivery again, as the copy that releases it is made from (the original body, byte for byte). */
    Incoming delivery(String queue) {
        return new Incoming(queue, jmsMessageId, false, 1, message.getPayload(), message.isTextMessage(),
                message.getTraceparent(), null, null, null, null);
    }
}
