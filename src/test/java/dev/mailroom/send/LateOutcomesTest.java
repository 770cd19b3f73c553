package dev.mailroom.send;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.job.Begin;
import dev.mailroom.job.JobLedger;
import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.recoverability.LateOutcomePolicy;
import dev.mailroom.ops.testing.MovableClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link LateOutcomes}: what waits for the database is kept until it answers, and a send-again is carried out. */
class LateOutcomesTest {

    private static final Begin.Proceed P = new Begin.Proceed(7, 70, 1, null, null, false);

    /** A ledger whose database does not answer until told, then answers with {@code action}. */
    static class Ledger extends JobLedger {
        boolean down = true;
        LateOutcomePolicy.Action action;
        final List<LateOutcomePolicy.Known> recorded = new ArrayList<>();

        /** Thrown by the next record: a checked exception, as the transaction manager's proxy throws it undeclared. */
        Exception lostAnswer;

        @Override
        public LateOutcomePolicy.Action recordLate(LateOutcomePolicy.Known known, Begin.Proceed p, ProviderResponse r) {
            if (down) {
                throw new IllegalStateException("Unable to acquire JDBC Connection");
            }
            if (lostAnswer != null) {
                Exception e = lostAnswer;
                lostAnswer = null;
                throw LateOutcomesTest.<RuntimeException>undeclared(e);
            }
            recorded.add(known);
            return action;
        }
    }

    /** Throws {@code e}, checked or not, from a method that declares none. */
    @SuppressWarnings("unchecked")
    static <E extends Exception> E undeclared(Exception e) throws E {
        throw (E) e;
    }

    static final class Sends extends UnknownSends {
        final List<String> again = new ArrayList<>();
        Exception lostAnswer;

        @Override
        public String sendAgain(String messageId, String queue, String actor, String reason) {
            if (lostAnswer != null) {
                Exception e = lostAnswer;
                lostAnswer = null;
                throw LateOutcomesTest.<RuntimeException>undeclared(e);
            }
            again.add(queue + "/" + messageId + " by " + actor);
            return "ID:copy";
        }
    }

    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    private static LateOutcomes outcomes(Ledger ledger, Sends sends) {
        return outcomes(ledger, sends, Clock.fixed(T0, ZoneOffset.UTC));
    }

    private static LateOutcomes outcomes(Ledger ledger, Sends sends, Clock clock) {
        LateOutcomes o = new LateOutcomes();
        o.ledger = ledger;
        o.unknownSends = sends;
        o.clock = clock;
        return o;
    }

    @Test
    void whatTheWorkerKnewWaitsWhileTheDatabaseIsDownAndIsRecordedOnceWhenItAnswers() {
        Ledger ledger = new Ledger();
        LateOutcomes o = outcomes(ledger, new Sends());
        o.notWritten(P, "mail.send", "m-1");
        o.accepted(P, ProviderResponse.accepted("smtp", "250", "ok", "q"), "mail.send", "m-2");
        o.recordWhatWaits();
        o.recordWhatWaits();
        assertThat(o.waiting()).isEqualTo(2);

        ledger.down = false;
        ledger.action = new LateOutcomePolicy.TakeBack();
        o.recordWhatWaits();
        assertThat(o.waiting()).isZero();
        assertThat(ledger.recorded).containsExactlyInAnyOrder(LateOutcomePolicy.Known.NOT_WRITTEN,
                LateOutcomePolicy.Known.ACCEPTED);
        o.recordWhatWaits();
        assertThat(ledger.recorded).hasSize(2);
    }

    @Test
    void aJobHeldUnknownForAnAttemptThatNeverWroteIsSentAgainByMailroom() {
        Ledger ledger = new Ledger();
        ledger.down = false;
        ledger.action = new LateOutcomePolicy.SendAgain();
        Sends sends = new Sends();
        LateOutcomes o = outcomes(ledger, sends);
        o.notWritten(P, "mail.send", "m-3");
        o.recordWhatWaits();
        assertThat(sends.again).containsExactly("mail.send/m-3 by " + LateOutcomes.ACTOR);
    }

    @Test
    void aRecordWhoseCommitAnsweredWithACheckedExceptionWaitsForTheNextTurn() {
        Ledger ledger = new Ledger();
        ledger.down = false;
        ledger.action = new LateOutcomePolicy.TakeBack();
        ledger.lostAnswer = new jakarta.transaction.HeuristicMixedException("commit's answer lost");
        LateOutcomes o = outcomes(ledger, new Sends());
        o.notWritten(P, "mail.send", "m-4");
        o.recordWhatWaits();
        assertThat(o.waiting()).as("kept after the lost answer").isEqualTo(1);
        o.recordWhatWaits();
        assertThat(o.waiting()).isZero();
        assertThat(ledger.recorded).containsExactly(LateOutcomePolicy.Known.NOT_WRITTEN);
    }

    @Test
    void aSendAgainThatFailedWithACheckedExceptionIsTriedAgain() {
        Ledger ledger = new Ledger();
        ledger.down = false;
        ledger.action = new LateOutcomePolicy.SendAgain();
        Sends sends = new Sends();
        sends.lostAnswer = new jakarta.transaction.HeuristicMixedException("commit's answer lost");
        LateOutcomes o = outcomes(ledger, sends);
        o.notWritten(P, "mail.send", "m-5");
        o.recordWhatWaits();
        assertThat(o.waiting()).isEqualTo(1);
        o.recordWhatWaits();
        assertThat(o.waiting()).isZero();
        assertThat(sends.again).containsExactly("mail.send/m-5 by " + LateOutcomes.ACTOR);
    }

    @Test
    void theGaugeSaysHowManyOutcomesOnlyThisNodesMemoryHolds() {
        Ledger ledger = new Ledger();
        LateOutcomes o = outcomes(ledger, new Sends());
        io.micrometer.core.instrument.simple.SimpleMeterRegistry meters =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        o.register(meters);
        o.notWritten(P, "mail.send", "m-6");
        o.recordWhatWaits();
        assertThat(meters.get("mailroom.outcomes.unrecorded").gauge().value()).isEqualTo(1.0);
        ledger.down = false;
        ledger.action = new LateOutcomePolicy.TakeBack();
        o.recordWhatWaits();
        assertThat(meters.get("mailroom.outcomes.unrecorded").gauge().value()).isZero();
    }

    @Test
    void anOutcomeIsCountedAsWaitingUntilItIsCarriedOut() {
        int[] seen = {-1};
        LateOutcomes[] o = new LateOutcomes[1];
        Ledger ledger = new Ledger() {
            @Override
            public LateOutcomePolicy.Action recordLate(LateOutcomePolicy.Known known, Begin.Proceed p, ProviderResponse r) {
                seen[0] = o[0].waiting();
                return super.recordLate(known, p, r);
            }
        };
        ledger.down = false;
        ledger.action = new LateOutcomePolicy.TakeBack();
        o[0] = outcomes(ledger, new Sends());
        o[0].notWritten(P, "mail.send", "m-7");
        o[0].recordWhatWaits();
        assertThat(seen[0]).as("waiting while its record is being written").isEqualTo(1);
        assertThat(o[0].waiting()).isZero();
    }

    @Test
    void theOldestWaitingOneIsFoundWhereverItIsInTheQueueAndItsAgeIsAGauge() {
        Ledger ledger = new Ledger();
        MovableClock clock = new MovableClock(Clock.fixed(T0, ZoneOffset.UTC));
        LateOutcomes o = outcomes(ledger, new Sends(), clock);
        io.micrometer.core.instrument.simple.SimpleMeterRegistry meters =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        o.register(meters);
        String age = "mailroom.outcomes.unrecorded.oldest.age.seconds";
        assertThat(o.oldestWaitingSince()).isEmpty();
        assertThat(meters.get(age).gauge().value()).isZero();

        o.notWritten(P, "mail.send", "m-8");
        clock.offset(Duration.ofSeconds(30));
        o.accepted(P, ProviderResponse.accepted("smtp", "250", "ok", "q"), "mail.send", "m-9");
        clock.offset(Duration.ofSeconds(700));
        o.recordWhatWaits(); // the database is down: the head, m-8, goes behind m-9
        assertThat(o.oldestWaitingSince()).contains(T0);
        assertThat(meters.get(age).gauge().value()).isEqualTo(700.0);

        ledger.down = false;
        ledger.action = new LateOutcomePolicy.TakeBack();
        o.recordWhatWaits();
        assertThat(o.oldestWaitingSince()).isEmpty();
        assertThat(meters.get(age).gauge().value()).isZero();
    }
}
