package dev.mailroom.provider;

import java.time.Instant;

/**
 * CDI event: a provider's circuit breaker changed state.
 *
 * @param provider    the provider instance's name
 * @param state       {@code "closed"}, {@code "open"} or {@code "half_open"}
 * @param at          when it changed
 * @param lastFailure what the last failure was, or null
 */
public record BreakerStateChanged(String provider, String state, Instant at, String lastFailure) {
}
