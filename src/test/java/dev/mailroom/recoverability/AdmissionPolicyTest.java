package dev.mailroom.recoverability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.recoverability.AdmissionFacts.Interrupted;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** {@link AdmissionPolicy}: every row of the admission table and of the idempotency-claim table. */
class AdmissionPolicyTest {

    private static final Instant NOW = Instant.parse("2025-03-01T12:00:00Z");
    private static final Instant LATER = NOW.plusSeconds(60);
    private static final ProviderTraits SMTP = new ProviderTraits("smtp", false);
    private static final ProviderTraits HTTP = new ProviderTraits("http", true);

    /** A delivery of a job in {@code state}, owned by it, no interrupted attempt, in its window, with a permit. */
    private static AdmissionFacts fresh(String state, boolean finished) {
        return new AdmissionFacts(null, state, finished, true, null, LATER, NOW, true);
    }

    private static AdmissionFacts with(AdmissionFacts f, boolean owned, Interrupted interrupted, Instant expiresAt,
                                       boolean permit) {
        return new AdmissionFacts(f.rejection(), f.state(), f.finished(), owned, interrupted, expiresAt, NOW, permit);
    }

    /** {@code f} with a send time and the window ending at {@code expiresAt}. */
    private static AdmissionFacts sendAt(AdmissionFacts f, Instant sendAt, Instant expiresAt) {
        return new AdmissionFacts(f.rejection(), f.state(), f.finished(), f.ownedByDelivery(), f.interrupted(), expiresAt,
                NOW, f.permitGranted(), sendAt);
    }

    static Stream<Arguments> admissionRows() {
        AdmissionFacts received = fresh("received", false);
        AdmissionFacts retry = fresh("retry_scheduled", false);
        Interrupted smtpPastPoint = new Interrupted(2, true, SMTP);
        Interrupted httpPastPoint = new Interrupted(2, true, HTTP);
        Interrupted smtpBeforePoint = new Interrupted(2, false, SMTP);
        return Stream.of(
                // 1. the job itself is wrong: poison, whatever else
                Arguments.of("poison", AdmissionFacts.rejected("not_json", "line 1"), new Admission.Poison("not_json", "line 1")),
                Arguments.of("template error", AdmissionFacts.rejected("template_missing", "no template x"),
                        new Admission.Poison("template_missing", "no template x")),
                // 2. already finished: a redelivery never sends twice (before ownership, expiry, anything)
                Arguments.of("sent", fresh("sent_to_provider", true), new Admission.AlreadyFinished("sent_to_provider")),
                // ... a redelivery after a broker failover rolled back the delivery that the provider accepted: the
                // acceptance committed on its own and closed the attempt, so nothing is interrupted and it is sent
                Arguments.of("accepted, then the broker failed over before the ack",
                        with(fresh("sent_to_provider", true), true, null, NOW, false),
                        new Admission.AlreadyFinished("sent_to_provider")),
                Arguments.of("unknown", with(fresh("unknown", true), false, smtpPastPoint, NOW, false),
                        new Admission.AlreadyFinished("unknown")),
                Arguments.of("discarded", fresh("discarded", true), new Admission.AlreadyFinished("discarded")),
                // 3. another JMS message owns the job
                Arguments.of("duplicate JMS message", with(received, false, null, NOW, false), new Admission.DuplicateMessage()),
                // 4. a crash after the point of no return: the one ambiguity rule
                Arguments.of("crash past the point, SMTP", with(retry, true, smtpPastPoint, NOW, false),
                        new Admission.Unknown(2, "smtp")),
                Arguments.of("crash past the point, deduping provider", with(retry, true, httpPastPoint, LATER, true),
                        new Admission.Proceed()),
                Arguments.of("crash before the point, SMTP", with(retry, true, smtpBeforePoint, LATER, true),
                        new Admission.Proceed()),
                // 5. expired: never sent late (the window is checked in ValidityCheck)
                Arguments.of("expired at the instant", with(received, true, null, NOW, true), new Admission.Expired(NOW)),
                Arguments.of("expired, crash before the point", with(retry, true, smtpBeforePoint, NOW.minusSeconds(1), true),
                        new Admission.Expired(NOW.minusSeconds(1))),
                Arguments.of("expired, no permit either", with(received, true, null, NOW, false), new Admission.Expired(NOW)),
                // 6. a send time ahead: it waits on the broker, before any claim (and before the rate limit)
                Arguments.of("send_at ahead", sendAt(received, LATER, null), new Admission.Scheduled(LATER)),
                Arguments.of("send_at ahead, no permit", sendAt(with(received, true, null, null, false), LATER, null),
                        new Admission.Scheduled(LATER)),
                Arguments.of("send_at ahead, window ends after it", sendAt(received, LATER, LATER.plusSeconds(1)),
                        new Admission.Scheduled(LATER)),
                Arguments.of("send_at ahead, window ends before it", sendAt(received, LATER, LATER.minusSeconds(1)),
                        new Admission.Expired(LATER.minusSeconds(1), LATER)),
                Arguments.of("send_at ahead, window ends at it", sendAt(received, LATER, LATER),
                        new Admission.Expired(LATER, LATER)),
                Arguments.of("send_at ahead, but another message owns the job", sendAt(with(received, false, null, null, true),
                        LATER, null), new Admission.DuplicateMessage()),
                Arguments.of("send_at ahead, cancelled", sendAt(fresh("cancelled", true), LATER, null),
                        new Admission.AlreadyFinished("cancelled")),
                Arguments.of("send_at now: goes", sendAt(received, NOW, null), new Admission.Proceed()),
                Arguments.of("send_at past: goes", sendAt(received, NOW.minusSeconds(3600), null), new Admission.Proceed()),
                Arguments.of("scheduled copy arrives on time", sendAt(fresh("scheduled", false), NOW, LATER),
                        new Admission.Proceed()),
                Arguments.of("scheduled copy arrives after its window", sendAt(fresh("scheduled", false), NOW.minusSeconds(1),
                        NOW), new Admission.Expired(NOW)),
                // 7. no rate-limit permit: back to the broker, before any claim
                Arguments.of("rate limit", with(received, true, null, LATER, false),
                        new Admission.PutBack(AdmissionPolicy.RATE_LIMIT_PUT_BACK)),
                Arguments.of("rate limit, no window", with(received, true, null, null, false),
                        new Admission.PutBack(AdmissionPolicy.RATE_LIMIT_PUT_BACK)),
                // 8. admitted
                Arguments.of("first delivery", received, new Admission.Proceed()),
                Arguments.of("no window", with(received, true, null, null, true), new Admission.Proceed()),
                Arguments.of("retry copy", retry, new Admission.Proceed()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("admissionRows")
    void admission(String row, AdmissionFacts facts, Admission expected) {
        assertThat(AdmissionPolicy.decide(facts)).isEqualTo(expected);
    }

    @Test
    void everyAdmissionIsReachable() {
        Set<Class<?>> reached = admissionRows().map(a -> a.get()[2].getClass()).collect(Collectors.toSet());
        assertThat(reached).containsExactlyInAnyOrder(Admission.class.getPermittedSubclasses());
    }

    // ---------------------------------------------------------------- ownership

    static Stream<Arguments> ownershipRows() {
        return Stream.of(
                Arguments.of("a new job: nobody owns it", null, "ID:m0", List.of(), new Ownership.Owner()),
                Arguments.of("the owner itself (a redelivery of it)", "ID:m0", "ID:m0", List.of(), new Ownership.Owner()),
                Arguments.of("a recorded copy: the row names it", "ID:r1", "ID:r1", List.of(), new Ownership.Owner()),
                // an AMQP sender may set no message id: the job it made is nobody's, as before any put-back existed
                Arguments.of("a message without a JMS id, on a job nobody owns", null, null, List.of(),
                        new Ownership.Owner()),
                Arguments.of("a message without a JMS id, on a job another owns", "ID:m0", null, List.of("ID:m0"),
                        new Ownership.Other("ID:m0")),
                // put back without a record while the database stopped the line: the copy proves its descent
                Arguments.of("the owner's copy, put back once without a record", "ID:m0", "ID:c1", List.of("ID:m0"),
                        new Ownership.Descendant("ID:m0", "ID:c1", 1)),
                Arguments.of("a copy of a copy: two put-backs down", "ID:m0", "ID:c2", List.of("ID:m0", "ID:c1"),
                        new Ownership.Descendant("ID:m0", "ID:c2", 2)),
                // a copy admitted (its admission committed on its own), rolled back, then put back again
                Arguments.of("the owner in the middle of the descent", "ID:c1", "ID:c3", List.of("ID:m0", "ID:c1", "ID:c2"),
                        new Ownership.Descendant("ID:c1", "ID:c3", 2)),
                // a producer sending the job's message_id again must never take the job over
                Arguments.of("another message with the same message_id", "ID:m0", "ID:p1", List.of(),
                        new Ownership.Other("ID:m0")),
                Arguments.of("another message, itself put back without a record", "ID:m0", "ID:p2", List.of("ID:p1"),
                        new Ownership.Other("ID:m0")),
                Arguments.of("a copy of a message the job no longer belongs to", "ID:r2", "ID:c2", List.of("ID:m0", "ID:c1"),
                        new Ownership.Other("ID:r2")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ownershipRows")
    void ownership(String row, String owner, String delivery, List<String> descendsFrom, Ownership expected) {
        assertThat(AdmissionPolicy.ownership(owner, delivery, descendsFrom)).isEqualTo(expected);
    }

    @Test
    void everyOwnershipIsReachableAndOnlyAnotherMessageIsADuplicate() {
        Set<Class<?>> reached = ownershipRows().map(a -> a.get()[4].getClass()).collect(Collectors.toSet());
        assertThat(reached).containsExactlyInAnyOrder(Ownership.class.getPermittedSubclasses());
        ownershipRows().map(a -> (Ownership) a.get()[4]).forEach(o -> assertThat(AdmissionPolicy.decide(
                with(fresh("retry_scheduled", false), o.owns(), null, LATER, true)))
                .as(o.toString()).isEqualTo(o instanceof Ownership.Other ? new Admission.DuplicateMessage()
                        : new Admission.Proceed()));
    }

    // ---------------------------------------------------------------- idempotency claims

    static Stream<Arguments> claimRows() {
        return Stream.of(
                // the job holds it already (a redelivery, a retry, a replay)
                Arguments.of(new ClaimFacts(7, 7, "retry_scheduled", true, false), new ClaimDecision.Held()),
                // the holder ended without any provider taking the mail: the key moves over
                Arguments.of(new ClaimFacts(8, 7, "discarded", false, false),
                        new ClaimDecision.TakeOver(7, "it ended discarded without any provider taking the mail")),
                Arguments.of(new ClaimFacts(8, 7, "dead_lettered", false, false),
                        new ClaimDecision.TakeOver(7, "it ended dead_lettered without any provider taking the mail")),
                Arguments.of(new ClaimFacts(8, 7, "suppressed", false, false),
                        new ClaimDecision.TakeOver(7, "it ended suppressed without any provider taking the mail")),
                // ... a suppressed job whose earlier attempt may have reached the provider keeps it
                Arguments.of(new ClaimFacts(8, 7, "suppressed", true, false),
                        new ClaimDecision.Kept(7, "it is suppressed but an attempt may have reached the provider")),
                // ... unless its dead letter may still be replayed
                Arguments.of(new ClaimFacts(8, 7, "dead_lettered", false, true),
                        new ClaimDecision.Kept(7, "its dead letter is still open")),
                // ... or an attempt may have reached the provider (an ambiguous retry, then expired)
                Arguments.of(new ClaimFacts(8, 7, "discarded", true, false),
                        new ClaimDecision.Kept(7, "it is discarded but an attempt may have reached the provider")),
                // sent: never again
                Arguments.of(new ClaimFacts(8, 7, "sent_to_provider", true, false), new ClaimDecision.Kept(7, "it was sent")),
                Arguments.of(new ClaimFacts(8, 7, "delivered", true, false), new ClaimDecision.Kept(7, "it was sent")),
                Arguments.of(new ClaimFacts(8, 7, "bounced", true, false), new ClaimDecision.Kept(7, "it was sent")),
                Arguments.of(new ClaimFacts(8, 7, "complained", true, false), new ClaimDecision.Kept(7, "it was sent")),
                // unknown: may have been sent
                Arguments.of(new ClaimFacts(8, 7, "unknown", true, false),
                        new ClaimDecision.Kept(7, "it may have been sent: unknown")),
                // in flight
                Arguments.of(new ClaimFacts(8, 7, "received", false, false),
                        new ClaimDecision.Kept(7, "it is in flight (received)")),
                Arguments.of(new ClaimFacts(8, 7, "sending", false, false),
                        new ClaimDecision.Kept(7, "it is in flight (sending)")),
                Arguments.of(new ClaimFacts(8, 7, "retry_scheduled", false, false),
                        new ClaimDecision.Kept(7, "it is in flight (retry_scheduled)")),
                Arguments.of(new ClaimFacts(8, 7, "scheduled", false, false),
                        new ClaimDecision.Kept(7, "it is in flight (scheduled)")),
                Arguments.of(new ClaimFacts(8, 7, "cancelled", false, false),
                        new ClaimDecision.TakeOver(7, "it ended cancelled without any provider taking the mail")),
                // anything else keeps it (the recipient refused for good; a state added later)
                Arguments.of(new ClaimFacts(8, 7, "bounced_permanent", false, false),
                        new ClaimDecision.Kept(7, "it is bounced_permanent")));
    }

    @ParameterizedTest
    @MethodSource("claimRows")
    void claim(ClaimFacts facts, ClaimDecision expected) {
        assertThat(AdmissionPolicy.claim(facts)).isEqualTo(expected);
    }

    @Test
    void everyClaimDecisionIsReachable() {
        Set<Class<?>> reached = claimRows().map(a -> a.get()[1].getClass()).collect(Collectors.toSet());
        assertThat(reached).containsExactlyInAnyOrder(ClaimDecision.class.getPermittedSubclasses());
    }

    @Test
    void theCrashPathAndTheCallPathShareOneAmbiguityRule() {
        for (ProviderTraits p : new ProviderTraits[] {SMTP, HTTP}) {
            boolean crashResends = !(AdmissionPolicy.decide(with(fresh("sending", false), true,
                    new Interrupted(1, true, p), LATER, true)) instanceof Admission.Unknown);
            boolean callResends = !(RecoverabilityPolicy.decide(new Failure(FailureClass.AMBIGUOUS, p.name(), null, null,
                    "read timed out", null, null), AttemptHistory.empty(), RetryPolicy.defaults(), p, LATER, NOW,
                    new java.util.SplittableRandom(1)) instanceof RecoveryAction.Ack);
            assertThat(crashResends).as(p.name()).isEqualTo(callResends).isEqualTo(p.mayResendAmbiguous());
        }
    }
}
