package dev.mailroom.ops.jmx;

/** One provider's circuit breaker, read-only: {@code mailroom:type=ProviderBreaker,provider=<name>}. */
public interface ProviderBreakerMBean {

    String getProvider();

    String getKind();

    /** {@code closed}, {@code open} or {@code half_open}. */
    String getBreakerState();

    /** Since when (ISO-8601). */
    String getSince();

    /** The last failure counted against the breaker, or null. */
    String getLastFailure();

    double getRateLimitPerSecond();
}
