package dev.mailroom.stopline;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** A stopped line as recorded in {@code queue_pause} (V11), so a pause outlives a restart. */
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

    protected QueuePause() {
    }

    QueuePause(String queue, LineState state) {
        this.queue = queue;
        set(state);
    }

    void set(LineState state) {
        this.reason = state.reason().wireName();
        this.detail = state.detail() == null || state.detail().length() <= MAX_DETAIL ? state.detail()
                : state.detail().substring(0, MAX_DETAIL);
        this.pausedSince = state.since();
    }

    LineState state() {
        return LineState.stopped(PauseReason.fromWireName(reason), detail, pausedSince);
    }

    public String getQueue() { return queue; }
}
