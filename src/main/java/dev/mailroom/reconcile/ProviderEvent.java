package dev.mailroom.reconcile;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** One verified webhook call as it arrived (the inbox); the reconciliation job reads it later. */
@Entity
@Table(name = "provider_event")
public class ProviderEvent {

    public static final String RECEIVED = "received";

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;
    private String profile;
    @Column(name = "dedupe_key")
    private String dedupeKey;
    @Column(name = "received_at")
    private Instant receivedAt;
    private byte[] body;
    private String status;
    @Column(name = "applied_at")
    private Instant appliedAt;
    private String detail;

    protected ProviderEvent() {
    }

    public ProviderEvent(String profile, String dedupeKey, Instant receivedAt, byte[] body) {
        this.profile = profile;
        this.dedupeKey = dedupeKey;
        this.receivedAt = receivedAt;
        this.body = body.clone();
        this.status = RECEIVED;
    }

    public Long getId() { return id; }
    public String getProfile() { return profile; }
    public String getDedupeKey() { return dedupeKey; }
    public Instant getReceivedAt() { return receivedAt; }
    public byte[] getBody() { return body.clone(); }
    public String getStatus() { return status; }
    public Instant getAppliedAt() { return appliedAt; }
    public String getDetail() { return detail; }

    /** The reconciliation job is done with this event: {@code applied}, {@code unmatched} or {@code unreadable}. */
    void done(String outcome, String why, Instant at) {
        this.status = outcome;
        this.detail = why == null || why.length() <= 2000 ? why : why.substring(0, 2000);
        this.appliedAt = at;
    }
}
