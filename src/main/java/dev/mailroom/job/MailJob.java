package dev.mailroom.job;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** One send job as Mailroom knows it; identity is (queue, message_id). */
@Entity
@Table(name = "mail_job")
public class MailJob {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;
    private String queue;
    @Column(name = "message_id")
    private String messageId;
    @Column(name = "idempotency_key")
    private String idempotencyKey;
    private String tenant;
    @Column(name = "campaign_id")
    private String campaignId;
    private String category;
    @Enumerated(EnumType.STRING)
    private JobState state;
    private String provider;
    @Column(name = "provider_message_id")
    private String providerMessageId;
    @Column(name = "attempt_count")
    private int attemptCount;
    @Column(name = "trace_id")
    private String traceId;
    @Column(name = "jms_message_id")
    private String jmsMessageId;
    @Column(name = "expires_at")
    private Instant expiresAt;
    @Column(name = "received_at")
    private Instant receivedAt;
    @Column(name = "updated_at")
    private Instant updatedAt;
    @Column(name = "sent_at")
    private Instant sentAt;
    @Column(name = "replayed_at")
    private Instant replayedAt;
    private String subject;
    @Column(name = "template_id")
    private String templateId;
    /** When the producer sent it (the JMS timestamp of the first delivery), null when the broker did not say. */
    @Column(name = "queued_at")
    private Instant queuedAt;
    /** The job's {@code send_at}: not sent before it; null for a job that goes at once. */
    @Column(name = "send_at")
    private Instant sendAt;
    /** The job's {@code ordering_key}, null for a job ordered behind nothing. */
    @Column(name = "ordering_key")
    private String orderingKey;
    /** Its place in its key on its queue, taken at the door; null without a key. */
    @Column(name = "key_seq")
    private Long keySeq;
    /**
     * When the delivery watch is next to look at this job for silence ({@code reconcile.DeliveryWatch}): its send,
     * then later for a provider with a longer limit; null once there is nothing more to look for.
     */
    @Column(name = "silence_check_at")
    private Instant silenceCheckAt;

    protected MailJob() {
    }

    public Long getId() { return id; }
    public String getQueue() { return queue; }
    public String getMessageId() { return messageId; }
    public String getIdempotencyKey() { return idempotencyKey; }
    public String getTenant() { return tenant; }
    public String getCampaignId() { return campaignId; }
    public String getCategory() { return category; }
    public JobState getState() { return state; }
    public String getProvider() { return provider; }
    public String getProviderMessageId() { return providerMessageId; }
    public int getAttemptCount() { return attemptCount; }
    public String getTraceId() { return traceId; }
    public String getJmsMessageId() { return jmsMessageId; }
    public Instant getExpiresAt() { return expiresAt; }
    public Instant getReceivedAt() { return receivedAt; }
    public Instant getUpdatedAt() { return updatedAt; }
    public Instant getSentAt() { return sentAt; }
    public Instant getReplayedAt() { return replayedAt; }
    public String getSubject() { return subject; }
    public String getTemplateId() { return templateId; }
    public Instant getQueuedAt() { return queuedAt; }
    public Instant getSendAt() { return sendAt; }
    public String getOrderingKey() { return orderingKey; }
    public Long getKeySeq() { return keySeq; }
    public Instant getSilenceCheckAt() { return silenceCheckAt; }

    void placed(String orderingKey, long keySeq) {
        this.orderingKey = orderingKey;
        this.keySeq = keySeq;
    }

    /** The delivery watch looks at this job again at {@code at} (null: never again). */
    public void silenceCheckAt(Instant at) {
        this.silenceCheckAt = at;
    }

    /** The largest subject kept ({@code mail_job.subject}); the job schema allows 998 characters. */
    static final int MAX_SUBJECT = 1000;

    /** {@code subject} as the row keeps it: bounded like the column. */
    static String subject(String subject) {
        return subject == null || subject.length() <= MAX_SUBJECT ? subject : subject.substring(0, MAX_SUBJECT);
    }

    void moveTo(JobState next, Instant at) {
        this.state = next;
        this.updatedAt = at;
    }

    void attemptStarted(String provider, String jmsMessageId, Instant at) {
        this.attemptCount++;
        this.provider = provider;
        this.jmsMessageId = jmsMessageId;
        moveTo(JobState.sending, at);
    }

    void sent(String providerMessageId, Instant at) {
        this.providerMessageId = providerMessageId;
        this.sentAt = at;
        this.silenceCheckAt = at;
        moveTo(JobState.sent_to_provider, at);
    }

    /** A redrive put a new copy of the job on its queue: it starts again, with fresh retry budgets. */
    void replayed(String jmsMessageId, Instant at) {
        this.jmsMessageId = jmsMessageId;
        this.replayedAt = at;
        moveTo(JobState.received, at);
    }

    void ownedBy(String jmsMessageId) {
        this.jmsMessageId = jmsMessageId;
    }
}
