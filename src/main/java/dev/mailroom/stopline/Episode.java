package dev.mailroom.stopline;

import java.time.Instant;
import java.util.Objects;

/**
 * One outage of a send queue's line, from its first stop to the proof that it is over: the first cause, when it
 * began, and how many probes failed in it. A line that restarts and stops again in the same outage stays in its
 * episode, so an operator still sees when the outage began and what began it.
 *
 * @param firstReason  what stopped the line first in this outage
 * @param firstDetail  what was seen then (the provider's answer, ...)
 * @param start        when the outage began
 * @param failedProbes probes (a head-job probe, or a restart of the line) that failed in this outage
 * @param restartedAt  null while the line is stopped; when it restarted without proof that the outage is over
 *                     (an operator's resume, a breaker half-open, a restart time), so a stop soon after continues it
 */
public record Episode(PauseReason firstReason, String firstDetail, Instant start, int failedProbes,
                      Instant restartedAt) {

    public Episode {
        Objects.requireNonNull(firstReason, "firstReason");
        Objects.requireNonNull(start, "start");
    }

    static Episode began(PauseReason reason, String detail, Instant at) {
        return new Episode(reason, detail, at, 0, null);
    }

    Episode probeFailed() {
        return new Episode(firstReason, firstDetail, start, failedProbes + 1, restartedAt);
    }

    Episode restarted(Instant at) {
        return new Episode(firstReason, firstDetail, start, failedProbes, at);
    }

    /** The restart was a probe too, and it failed: the line stopped again. */
    Episode stoppedAgain() {
        return new Episode(firstReason, firstDetail, start, failedProbes + 1, null);
    }
}
