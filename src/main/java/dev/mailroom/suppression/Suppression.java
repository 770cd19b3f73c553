package dev.mailroom.suppression;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** One entry of the suppression list (table {@code suppression}, V9); inserted by {@link SuppressionList} only. */
@Entity
@Table(name = "suppression")
public class Suppression {

    @Id
    private Long id;
    private String tenant;
    private String address;
    private String reason;
    @Column(name = "cause_event_id")
    private Long causeEventId;
    @Column(name = "cause_job_id")
    private Long causeJobId;
    private String cause;
    @Column(name = "created_by")
    private String createdBy;
    @Column(name = "created_why")
    private String createdWhy;
    @Column(name = "created_at")
    private Instant createdAt;
    @Column(name = "lifted_at")
    private Instant liftedAt;
    @Column(name = "lifted_by")
    private String liftedBy;
    @Column(name = "lifted_why")
    private String liftedWhy;
    @Column(name = "active_key")
    private String activeKey;

    protected Suppression() {
    }

    public Long getId() { return id; }
    public String getTenant() { return tenant; }
    public String getAddress() { return address; }
    public String getReason() { return reason; }
    public Long getCauseEventId() { return causeEventId; }
    public Long getCauseJobId() { return causeJobId; }
    public String getCause() { return cause; }
    public String getCreatedBy() { return createdBy; }
    public String getCreatedWhy() { return createdWhy; }
    public Instant getCreatedAt() { return createdAt; }
    public Instant getLiftedAt() { return liftedAt; }
    public String getLiftedBy() { return liftedBy; }
    public String getLiftedWhy() { return liftedWhy; }

    public boolean active() {
        return liftedAt == null;
    }

    /** Lifted: kept with when, by whom and why; the address may be suppressed again (a new entry). */
    void lift(Instant at, String by, String why) {
        this.liftedAt = at;
        this.liftedBy = by;
        this.liftedWhy = why;
        this.activeKey = null;
    }
}
