package dev.mailroom.job;

import java.util.ArrayList;
import java.util.List;

/**
 * Timeline entries an admission in the delivery's transaction decided and left for the attempt's outcome to write
 * ({@link JobLedger#beginInTheDelivery}): both commit with the delivery, so writing them together is one insert
 * instead of two, and nothing outside the transaction can tell the difference. Taken once: a second outcome of the
 * same attempt writes none of them again.
 */
public final class UnwrittenEntries {

    /** An admission that wrote its entries itself. */
    public static final UnwrittenEntries NONE = new UnwrittenEntries(List.of());

    private List<JobEvent> entries;

    private UnwrittenEntries(List<JobEvent> entries) {
        this.entries = entries;
    }

    static UnwrittenEntries of(List<JobEvent> entries) {
        return entries.isEmpty() ? NONE : new UnwrittenEntries(new ArrayList<>(entries));
    }

    /** The entries, in the order they happened, and none from now on. */
    synchronized List<JobEvent> take() {
        List<JobEvent> taken = entries;
        entries = List.of();
        return taken;
    }

    @Override
    public String toString() {
        return "UnwrittenEntries" + entries.stream().map(JobEvent::getType).toList();
    }
}
