package dev.mailroom.suppression;

import io.micrometer.core.instrument.MeterRegistry;
import jakarta.persistence.EntityManager;
import java.time.Clock;

/** A {@link SuppressionList} on a component test's entity manager, for tests of the packages above it. */
public final class SuppressionLists {

    private SuppressionLists() {
    }

    public static SuppressionList on(EntityManager em, Clock clock, MeterRegistry meters) {
        SuppressionList l = new SuppressionList();
        l.em = em;
        l.clock = clock;
        l.meters = meters;
        return l;
    }
}
