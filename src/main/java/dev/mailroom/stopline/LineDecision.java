package dev.mailroom.stopline;

import java.util.Objects;

/** What to do with a send queue's line after a {@link LineSignal}: decided by {@link StopLinePolicy}. */
public sealed interface LineDecision {

    /** Stop the line: pause the queue's consumers, record why, page. */
    record Pause(PauseReason reason, String detail) implements LineDecision {
        public Pause {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * Start the line again: resume the consumers, clear the record. {@code outageOver}: what lifted it shows the
     * cause is gone (the provider took a call, the database answered); otherwise (an operator's resume, a breaker
     * half-open, a restart time) the restart is a trial, and a stop soon after continues the same outage.
     */
    record Resume(String why, boolean outageOver) implements LineDecision {
        public Resume {
            Objects.requireNonNull(why, "why");
        }
    }

    /** Nothing changes. */
    record Keep() implements LineDecision { }
}
