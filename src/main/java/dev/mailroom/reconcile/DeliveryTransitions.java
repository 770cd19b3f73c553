package dev.mailroom.reconcile;

import dev.mailroom.job.JobState;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;

/**
 * The pure decisions of what one normalised provider event does, table-tested in
 * {@code DeliveryTransitionsTest}; the reconciliation job only carries the answers out:
 * {@link #decide} per recipient the event speaks of, then {@link #rollUp} of the recipients to the job.
 * Both only ever go up by severity ({@link DeliveryState}), so any order of the same events ends in the
 * same recipient states and the same job state.
 */
public final class DeliveryTransitions {

    /** How long an event waits for its job (not yet committed, or still sending) before it is kept as unmatched. */
    public static final Duration MATCH_PATIENCE = Duration.ofMinutes(30);

    private DeliveryTransitions() {
    }

    public sealed interface Action {
    }

    /** Move the recipient to {@code to}; {@code suppress}: put the recipient on the tenant's suppression list. */
    public record Apply(DeliveryState to, boolean suppress) implements Action {
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
     * @param job             the job's state, empty when no job matches (yet)
     * @param knownRecipient  whether the event's recipient is one of the job's (or the event names none)
     * @param recipient       that recipient's delivery state so far, empty when no event has spoken of it
     * @param event           the normalised event type
     * @param waitingFor      how long since the event was received
     */
    public static Action decide(Optional<JobState> job, boolean knownRecipient, Optional<DeliveryState> recipient,
                                EventType event, Duration waitingFor) {
        if (job.isEmpty() || !job.get().finished()) {
            if (waitingFor.compareTo(MATCH_PATIENCE) >= 0) {
                return job.isEmpty() ? new Unmatched() : new RecordOnly("job never left its send path", suppresses(event));
            }
            return new Wait(job.isEmpty() ? "no job matches yet" : "job still " + job.get());
        }
        boolean suppress = suppresses(event);
        Optional<DeliveryState> target = DeliveryState.of(event);
        if (target.isEmpty()) {
            return new RecordOnly(event + " changes no delivery state", suppress);
        }
        if (!deliveryStateCanChange(job.get())) {
            return new RecordOnly("job is " + job.get() + ", not a sent job", suppress);
        }
        if (!knownRecipient) {
            return new RecordOnly("not a recipient of this job", false);
        }
        if (!target.get().worseThan(recipient)) {
            return new RecordOnly("recipient is already " + recipient.orElseThrow(), suppress);
        }
        return new Apply(target.get(), suppress);
    }

    /**
     * The job's state given its recipients' delivery states: the worst of them ({@code deferred} says only
     * that the provider has the mail, which settles an {@code unknown} job as {@code sent_to_provider}); never
     * lower than the job already is, and only for a sent (or maybe sent) job.
     */
    public static JobState rollUp(JobState job, Collection<DeliveryState> recipients) {
        if (!deliveryStateCanChange(job)) {
            return job;
        }
        Optional<DeliveryState> worst = recipients.stream().max(Enum::compareTo);
        if (worst.isEmpty()) {
            return job;
        }
        JobState target = switch (worst.get()) {
            case deferred -> JobState.sent_to_provider;
            case delivered -> JobState.delivered;
            case bounced -> JobState.bounced;
            case complained -> JobState.complained;
        };
        return rank(target) > rank(job) ? target : job;
    }

    /** A hard bounce or a complaint puts the recipient on the suppression list. */
    static boolean suppresses(EventType event) {
        return SuppressionCauses.of(event, null).isPresent();
    }

    /** Sent (or maybe sent) jobs take delivery news; an unknown job is settled by it. */
    private static boolean deliveryStateCanChange(JobState state) {
        return state == JobState.sent_to_provider || state == JobState.unknown || rank(state) > 0;
    }

    private static int rank(JobState state) {
        return switch (state) {
            case unknown -> -1;
            case delivered -> 1;
            case bounced -> 2;
            case complained -> 3;
            default -> 0;
        };
    }
}
