package dev.mailroom.deadletter;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * The record of one dead letter; its identity is (consumer, message_id), so a redelivered or
 * re-swept message updates its row and never adds a second one. The full payload stays on the
 * DLQ message; the row keeps its first {@link DeadLetterRecorder#MAX_STORED_PAYLOAD} bytes, its size
 * and its SHA-256.
 */
@Entity
@Table(name = "dead_letter")
public class DeadLetter {

    public enum Status { open, replaying, replayed, discarded, expired }

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

    protected DeadLetter() {
    }

    DeadLetter(String consumer, String messageId, String sourceQueue, Instant firstSeenAt) {
        this.consumer = consumer;
        this.messageId = messageId;
        this.sourceQueue = sourceQueue;
        this.firstSeenAt = firstSeenAt;
        this.status = Status.open.name();
    }

    void failed(Long jobId, String reason, String failureClass, String error, String errorType, byte[] payload,
                long payloadSize, String payloadSha256, String jmsMessageId, String traceId, String consumerVersion,
                Instant at) {
        this.jobId = jobId;
        this.reason = reason;
        this.failureClass = failureClass;
        this.error = error;
        this.errorType = errorType;
        this.payload = payload;
        this.payloadSize = payloadSize;
        this.payloadSha256 = payloadSha256;
        this.payloadTruncated = payload.length < payloadSize;
        this.jmsMessageId = jmsMessageId;
        this.traceId = traceId;
        this.consumerVersion = consumerVersion;
        this.failedAt = at;
        this.status = Status.open.name();
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
}
