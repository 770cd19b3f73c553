package dev.mailroom.deadletter;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * The record of one dead letter; its identity is (consumer, message_id, lap), so a redelivered or
 * re-swept message updates its row and never adds a second one, while a replayed one that fails
 * again starts the next lap, linked to the previous row. The full payload stays on the
 * DLQ message; the row keeps its first {@link DeadLetterRecorder#MAX_STORED_PAYLOAD} bytes, its size
 * and its SHA-256.
 */
@Entity
@Table(name = "dead_letter")
public class DeadLetter {

    public enum Status { open, replaying, replayed, discarded, expired;

        /** Whether an operator has dealt with it (retention then purges the row). */
        public boolean resolved() {
            return this == replayed || this == discarded;
        }
    }

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;
    private String consumer;
    @Column(name = "message_id")
    private String messageId;
    @Column(name = "job_id")
    private Long jobId;
    @Column(name = "source_queue")
    private String sourceQueue;
    private String reason;
    @Column(name = "failure_class")
    private String failureClass;
    private String status;
    private String error;
    /** {@link ErrorFingerprint#of} the error, kept with it so grouping is a GROUP BY in the database. */
    @Column(name = "error_fingerprint")
    private String errorFingerprint;
    @Column(name = "error_type")
    private String errorType;
    private byte[] payload;
    @Column(name = "payload_size")
    private long payloadSize;
    @Column(name = "payload_sha256")
    private String payloadSha256;
    @Column(name = "payload_truncated")
    private boolean payloadTruncated;
    @Column(name = "jms_message_id")
    private String jmsMessageId;
    @Column(name = "trace_id")
    private String traceId;
    @Column(name = "consumer_version")
    private String consumerVersion;
    @Column(name = "first_seen_at")
    private Instant firstSeenAt;
    @Column(name = "failed_at")
    private Instant failedAt;
    @Column(name = "idempotency_key")
    private String idempotencyKey;
    private String tenant;
    @Column(name = "campaign_id")
    private String campaignId;
    private String provider;
    @Column(name = "attempt_count")
    private int attemptCount;
    private String attempts;
    private String stacktrace;
    @Column(name = "expires_at")
    private Instant expiresAt;
    @Column(name = "routed_by")
    private String routedBy;
    @Column(name = "retention_until")
    private Instant retentionUntil;
    @Column(name = "status_changed_at")
    private Instant statusChangedAt;
    @Column(name = "dlq_jms_message_id")
    private String dlqJmsMessageId;
    @Column(name = "retention_alerted_at")
    private Instant retentionAlertedAt;
    private int lap = 1;
    @Column(name = "previous_dead_letter_id")
    private Long previousDeadLetterId;
    @Column(name = "redrive_id")
    private String redriveId;

    protected DeadLetter() {
    }

    DeadLetter(String consumer, String messageId, String sourceQueue) {
        this.consumer = consumer;
        this.messageId = messageId;
        this.sourceQueue = sourceQueue;
        this.status = Status.open.name();
    }

    /** The next lap of a replayed dead letter that failed again. */
    static DeadLetter nextLap(DeadLetter previous) {
        DeadLetter next = new DeadLetter(previous.consumer, previous.messageId, previous.sourceQueue);
        next.lap = previous.lap + 1;
        next.previousDeadLetterId = previous.id;
        return next;
    }

    /** Writes the envelope onto the row (a new one, or the same dead letter seen again). */
    void record(DeadLetterEnvelope e, Long jobId, String attemptsJson, byte[] storedPayload, long payloadSize,
                Instant retentionUntil) {
        this.jobId = jobId;
        this.reason = e.reason();
        this.failureClass = e.failureClass();
        this.error = e.error();
        this.errorFingerprint = ErrorFingerprint.of(e.failureClass(), e.errorType(), e.error());
        this.errorType = e.errorType();
        this.payload = storedPayload;
        this.payloadSize = payloadSize;
        this.payloadSha256 = e.payloadSha256();
        this.payloadTruncated = storedPayload.length < payloadSize;
        this.jmsMessageId = e.originalJmsMessageId();
        this.traceId = e.traceId();
        this.consumerVersion = e.consumerVersion();
        if (this.firstSeenAt == null || (e.firstSeenAt() != null && e.firstSeenAt().isBefore(this.firstSeenAt))) {
            this.firstSeenAt = e.firstSeenAt();
        }
        this.failedAt = e.failedAt();
        this.idempotencyKey = e.idempotencyKey();
        this.tenant = e.tenant();
        this.campaignId = e.campaignId();
        this.provider = e.provider();
        this.attemptCount = e.attemptCount();
        this.attempts = attemptsJson;
        this.stacktrace = e.stacktrace();
        this.expiresAt = e.expiresAt();
        this.routedBy = e.routedBy();
        this.retentionUntil = retentionUntil;
    }

    /**
     * Moves to {@code next} on behalf of redrive run {@code redriveId} (null: no run holds it). Package-private
     * like every change of a counted column: the callers keep {@link DeadLetterCounts} in step.
     */
    void redriveStatus(Status next, String redriveId, Instant at) {
        status(next, at);
        this.redriveId = redriveId;
    }

    void status(Status next, Instant at) {
        this.status = next.name();
        this.statusChangedAt = at;
    }

    void retentionAlerted(Instant at) {
        this.retentionAlertedAt = at;
    }

    void dropPayload() {
        this.payload = null;
    }

    void dlqCopy(String dlqJmsMessageId) {
        this.dlqJmsMessageId = dlqJmsMessageId;
    }

    public Long getId() { return id; }
    public String getConsumer() { return consumer; }
    public String getMessageId() { return messageId; }
    public Long getJobId() { return jobId; }
    public String getSourceQueue() { return sourceQueue; }
    public String getReason() { return reason; }
    public String getFailureClass() { return failureClass; }
    public String getStatus() { return status; }
    public String getError() { return error; }
    public String getErrorFingerprint() { return errorFingerprint; }
    public String getErrorType() { return errorType; }
    public byte[] getPayload() { return payload; }
    public long getPayloadSize() { return payloadSize; }
    public String getPayloadSha256() { return payloadSha256; }
    public boolean isPayloadTruncated() { return payloadTruncated; }
    public String getJmsMessageId() { return jmsMessageId; }
    public String getTraceId() { return traceId; }
    public String getConsumerVersion() { return consumerVersion; }
    public Instant getFirstSeenAt() { return firstSeenAt; }
    public Instant getFailedAt() { return failedAt; }
    public String getIdempotencyKey() { return idempotencyKey; }
    public String getTenant() { return tenant; }
    public String getCampaignId() { return campaignId; }
    public String getProvider() { return provider; }
    public int getAttemptCount() { return attemptCount; }
    public String getAttempts() { return attempts; }
    public String getStacktrace() { return stacktrace; }
    public Instant getExpiresAt() { return expiresAt; }
    public String getRoutedBy() { return routedBy; }
    public Instant getRetentionUntil() { return retentionUntil; }
    public Instant getStatusChangedAt() { return statusChangedAt; }
    public String getDlqJmsMessageId() { return dlqJmsMessageId; }
    public Instant getRetentionAlertedAt() { return retentionAlertedAt; }
    public int getLap() { return lap; }
    public Long getPreviousDeadLetterId() { return previousDeadLetterId; }
    public String getRedriveId() { return redriveId; }
}
