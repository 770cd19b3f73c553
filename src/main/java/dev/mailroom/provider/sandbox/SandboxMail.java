package dev.mailroom.provider.sandbox;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** A mail the sandbox provider would have sent. */
@Entity
@Table(name = "sandbox_mail")
public class SandboxMail {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;
    @Column(name = "idempotency_key")
    private String idempotencyKey;
    @Column(name = "message_id")
    private String messageId;
    @Column(name = "from_address")
    private String fromAddress;
    private String recipients;
    private String subject;
    @Column(name = "text_body")
    private String textBody;
    @Column(name = "html_body")
    private String htmlBody;
    @Column(name = "recorded_at")
    private Instant recordedAt;

    protected SandboxMail() {
    }

    SandboxMail(String idempotencyKey, String messageId, String fromAddress, String recipients, String subject,
                String textBody, String htmlBody, Instant recordedAt) {
        this.idempotencyKey = idempotencyKey;
        this.messageId = messageId;
        this.fromAddress = fromAddress;
        this.recipients = recipients;
        this.subject = subject;
        this.textBody = textBody;
        this.htmlBody = htmlBody;
        this.recordedAt = recordedAt;
    }

    public Long getId() { return id; }
    public String getIdempotencyKey() { return idempotencyKey; }
    public String getMessageId() { return messageId; }
    public String getFromAddress() { return fromAddress; }
    public String getRecipients() { return recipients; }
    public String getSubject() { return subject; }
    public String getTextBody() { return textBody; }
    public String getHtmlBody() { return htmlBody; }
    public Instant getRecordedAt() { return recordedAt; }
}
