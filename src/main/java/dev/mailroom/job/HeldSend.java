package dev.mailroom.job;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * The original bytes of a job in state {@code unknown}: what an operator's "send again" republishes,
 * byte-for-byte (so the idempotency key and the Message-ID stay the same).
 */
@Entity
@Table(name = "held_send")
public class HeldSend {

    @Id
    @Column(name = "job_id")
    private Long jobId;
    private byte[] payload;
    @Column(name = "text_message")
    private boolean textMessage;
    private String traceparent;
    @Column(name = "held_at")
    private Instant heldAt;

    protected HeldSend() {
    }

    HeldSend(long jobId, Incoming in, Instant at) {
        this.jobId = jobId;
        this.payload = in.body();
        this.textMessage = in.textMessage();
        this.traceparent = in.traceparent();
        this.heldAt = at;
    }

    public Long getJobId() { return jobId; }
    public byte[] getPayload() { return payload; }
    public boolean isTextMessage() { return textMessage; }
    public String getTraceparent() { return traceparent; }
    public Instant getHeldAt() { return heldAt; }
}
