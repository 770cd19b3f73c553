package dev.mailroom.recoverability;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The decision before a send, beside {@link RecoverabilityPolicy} (the decision after a failure): a pure
 * function of the facts the send path and the ledger gathered. It decides; it never reads, sends,
 * schedules or writes.
 *
 * <p>{@link #decide}, first matching row wins:
 * <ol>
 *   <li>the job itself is wrong (bytes, schema, a header Mailroom owns, its template):
 *       {@code Poison(reason)}</li>
 *   <li>the job is already finished: {@code AlreadyFinished} (a redelivery never sends twice; this is also
 *       the redelivery after a broker failover rolled back a delivery whose acceptance the ledger had already
 *       committed on its own: sent, not unknown)</li>
 *   <li>another JMS message owns the job: {@code DuplicateMessage} ({@link #ownership} says whose the job is: a copy
 *       descended from the owner through put-backs nobody recorded owns it)</li>
 *   <li>its last attempt passed the point of no return, its worker died, and that provider cannot drop a
 *       duplicate ({@link ProviderTraits#mayResendAmbiguous()}, the same rule as the call-time path):
 *       {@code Unknown}; a deduping provider, or an attempt that never passed the point, goes on</li>
 *   <li>its validity window is over ({@link ValidityCheck}): {@code Expired}</li>
 *   <li>its send time is ahead ({@code send_at}): {@code Expired} when its window ends before then (it could never
 *       go), else {@code Scheduled(sendAt)}: it waits on the broker, before the key is claimed</li>
 *   <li>no rate-limit permit within the pacing bound: {@code PutBack(}{@value #PUT_BACK_SECONDS}{@code  s)},
 *       before the key is claimed</li>
 *   <li>otherwise {@code Proceed}: claim the key ({@link #claim}), start an attempt</li>
 * </ol>
 *
 * <p>{@link #claim}: a key whose holder ended without any provider taking the mail (discarded,
 * expired, suppressed, dead-lettered and that dead letter discarded) may be taken over by a later job with the
 * same key; a holder that was sent, is {@code unknown}, is in flight, has a dead letter still open,
 * or has an attempt that may have reached its provider keeps it.
 */
public final class AdmissionPolicy {

    static final int PUT_BACK_SECONDS = 2;
    /** How long a job that could not get a rate-limit permit waits on the broker. */
    public static final Duration RATE_LIMIT_PUT_BACK = Duration.ofSeconds(PUT_BACK_SECONDS);

    /** States in which the holder's send is still going on. */
    static final Set<String> IN_FLIGHT = Set.of("received", "scheduled", "sending", "retry_scheduled",
            "waiting_for_key");
    /** States in which a provider took the mail. */
    static final Set<String> SENT = Set.of("sent_to_provider", "delivered", "bounced", "complained");
    /** States in which the holder ended without any provider taking the mail. */
    static final Set<String> ENDED_UNSENT = Set.of("discarded", "dead_lettered", "suppressed", "cancelled");

    private AdmissionPolicy() {
    }

    public static Admission decide(AdmissionFacts f) {
        Objects.requireNonNull(f, "facts");
        if (f.rejection() != null) {
            return new Admission.Poison(f.rejection().reason(), f.rejection().detail());
        }
        if (f.finished()) {
            return new Admission.AlreadyFinished(f.state());
        }
        if (!f.ownedByDelivery()) {
            return new Admission.DuplicateMessage();
        }
        AdmissionFacts.Interrupted i = f.interrupted();
        if (i != null && i.passedPointOfNoReturn() && !i.provider().mayResendAmbiguous()) {
            return new Admission.Unknown(i.attemptNumber(), i.provider().name());
        }
        if (ValidityCheck.expired(f.expiresAt(), f.now())) {
            return new Admission.Expired(f.expiresAt());
        }
        if (f.sendAt() != null && f.sendAt().isAfter(f.now())) {
            if (ValidityCheck.expired(f.expiresAt(), f.sendAt())) {
                return new Admission.Expired(f.expiresAt(), f.sendAt());
            }
            return new Admission.Scheduled(f.sendAt());
        }
        if (!f.permitGranted()) {
            return new Admission.PutBack(RATE_LIMIT_PUT_BACK);
        }
        return new Admission.Proceed();
    }

    /**
     * Whose the job is, for {@link AdmissionFacts#ownedByDelivery}: the delivery {@code delivery} owns it when the job's
     * row names it or nobody ({@code owner} null); a delivery whose descent ({@code descendsFrom}, oldest first) holds the
     * owner descends from it through put-backs that were not recorded (the line stopped for the database) and takes it
     * over; any other delivery is a duplicate (a producer sending the job's message_id again must not take it over).
     */
    public static Ownership ownership(String owner, String delivery, List<String> descendsFrom) {
        // a message may come without a JMS message id (an AMQP sender that sets none): a job it made is nobody's
        if (owner == null || owner.equals(delivery)) {
            return new Ownership.Owner();
        }
        if (delivery == null) {
            return new Ownership.Other(owner);
        }
        int at = descendsFrom.lastIndexOf(owner);
        return at < 0 ? new Ownership.Other(owner) : new Ownership.Descendant(owner, delivery, descendsFrom.size() - at);
    }

    public static ClaimDecision claim(ClaimFacts f) {
        Objects.requireNonNull(f, "facts");
        if (f.ownerJobId() == f.jobId()) {
            return new ClaimDecision.Held();
        }
        String state = f.ownerState();
        if (SENT.contains(state)) {
            return new ClaimDecision.Kept(f.ownerJobId(), "it was sent");
        }
        if ("unknown".equals(state)) {
            return new ClaimDecision.Kept(f.ownerJobId(), "it may have been sent: unknown");
        }
        if (IN_FLIGHT.contains(state)) {
            return new ClaimDecision.Kept(f.ownerJobId(), "it is in flight (" + state + ")");
        }
        if (!ENDED_UNSENT.contains(state)) {
            // bounced_permanent (the recipient refuses for good), duplicate_suppressed, anything new: keep
            return new ClaimDecision.Kept(f.ownerJobId(), "it is " + state);
        }
        if (f.ownerMayHaveReachedProvider()) {
            return new ClaimDecision.Kept(f.ownerJobId(), "it is " + state + " but an attempt may have reached the provider");
        }
        if (f.ownerDeadLetterPending()) {
            return new ClaimDecision.Kept(f.ownerJobId(), "its dead letter is still open");
        }
        return new ClaimDecision.TakeOver(f.ownerJobId(), "it ended " + state + " without any provider taking the mail");
    }
}
