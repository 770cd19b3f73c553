package dev.mailroom.redrive;

import dev.mailroom.deadletter.DeadLetterFilter;

/**
 * What an operator asks for: {@code action} {@code replay} (default) or {@code discard}, a filter and the
 * run's options; null options take the configured defaults ({@code mailroom.redrive.*}). {@code reason}
 * says why (required for a discard). {@code skipSample} true runs a replay without a sample: it has to be
 * said, a {@code sample_size} of 0 alone is refused.
 */
public record RedriveRequest(String action, DeadLetterFilter filter, Integer sampleSize, Double sampleRatePerSecond,
                             Double ratePerSecond, String sampleTimeout, String reason, Boolean skipSample) {

    /** A request that does not ask to skip the sample. */
    public RedriveRequest(String action, DeadLetterFilter filter, Integer sampleSize, Double sampleRatePerSecond,
                          Double ratePerSecond, String sampleTimeout, String reason) {
        this(action, filter, sampleSize, sampleRatePerSecond, ratePerSecond, sampleTimeout, reason, null);
    }
}
