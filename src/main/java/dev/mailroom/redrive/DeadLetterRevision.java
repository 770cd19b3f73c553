package dev.mailroom.redrive;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** An operator's edit of a dead letter's payload, stored beside the untouched original. */
@Entity
@Table(name = "dead_letter_revision")
public class DeadLetterRevision {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;
    @Column(name = "dead_letter_id")
    private long deadLetterId;
    private int revision;
    private byte[] payload;
    @Column(name = "created_by")
    private String createdBy;
    @Column(name = "created_at")
    private Instant createdAt;
    private String reason;
    private String diff;
    @Column(name = "idempotency_key")
    private String idempotencyKey;
    @Column(name = "new_idempotency_key")
    private boolean newIdempotencyKey;

    protected DeadLetterRevision() {
    }

    DeadLetterRevision(long deadLetterId, int revision, byte[] payload, String createdBy, Instant createdAt,
                       String reason, String diff, String idempotencyKey, boolean newIdempotencyKey) {
        this.deadLetterId = deadLetterId;
        this.revision = revision;
        this.payload = payload;
        this.createdBy = createdBy;
        this.createdAt = createdAt;
        this.reason = reason;
        this.diff = diff;
        this.idempotencyKey = idempotencyKey;
        this.newIdempotencyKey = newIdempotencyKey;
    }

    public Long getId() { return id; }
    public long getDeadLetterId() { return deadLetterId; }
    public int getRevision() { return revision; }
    public byte[] getPayload() { return payload; }
    public String getCreatedBy() { return createdBy; }
    public Instant getCreatedAt() { return createdAt; }
    public String getReason() { return reason; }
    public String getDiff() { return diff; }
    public String getIdempotencyKey() { return idempotencyKey; }
    public boolean isNewIdempotencyKey() { return newIdempotencyKey; }
}
