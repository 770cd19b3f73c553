package dev.mailroom.ops.testing;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.Typed;
import java.time.Clock;

/**
 * In the testing WAR, the one clock is a {@link MovableClock}: this alternative (enabled by its priority) wins
 * over {@code platform.ClockProducer}'s, so every time-dependent decision reads the clock the tests move.
 */
@ApplicationScoped
@Alternative
@Priority(1000)
public class TestingClock {

    private final MovableClock clock = new MovableClock(Clock.systemUTC());

    @Produces
    @jakarta.inject.Singleton
    Clock clock() {
        return clock;
    }

    @Produces
    @jakarta.inject.Singleton
    @Typed(MovableClock.class)
    MovableClock movableClock() {
        return clock;
    }
}
