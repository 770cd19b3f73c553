package dev.mailroom.stopline;

import java.time.Duration;
import java.util.Objects;

/**
 * When a stopped line may stop its queue's consumers. Pure. Stopping them tears the resource adapter's sessions down,
 * and a delivery still running after the broker client's call timeout is interrupted and its session closed under it
 * (its message then stays held by the broker). So the consumers stop once the deliveries that were under way when the
 * line stopped have ended (those that came after only meet the closed gate and put their job back); after
 * {@code mailroom.stop-the-line.drain-timeout} they stop anyway, for a delivery that never ends must not keep
 * the line taking jobs.
 */
public final class ConsumerStop {

    private ConsumerStop() {
    }

    /** What the switch does now. */
    public sealed interface Decision {
        /** No delivery from before the stop is under way: stop the consumers. */
        record Now() implements Decision { }

        /** {@code underWay} deliveries from before the stop have not ended: wait for them. */
        record Wait(int underWay, Duration left) implements Decision { }

        /** The drain timeout passed with {@code underWay} of them still running: stop the consumers anyway. */
        record Anyway(int underWay) implements Decision { }
    }

    /**
     * {@code underWay}: deliveries of the queue begun before the line stopped and not ended; {@code sinceStop}: how
     * long the line has been stopped; {@code drainTimeout}: how long it waits for them at most.
     */
    public static Decision decide(int underWay, Duration sinceStop, Duration drainTimeout) {
        Objects.requireNonNull(sinceStop, "sinceStop");
        Objects.requireNonNull(drainTimeout, "drainTimeout");
        if (underWay <= 0) {
            return new Decision.Now();
        }
        Duration left = drainTimeout.minus(sinceStop.isNegative() ? Duration.ZERO : sinceStop);
        return left.isNegative() || left.isZero() ? new Decision.Anyway(underWay) : new Decision.Wait(underWay, left);
    }
}
