package dev.mailroom.alert;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Whether the attempt outcomes a node knows but could not record ({@code send.LateOutcomes}) deserve an alert, from
 * what waits now and when the alert was last raised. A database outage that heals is recorded within seconds of its
 * end and its stopped line has already paged, so the alert waits until the oldest outcome has waited longer than
 * {@code after}: what is left then is a record that fails for a reason of its own, or an outage long enough that
 * someone may be about to restart the node. While it lasts it is raised again every {@code after}, since an in-app
 * alert ends {@code mailroom.alerts.resolve-after} after its last occurrence; once nothing that old waits, it is resolved.
 */
public final class UnrecordedOutcomesRule {

    /**
     * @param waiting     how many outcomes wait on this node
     * @param oldestSince since when the oldest has waited; null when none waits
     * @param raisedAt    when the alert was last raised; null when it is not raised (never, or resolved since)
     * @param after       how long the oldest may wait before the alert
     */
    public record Facts(int waiting, Instant oldestSince, Instant raisedAt, Instant now, Duration after) {
        public Facts {
            Objects.requireNonNull(now, "now");
            Objects.requireNonNull(after, "after");
        }
    }

    /** What to do. */
    public sealed interface Action permits Raise, Quiet, Resolve {
    }

    /** Raise the alert: {@code count} outcomes wait, the oldest for {@code oldest}. */
    public record Raise(int count, Duration oldest) implements Action {
    }

    /** Nothing to say: nothing is overdue and nothing was raised, or it was raised less than {@code after} ago. */
    public record Quiet() implements Action {
    }

    /** What had waited too long is recorded: the alert is over (a new overdue one raises it afresh). */
    public record Resolve() implements Action {
    }

    private static final Quiet QUIET = new Quiet();
    private static final Resolve RESOLVE = new Resolve();

    private UnrecordedOutcomesRule() {
    }

    public static Action decide(Facts f) {
        Objects.requireNonNull(f, "facts");
        Duration oldest = f.oldestSince() == null ? Duration.ZERO : Duration.between(f.oldestSince(), f.now());
        boolean overdue = f.waiting() > 0 && oldest.compareTo(f.after()) > 0;
        if (!overdue) {
            return f.raisedAt() == null ? QUIET : RESOLVE;
        }
        if (f.raisedAt() == null || !f.now().isBefore(f.raisedAt().plus(f.after()))) {
            return new Raise(f.waiting(), oldest);
        }
        return QUIET;
    }
}
