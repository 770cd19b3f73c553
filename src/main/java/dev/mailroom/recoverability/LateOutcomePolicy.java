package dev.mailroom.recoverability;

import java.util.Objects;

/**
 * What a worker that knows how its attempt ended, but could not record it because the database did not answer,
 * does once the database answers again. Two things a worker can know and fail to record:
 * <ul>
 *   <li>{@link Known#NOT_WRITTEN}: the commit of its point of no return failed, so it never wrote the mail; the
 *       commit may still have landed (its answer was lost, not its request), and then a redelivery would find the
 *       attempt past its point of no return and hold the job {@code unknown} although nothing reached the provider.</li>
 *   <li>{@link Known#ACCEPTED}: the provider accepted the mail and the acceptance's own commit failed; a redelivery
 *       would hold the job {@code unknown} although the provider has it.</li>
 * </ul>
 * The redelivery may come before or after the late record, on this node or another: the decision reads the job as
 * it is then (under its row lock) and only ever settles what the worker's knowledge settles.
 */
public final class LateOutcomePolicy {

    /** What the worker knows of its attempt. */
    public enum Known { NOT_WRITTEN, ACCEPTED }

    /**
     * @param attemptOpen            the attempt is not finished yet (no redelivery closed it)
     * @param jobState               the job's state now
     * @param unknownFromThisAttempt the job is {@code unknown} and this attempt is its last one (a redelivery held it
     *                               as unknown because of this attempt)
     */
    public record Facts(Known known, boolean attemptOpen, String jobState, boolean unknownFromThisAttempt) {
        public Facts {
            Objects.requireNonNull(known, "known");
            Objects.requireNonNull(jobState, "jobState");
        }
    }

    /** What to carry out. */
    public sealed interface Action {
        String describe();
    }

    /** The attempt's point of no return is taken back: the redelivery to come finds it never reached the provider. */
    public record TakeBack() implements Action {
        public String describe() {
            return "point of no return taken back: the worker never wrote the mail";
        }
    }

    /** The job was held {@code unknown} for this attempt, which never wrote the mail: it is sent again, once. */
    public record SendAgain() implements Action {
        public String describe() {
            return "sent again: held unknown for an attempt whose worker never wrote the mail";
        }
    }

    /** The acceptance is recorded now: the job is sent (an {@code unknown} held for this attempt is settled). */
    public record RecordSent() implements Action {
        public String describe() {
            return "acceptance recorded late: the provider accepted the mail";
        }
    }

    /** The job went on without this knowledge (an operator, another attempt): nothing to change. */
    public record Nothing(String why) implements Action {
        public String describe() {
            return "nothing to do: " + why;
        }
    }

    private LateOutcomePolicy() {
    }

    public static Action decide(Facts f) {
        Objects.requireNonNull(f, "facts");
        if (f.known() == Known.ACCEPTED) {
            if (AdmissionPolicy.SENT.contains(f.jobState())) {
                return new Nothing("the job is already " + f.jobState());
            }
            if (f.attemptOpen() || f.unknownFromThisAttempt()) {
                return new RecordSent();
            }
            return new Nothing("the job went on as " + f.jobState() + " after this attempt was closed");
        }
        if (f.attemptOpen()) {
            return new TakeBack();
        }
        if (f.unknownFromThisAttempt()) {
            return new SendAgain();
        }
        return new Nothing("the job went on as " + f.jobState() + " after this attempt was closed");
    }
}
