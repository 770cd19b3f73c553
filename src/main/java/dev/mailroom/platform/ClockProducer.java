package dev.mailroom.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;
import java.time.Duration;

/**
 * The one clock every time-dependent decision reads (the testing WAR replaces it with a clock the tests move,
 * see {@code ops.testing}). UTC, to the microsecond: what the databases store, so an instant written to a row and
 * the same instant on a JMS property or in an API answer are equal.
 */
@ApplicationScoped
public class ClockProducer {

    private final Clock clock = Clock.tick(Clock.systemUTC(), Duration.ofNanos(1_000));

    @Produces
    @jakarta.inject.Singleton
    Clock clock() {
        return clock;
    }
}
