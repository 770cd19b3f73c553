package dev.mailroom.ops.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/**
 * The system clock plus an offset that tests can move forward (retention, ages), so time-dependent
 * behaviour is tested by moving time, not by sleeping. Only in the testing WAR (see {@link TestingClock}).
 */
public final class MovableClock extends Clock {

    private final Clock base;
    private volatile Duration offset = Duration.ZERO;

    public MovableClock(Clock base) {
        this.base = base;
    }

    public Duration offset() {
        return offset;
    }

    public void offset(Duration offset) {
        if (offset.isNegative()) {
            throw new IllegalArgumentException("time only moves forward: " + offset);
        }
        this.offset = offset;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("Mailroom's clock is UTC");
    }

    /**
     * Now, to the microsecond: what the databases store, so an instant written to a row and the same
     * instant on a JMS property or in an API answer are equal.
     */
    @Override
    public Instant instant() {
        return base.instant().plus(offset).truncatedTo(ChronoUnit.MICROS);
    }
}
