package dev.mailroom.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;

/** The one clock every time-dependent decision reads, so tests can move time instead of sleeping. */
@ApplicationScoped
public class ClockProducer {

    private final MovableClock clock = new MovableClock(Clock.systemUTC());

    @Produces
    @jakarta.inject.Singleton
    Clock clock() {
        return clock;
    }

    @Produces
    @jakarta.inject.Singleton
    @jakarta.enterprise.inject.Typed(MovableClock.class)
    MovableClock movableClock() {
        return clock;
    }
}
