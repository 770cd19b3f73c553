package dev.mailroom.stopline;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** A stopped line and its outage as recorded in {@code queue_pause} (V11, V22), so a pause outlives a restart. */
@Entity
@Table(name = "queue_pause")
public class QueuePause {

    private static final int MAX_DETAIL = 2000;

    @Id
    private String queue;
    private String reason;
    private String detail;
    @Column(name = "paused_since")
    private Instant pausedSince;
    @Column(name = "first_reason")
    private String firstReason;
    @Column(name = "first_detail")
    private String firstDetail;
    @Column(name = "outage_since")
    private Instant outageSince;
    @Column(name = "failed_probes")
    private int failedProbes;

    protected QueuePause() {
    }

    QueuePause(String queue, LineState state) {
        this.queue = queue;
        set(state);
    }

    void set(LineState state) {
        this.reason = state.reason().wireName();
        this.detail = bounded(state.detail());
        this.pausedSince = state.since();
        Episode e = state.episode();
        this.firstReason = e.firstReason().wireName();
        this.firstDetail = bounded(e.firstDetail());
        this.outageSince = e.start();
        this.failedProbes = e.failedProbes();
    }

    LineState state() {
        PauseReason now = PauseReason.fromWireName(reason);
        Episode e = firstReason == null || outageSince == null ? null
                : new Episode(PauseReason.fromWireName(firstReason), firstDetail, outageSince, failedProbes, null);
        return new LineState(now, detail, pausedSince, e);
    }

    private static String bounded(String s) {
        return s == null || s.length() <= MAX_DETAIL ? s : s.substring(0, MAX_DETAIL);
    }

    public String getQueue() { return queue; }
}
