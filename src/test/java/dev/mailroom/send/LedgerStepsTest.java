package dev.mailroom.send;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.job.JobLedger;
import dev.mailroom.recoverability.TransactionPlan;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each transaction plan picks the ledger's steps once: on their own, or with the delivery. */
class LedgerStepsTest {

    static Stream<Arguments> plans() {
        return Stream.of(
                Arguments.of(new TransactionPlan.ClaimThenCheckpoint(), LedgerSteps.OnTheirOwn.class),
                Arguments.of(new TransactionPlan.ClaimIrrevocable(), LedgerSteps.OnTheirOwn.class),
                Arguments.of(new TransactionPlan.InTheDelivery(), LedgerSteps.WithTheDelivery.class));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("plans")
    void eachPlanHasItsSteps(TransactionPlan plan, Class<? extends LedgerSteps> expected) {
        JobLedger ledger = new JobLedger();
        LedgerSteps steps = LedgerSteps.of(plan, ledger);
        assertThat(steps).isInstanceOf(expected);
        assertThat(steps.ledgerCommitsOnItsOwn()).isEqualTo(plan.ledgerCommitsOnItsOwn());
    }
}
