package dev.mailroom.stopline;

import java.time.Instant;
import java.util.Objects;

/**
 * Whether a send queue's line is stopped, why and since when, and the outage it is part of.
 *
 * @param reason  what holds the line stopped now (the latest cause: it decides what lifts it); null while running
 * @param detail  what was seen (the provider's answer, the share of dead letters, the database error); null while running
 * @param since   when it stopped this time; null while running
 * @param episode the outage: its first cause and start, its failed probes. Never null while stopped; while running,
 *                non-null only for a line restarted without proof that the outage is over
 */
public record LineState(PauseReason reason, String detail, Instant since, Episode episode) {

    public static final LineState RUNNING = new LineState(null, null, null, null);

    public LineState {
        if (reason != null) {
            Objects.requireNonNull(since, "since");
            if (episode == null) {
                episode = Episode.began(reason, detail, since);
            }
        }
    }

    /** A line stopped in a new outage. */
    public static LineState stopped(PauseReason reason, String detail, Instant since) {
        return new LineState(Objects.requireNonNull(reason, "reason"), detail, since, null);
    }

    /** A line stopped again within {@code episode}. */
    static LineState stopped(PauseReason reason, String detail, Instant since, Episode episode) {
        return new LineState(Objects.requireNonNull(reason, "reason"), detail, since, episode);
    }

    /** A running line that restarted in {@code episode} and has not shown yet that the outage is over. */
    static LineState restarted(Episode episode) {
        return new LineState(null, null, null, Objects.requireNonNull(episode, "episode"));
    }

    public boolean paused() {
        return reason != null;
    }
}
