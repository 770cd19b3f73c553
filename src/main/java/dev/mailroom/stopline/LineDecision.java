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

    /** Start the line again: resume the consumers, clear the record. */
    record Resume(String why) implements LineDecision {
        public Resume {
            Objects.requireNonNull(why, "why");
        }
    }

    /** Nothing changes. */
    record Keep() implements LineDecision { }
}
