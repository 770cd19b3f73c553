package dev.mailroom.stopline;

import dev.mailroom.recoverability.FailureClass;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/** One fact about a send queue's world, as the send path, the breakers, the dead-letter window or the probe saw it. */
public sealed interface LineSignal {

    /**
     * A provider answered a call of this queue (a delivery's or a probe's).
     *
     * @param failureClass null when it accepted the mail
     */
    record ProviderAnswered(String provider, FailureClass failureClass, String detail) implements LineSignal {
        public boolean accepted() {
            return failureClass == null;
        }
    }

    /** The circuit breakers of the queue's chain changed: {@code allOpen} whether every one of them is open now. */
    record ChainBreakers(boolean allOpen, String detail) implements LineSignal { }

    /** The dead-letter-rate window of the queue tripped. */
    record DeadLetterRateTripped(String detail) implements LineSignal { }

    /** The probe's tick: a dead-letter-rate pause restarts once it has lasted {@code restartAfter}. */
    record RestartCheck(Instant now, Duration restartAfter) implements LineSignal {
        public RestartCheck {
            Objects.requireNonNull(now, "now");
            Objects.requireNonNull(restartAfter, "restartAfter");
        }
    }

    /** A delivery or the health check could not reach the database. */
    record DatabaseUnreachable(String detail) implements LineSignal { }

    /** The database answered the health check. */
    record DatabaseAnswered() implements LineSignal { }

    /** An operator paused the queue; {@code why} as they said it, or null. */
    record OperatorPaused(String actor, String why) implements LineSignal {
        public OperatorPaused {
            Objects.requireNonNull(actor, "actor");
            why = why == null || why.isBlank() ? null : why.strip();
        }

        public OperatorPaused(String actor) {
            this(actor, null);
        }
    }

    /** An operator resumed the queue, whatever stopped it. */
    record OperatorResumed(String actor) implements LineSignal {
        public OperatorResumed {
            Objects.requireNonNull(actor, "actor");
        }
    }
}
