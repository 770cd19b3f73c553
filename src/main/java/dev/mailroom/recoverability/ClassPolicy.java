package dev.mailroom.recoverability;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The retry budget of one failure class on one queue: one row of the policy matrix.
 *
 * @param delays     the base delay before retry 1, 2, ...; when there are more retries than delays the
 *                   last one repeats. For {@code throttled} the delays used when the provider gave no
 *                   Retry-After (by throttle count); for {@code systemic} the pause before the job is tried
 *                   again (by pause count)
 * @param maxRetries how many retries the class may schedule; for {@code throttled} the throttle cap
 *                   ({@code max-throttles}); not used for {@code systemic}, which never ends in a dead letter
 * @param jitter     how the base delay is spread; for {@code throttled} only a default delay is jittered,
 *                   a provider's Retry-After is honoured as given
 */
public record ClassPolicy(List<Duration> delays, int maxRetries, Jitter jitter) {

    public ClassPolicy {
        Objects.requireNonNull(jitter, "jitter");
        delays = List.copyOf(Objects.requireNonNull(delays, "delays"));
        if (delays.isEmpty()) {
            throw new IllegalArgumentException("at least one delay is required");
        }
        for (Duration d : delays) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("every delay must be positive: " + d);
            }
        }
        if (maxRetries < 0) {
            throw new IllegalArgumentException("maxRetries must not be negative: " + maxRetries);
        }
    }

    /**
     * The base delay before the next try, given how many of this class's retries (or throttles, or
     * pauses) came before: {@code delays[n]}, the last delay once the list runs out.
     */
    public Duration baseDelay(int previous) {
        return delays.get(Math.min(Math.max(previous, 0), delays.size() - 1));
    }

    ClassPolicy withDelays(List<Duration> d) {
        return new ClassPolicy(d, maxRetries, jitter);
    }

    ClassPolicy withMaxRetries(int m) {
        return new ClassPolicy(delays, m, jitter);
    }

    ClassPolicy withJitter(Jitter j) {
        return new ClassPolicy(delays, maxRetries, j);
    }
}
