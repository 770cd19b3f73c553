package dev.mailroom.send;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.job.Begin;
import dev.mailroom.job.JobLedger;
import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.recoverability.LateOutcomePolicy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link LateOutcomes}: what waits for the database is kept until it answers, and a send-again is carried out. */
class LateOutcomesTest {

    private static final Begin.Proceed P = new Begin.Proceed(7, 70, 1, null, null, false);

    /** A ledger whose database does not answer until told, then answers with {@code action}. */
    static final class Ledger extends JobLedger {
        boolean down = true;
        LateOutcomePolicy.Action action;
        final List<LateOutcomePolicy.Known> recorded = new ArrayList<>();

        @Override
        public LateOutcomePolicy.Action recordLate(LateOutcomePolicy.Known known, Begin.Proceed p, ProviderResponse r) {
            if (down) {
                throw new IllegalStateException("Unable to acquire JDBC Connection");
            }
            recorded.add(known);
            return action;
        }
    }

    static final class Sends extends UnknownSends {
        final List<String> again = new ArrayList<>();

        @Override
        public String sendAgain(String messageId, String queue, String actor, String reason) {
            again.add(queue + "/" + messageId + " by " + actor);
            return "ID:copy";
        }
    }

    private static LateOutcomes outcomes(Ledger ledger, Sends sends) {
        LateOutcomes o = new LateOutcomes();
        o.ledger = ledger;
        o.unknownSends = sends;
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
}
