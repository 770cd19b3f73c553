package dev.mailroom.job;

import jakarta.persistence.EntityManager;
import java.time.Clock;
import java.util.Optional;

/** A {@link JobLedger} on a component test's entity manager, for tests of the packages above {@code job}. */
public final class Ledgers {

    private Ledgers() {
    }

    public static JobLedger on(EntityManager em, Clock clock) {
        JobLedger l = new JobLedger();
        l.em = em;
        l.clock = clock;
        l.validity = new ValidityWindow(k -> Optional.empty());
        return l;
    }
}
