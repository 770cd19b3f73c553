package dev.mailroom.reconcile;

import dev.mailroom.job.JobState;
import java.time.Duration;
import java.util.Optional;

/**
 * The pure decision of what one normalised provider event does to its job (issue 11 §3–5): table-tested in
 * {@code DeliveryTransitionsTest}; the reconciliation job only carries the answer out.
 */
public final class DeliveryTransitions {

    /** How long an event waits for its job (not yet committed, or still sending) before it is kept as unmatched. */
    public static final Duration MATCH_PATIENCE = Duration.ofMinutes(30);

    private DeliveryTransitions() {
    }

    public sealed interface Action {
    }

    /** Move the job to {@code to}; {@code suppress}: put the recipient on the tenant's suppression list. */
    public record Apply(JobState to, boolean suppress) implements Action {
    }

    /** Put the event on the job's timeline only (no state change); {@code suppress} as above. */
    public record RecordOnly(String why, boolean suppress) implements Action {
    }

    /** The job is not there yet or still on its send path: try again later. */
    public record Wait(String why) implements Action {
    }

    /** Waited long enough: keep the event as unmatched (listed and counted). */
    public record Unmatched() implements Action {
    }

    /**
     * @param job         the job's state, empty when no job matches (yet)
     * @param event       the normalised event type
     * @param waitingFor  how long since the event was received
     */
    public static Action decide(Optional<JobState> job, EventType event, Duration waitingFor) {
        if (job.isEmpty() || !job.get().finished()) {
            if (waitingFor.compareTo(MATCH_PATIENCE) >= 0) {
                return job.isEmpty() ? new Unmatched() : new RecordOnly("job never left its send path", suppresses(event));
            }
            return new Wait(job.isEmpty() ? "no job matches yet" : "job still " + job.get());
        }
        boolean suppress = suppresses(event);
        Optional<JobState> target = target(event);
        if (target.isEmpty()) {
            return new RecordOnly(event + " changes no delivery state", suppress);
        }
        JobState current = job.get();
        if (!deliveryStateCanChange(current)) {
            return new RecordOnly("job is " + current + ", not a sent job", suppress);
        }
        if (rank(target.get()) <= rank(current)) {
            return new RecordOnly(current + " is as bad or worse than " + target.get(), suppress);
        }
        return new Apply(target.get(), suppress);
    }

    /** A hard bounce, a complaint or a provider's own suppression puts the recipient on the list ({@link SuppressionCauses}). */
    static boolean suppresses(EventType event) {
        return SuppressionCauses.of(event, null).isPresent();
    }

    private static Optional<JobState> target(EventType event) {
        return switch (event) {
            case delivered -> Optional.of(JobState.delivered);
            case bounced -> Optional.of(JobState.bounced);
            case complained -> Optional.of(JobState.complained);
            default -> Optional.empty();
        };
    }

    /** Sent (or maybe sent) jobs take delivery news; an unknown job is settled by it. */
    private static boolean deliveryStateCanChange(JobState state) {
        return state == JobState.sent_to_provider || state == JobState.unknown || rank(state) > 0;
    }

    private static int rank(JobState state) {
        return switch (state) {
            case delivered -> 1;
            case bounced -> 2;
            case complained -> 3;
            default -> 0;
        };
    }
}
