package dev.mailroom.recoverability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.recoverability.TransactionPlan.ClaimIrrevocable;
import dev.mailroom.recoverability.TransactionPlan.ClaimThenCheckpoint;
import dev.mailroom.recoverability.TransactionPlan.Facts;
import dev.mailroom.recoverability.TransactionPlan.InTheDelivery;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link TransactionPlan#decide}: every combination of the provider's three facts, and what each plan carries out. */
class TransactionPlanTest {

    static Stream<Arguments> rows() {
        TransactionPlan oneCommit = new InTheDelivery();
        TransactionPlan claimIrrevocable = new ClaimIrrevocable();
        TransactionPlan checkpoint = new ClaimThenCheckpoint();
        return Stream.of(
                // writes in the delivery's transaction, checkpoint first, drops a duplicate -> plan
                Arguments.of("the sandbox: everything with the delivery", true, true, true, oneCommit),
                Arguments.of("writes in our database, even without a checkpoint first", true, false, true, oneCommit),
                Arguments.of("writes in our database, even without dropping a duplicate", true, true, false, oneCommit),
                Arguments.of("writes in our database, nothing else", true, false, false, oneCommit),
                Arguments.of("HTTP with an idempotency header: irrevocable with the claim", false, true, true, claimIrrevocable),
                Arguments.of("checkpoint first but no duplicate dropped: a crash before the call must not end unknown",
                        false, true, false, checkpoint),
                Arguments.of("drops a duplicate but connects before its checkpoint", false, false, true, checkpoint),
                Arguments.of("SMTP: its own point of no return before the final dot", false, false, false, checkpoint));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void thePlanFollowsWhatTheProviderSaysOfItself(String row, boolean writesInTheDelivery, boolean checkpointFirst,
                                                   boolean dedupes, TransactionPlan expected) {
        assertThat(TransactionPlan.decide(new Facts(writesInTheDelivery, checkpointFirst, dedupes))).isEqualTo(expected);
    }

    @Test
    void whatEachPlanCarriesOut() {
        // separate commits and a checkpoint of its own: 4 commits per job
        assertThat(new ClaimThenCheckpoint().ledgerCommitsOnItsOwn()).isTrue();
        assertThat(new ClaimThenCheckpoint().irrevocableFromTheStart()).isFalse();
        // separate commits, the checkpoint with the claim: 3
        assertThat(new ClaimIrrevocable().ledgerCommitsOnItsOwn()).isTrue();
        assertThat(new ClaimIrrevocable().irrevocableFromTheStart()).isTrue();
        // everything in the delivery's transaction, the attempt irrevocable from its start there: 1
        assertThat(new InTheDelivery().ledgerCommitsOnItsOwn()).isFalse();
        assertThat(new InTheDelivery().irrevocableFromTheStart()).isTrue();
    }
}
