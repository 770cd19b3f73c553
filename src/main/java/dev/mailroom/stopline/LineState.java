package dev.mailroom.stopline;

import java.time.Instant;
import java.util.Objects;

/**
 * Whether a send queue's line is stopped, why and since when.
 *
 * @param reason null while running
 * @param detail what was seen (the provider's answer, the share of dead letters, the database error); null while running
 * @param since  when it stopped; null while running
 */
public record LineState(PauseReason reason, String detail, Instant since) {

    public static final LineState RUNNING = new LineState(null, null, null);

    public LineState {
        if (reason != null) {
            Objects.requireNonNull(since, "since");
        }
    }

    public static LineState stopped(PauseReason reason, String detail, Instant since) {
        return new LineState(Objects.requireNonNull(reason, "reason"), detail, since);
    }

    public boolean paused() {
        return reason != null;
    }
}
