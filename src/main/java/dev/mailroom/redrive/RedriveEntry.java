package dev.mailroom.redrive;

import dev.mailroom.deadletter.DeadLetterQueries;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** One dead letter of a plan's frozen cohort, with what its run did to it. */
@Entity
@Table(name = "redrive_entry")
public class RedriveEntry {

    /** What the run recorded; {@code published} is refined on reading (sent, dead-lettered again, ...). */
    public enum Outcome { pending, published, discarded_expired, skipped_changed, not_run, discarded, duplicate_suppressed }

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;
    @Column(name = "redrive_id")
    private String redriveId;
    @Column(name = "dead_letter_id")
    private long deadLetterId;
    private int position;
    private String phase;
    @Column(name = "message_id")
    private String messageId;
    @Column(name = "source_queue")
    private String sourceQueue;
    private String reason;
    @Column(name = "failure_class")
    private String failureClass;
    @Column(name = "failed_at")
    private Instant failedAt;
    private int lap;
    @Column(name = "planned_revision")
    private int plannedRevision;
    private String outcome;
    @Column(name = "published_at")
    private Instant publishedAt;
    @Column(name = "jms_message_id")
    private String jmsMessageId;
    private Integer revision;
    @Column(name = "idempotency_key")
    private String idempotencyKey;
    private String detail;

    protected RedriveEntry() {
    }

    RedriveEntry(String redriveId, DeadLetterQueries.Candidate d, int position, String phase, int plannedRevision) {
        this.redriveId = redriveId;
        this.deadLetterId = d.id();
        this.position = position;
        this.phase = phase;
        this.messageId = d.messageId();
        this.sourceQueue = d.sourceQueue();
        this.reason = d.reason();
        this.failureClass = d.failureClass();
        this.failedAt = d.failedAt();
        this.lap = d.lap();
        this.plannedRevision = plannedRevision;
        this.idempotencyKey = d.idempotencyKey();
        this.outcome = Outcome.pending.name();
    }

    void outcome(Outcome o, String detail) {
        this.outcome = o.name();
        this.detail = detail;
    }

    void published(Instant at, String jmsMessageId, Integer revision, String idempotencyKey) {
        this.outcome = Outcome.published.name();
        this.publishedAt = at;
        this.jmsMessageId = jmsMessageId;
        this.revision = revision;
        if (idempotencyKey != null) {
            this.idempotencyKey = idempotencyKey;
        }
    }

    Outcome outcomeValue() {
        return Outcome.valueOf(outcome);
    }

    public Long getId() { return id; }
    public String getRedriveId() { return redriveId; }
    public long getDeadLetterId() { return deadLetterId; }
    public int getPosition() { return position; }
    public String getPhase() { return phase; }
    public String getMessageId() { return messageId; }
    public String getSourceQueue() { return sourceQueue; }
    public String getReason() { return reason; }
    public String getFailureClass() { return failureClass; }
    public Instant getFailedAt() { return failedAt; }
    public int getLap() { return lap; }
    public int getPlannedRevision() { return plannedRevision; }
    public String getOutcome() { return outcome; }
    public Instant getPublishedAt() { return publishedAt; }
    public String getJmsMessageId() { return jmsMessageId; }
    public Integer getRevision() { return revision; }
    public String getIdempotencyKey() { return idempotencyKey; }
    public String getDetail() { return detail; }
}
