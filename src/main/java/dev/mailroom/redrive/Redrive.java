package dev.mailroom.redrive;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** A plan and its run (one row: what runs is what was planned). */
@Entity
@Table(name = "redrive")
public class Redrive {

    public enum Status { planned, running, stopped, completed, interrupted, abandoned }

    public enum Action { replay, discard }

    @Id
    private String id;
    private String action;
    private String status;
    @Column(name = "created_by")
    private String createdBy;
    @Column(name = "created_at")
    private Instant createdAt;
    private String reason;
    @Column(name = "filter_json")
    private String filterJson;
    @Column(name = "sample_size")
    private int sampleSize;
    @Column(name = "sample_rate")
    private double sampleRate;
    private double rate;
    @Column(name = "sample_timeout")
    private String sampleTimeout;
    @Column(name = "skip_sample")
    private boolean skipSample;
    @Column(name = "cohort_count")
    private int cohortCount;
    @Column(name = "excluded_json")
    private String excludedJson;
    @Column(name = "phases_json")
    private String phasesJson;
    private String node;
    @Column(name = "started_by")
    private String startedBy;
    @Column(name = "started_at")
    private Instant startedAt;
    @Column(name = "finished_at")
    private Instant finishedAt;
    @Column(name = "stop_reason")
    private String stopReason;

    protected Redrive() {
    }

    Redrive(String id, Action action, String createdBy, Instant createdAt, String reason, String filterJson,
            RedriveRecord.Options options, int cohortCount, String excludedJson) {
        this.id = id;
        this.action = action.name();
        this.status = Status.planned.name();
        this.createdBy = createdBy;
        this.createdAt = createdAt;
        this.reason = reason;
        this.filterJson = filterJson;
        this.sampleSize = options.sampleSize();
        this.sampleRate = options.sampleRatePerSecond();
        this.rate = options.ratePerSecond();
        this.sampleTimeout = options.sampleTimeout();
        this.skipSample = options.skipSample();
        this.cohortCount = cohortCount;
        this.excludedJson = excludedJson;
    }

    void started(String by, String node, Instant at) {
        this.status = Status.running.name();
        this.startedBy = by;
        this.node = node;
        if (this.startedAt == null) {
            this.startedAt = at;
        }
        this.finishedAt = null;
    }

    void ended(Status end, String why, Instant at) {
        this.status = end.name();
        this.stopReason = why;
        this.finishedAt = at;
    }

    void phases(String json) {
        this.phasesJson = json;
    }

    Status statusValue() {
        return Status.valueOf(status);
    }

    Action actionValue() {
        return Action.valueOf(action);
    }

    RedriveRecord.Options options() {
        return new RedriveRecord.Options(sampleSize, sampleRate, rate, sampleTimeout, skipSample);
    }

    public String getId() { return id; }
    public String getAction() { return action; }
    public String getStatus() { return status; }
    public String getCreatedBy() { return createdBy; }
    public Instant getCreatedAt() { return createdAt; }
    public String getReason() { return reason; }
    public String getFilterJson() { return filterJson; }
    public int getCohortCount() { return cohortCount; }
    public String getExcludedJson() { return excludedJson; }
    public String getPhasesJson() { return phasesJson; }
    public String getNode() { return node; }
    public String getStartedBy() { return startedBy; }
    public Instant getStartedAt() { return startedAt; }
    public Instant getFinishedAt() { return finishedAt; }
    public String getStopReason() { return stopReason; }
}
