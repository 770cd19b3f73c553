package dev.mailroom.job;

import jakarta.persistence.Column;
import jakarta.persistence.Embedded;
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
    @Embedded
    private KeptMessage message;
    @Column(name = "held_at")
    private Instant heldAt;

    protected HeldSend() {
    }

    HeldSend(long jobId, Incoming in, Instant at) {
        this.jobId = jobId;
        this.message = new KeptMessage(in);
        this.heldAt = at;
    }

    public Long getJobId() { return jobId; }
    public KeptMessage getMessage() { return message; }
    public Instant getHeldAt() { return heldAt; }
}
