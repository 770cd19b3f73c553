package dev.mailroom.job;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Column;
import java.time.Instant;

/** One entry of a job's timeline (shown by {@code GET /api/v1/jobs/{id}}): what happened, when, who did it. */
@Entity
@Table(name = "job_event")
public class JobEvent {

    public static final String SYSTEM = "system";
    private static final int MAX_DETAIL = 4000;

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;
    @Column(name = "job_id")
    private Long jobId;
    private Instant at;
    private String type;
    private String detail;
    private String actor;

    protected JobEvent() {
    }

    public JobEvent(Long jobId, Instant at, String type, String detail, String actor) {
        this.jobId = jobId;
        this.at = at;
        this.type = type;
        this.detail = detail == null || detail.length() <= MAX_DETAIL ? detail : detail.substring(0, MAX_DETAIL);
        this.actor = actor;
    }

    public Long getId() { return id; }
    public Long getJobId() { return jobId; }
    public Instant getAt() { return at; }
    public String getType() { return type; }
    public String getDetail() { return detail; }
    public String getActor() { return actor; }
}
