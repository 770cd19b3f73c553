package dev.mailroom.recoverability;

import java.time.Instant;
import java.util.Objects;

/**
 * What is known about one delivery of a job when it comes up for sending: everything
 * {@link AdmissionPolicy#decide} needs, gathered by the send path and the ledger (which lock the job's
 * row while they do), nothing looked up by the policy itself.
 *
 * @param rejection        the job itself is wrong (bytes, schema, a header Mailroom owns, its template):
 *                         it can never be sent as it is; null when it parsed and rendered. When set,
 *                         nothing else is known (there is no job to look up).
 * @param state            the job's state before this delivery (a {@code JobState} name)
 * @param finished         whether that state ends the send path ({@code JobState.finished()})
 * @param ownedByDelivery  whether this JMS message owns the job ({@link AdmissionPolicy#ownership}: it is the job's
 *                         current copy, or descends from it through put-backs nobody recorded); false when another
 *                         message with the same message_id does
 * @param interrupted      the job's last attempt, still open: its worker died during it; null if none
 * @param expiresAt        the end of the job's validity window, or null for none
 * @param now              the time of the decision
 * @param permitGranted    whether the provider's rate limiter granted a permit within the pacing bound
 * @param sendAt           the job's {@code send_at}: not sent before it; null for none
 */
public record AdmissionFacts(
        Rejection rejection,
        String state,
        boolean finished,
        boolean ownedByDelivery,
        Interrupted interrupted,
        Instant expiresAt,
        Instant now,
        boolean permitGranted,
        Instant sendAt) {

    /**
     * Why the job can never be sent as it is.
     *
     * @param reason machine-readable ({@code not_json}, {@code schema_violation}, {@code template_missing}...)
     * @param detail what exactly was wrong
     */
    public record Rejection(String reason, String detail) {
        public Rejection {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * An attempt whose worker died before it was finished.
     *
     * @param attemptNumber          its number
     * @param passedPointOfNoReturn  whether it had committed its point of no return (the provider may have the mail)
     * @param provider               the provider it went to, with what that provider can do
     */
    public record Interrupted(int attemptNumber, boolean passedPointOfNoReturn, ProviderTraits provider) {
        public Interrupted {
            Objects.requireNonNull(provider, "provider");
        }
    }

    /** The facts of a job without a send time. */
    public AdmissionFacts(Rejection rejection, String state, boolean finished, boolean ownedByDelivery,
                          Interrupted interrupted, Instant expiresAt, Instant now, boolean permitGranted) {
        this(rejection, state, finished, ownedByDelivery, interrupted, expiresAt, now, permitGranted, null);
    }

    public AdmissionFacts {
        if (rejection == null) {
            Objects.requireNonNull(state, "state");
            Objects.requireNonNull(now, "now");
        }
    }

    /** A delivery whose job cannot be read or rendered: nothing else is known. */
    public static AdmissionFacts rejected(String reason, String detail) {
        return new AdmissionFacts(new Rejection(reason, detail), null, false, false, null, null, null, false, null);
    }
}
