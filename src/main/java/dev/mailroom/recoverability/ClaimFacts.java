package dev.mailroom.recoverability;

/**
 * What is known about the job that holds an idempotency key when another job wants it: what
 * {@link AdmissionPolicy#claim} decides from. Gathered with the key's claim row locked, so two
 * claimants see the facts one after the other.
 *
 * @param jobId                     the job that wants the key
 * @param ownerJobId                the job that holds it
 * @param ownerState                the holder's state (a {@code JobState} name)
 * @param ownerMayHaveReachedProvider whether any attempt of the holder was accepted or passed its
 *                                  point of no return without a definite refusal
 * @param ownerDeadLetterPending    whether the holder has a dead letter still open or being replayed
 */
public record ClaimFacts(long jobId, long ownerJobId, String ownerState, boolean ownerMayHaveReachedProvider,
                         boolean ownerDeadLetterPending) {
}
