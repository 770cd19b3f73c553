package dev.mailroom.send;

import dev.mailroom.job.Begin;
import dev.mailroom.job.Incoming;
import dev.mailroom.job.JobLedger;
import dev.mailroom.job.SendJob;
import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.recoverability.Failure;
import dev.mailroom.recoverability.ProviderTraits;
import dev.mailroom.recoverability.RecoveryAction;
import dev.mailroom.recoverability.TransactionPlan;

/**
 * The ledger's steps of one delivery in the transactions its {@link TransactionPlan} gives them, chosen once per
 * delivery: each on its own ({@code REQUIRES_NEW}: it outlives a rollback of the delivery), or all with the delivery
 * ({@code MANDATORY}: the job's record and the provider's write commit together). The ledger has an entry per step and
 * transaction because its transaction attribute is its container's business; this is the one place that picks.
 */
sealed interface LedgerSteps {

    Begin begin(Incoming in, SendJob job, ProviderTraits provider, boolean permitGranted, boolean irrevocable);

    void recordSent(Begin.Proceed proceed, ProviderResponse response);

    /** @param providerCalled false when the attempt ended before its provider's call (an attachment not fetched) */
    void recordFailure(Begin.Proceed proceed, ProviderResponse response, Failure failure, RecoveryAction decision,
                       boolean providerCalled);

    /** Whether these steps commit on their own (the plan's {@link TransactionPlan#ledgerCommitsOnItsOwn()}). */
    default boolean ledgerCommitsOnItsOwn() {
        return this instanceof OnTheirOwn;
    }

    /** The steps of {@code plan} on {@code ledger} (the container's proxy, so each entry keeps its transaction). */
    static LedgerSteps of(TransactionPlan plan, JobLedger ledger) {
        return plan.ledgerCommitsOnItsOwn() ? new OnTheirOwn(ledger) : new WithTheDelivery(ledger);
    }

    /** Each step commits on its own. */
    record OnTheirOwn(JobLedger ledger) implements LedgerSteps {
        @Override
        public Begin begin(Incoming in, SendJob job, ProviderTraits provider, boolean permitGranted, boolean irrevocable) {
            return ledger.begin(in, job, provider, permitGranted, irrevocable);
        }

        @Override
        public void recordSent(Begin.Proceed proceed, ProviderResponse response) {
            ledger.recordSent(proceed, response);
        }

        @Override
        public void recordFailure(Begin.Proceed proceed, ProviderResponse response, Failure failure,
                                  RecoveryAction decision, boolean providerCalled) {
            ledger.recordFailure(proceed, response, failure, decision, providerCalled);
        }
    }

    /** Every step commits with the delivery. */
    record WithTheDelivery(JobLedger ledger) implements LedgerSteps {
        @Override
        public Begin begin(Incoming in, SendJob job, ProviderTraits provider, boolean permitGranted, boolean irrevocable) {
            return ledger.beginInTheDelivery(in, job, provider, permitGranted, irrevocable);
        }

        @Override
        public void recordSent(Begin.Proceed proceed, ProviderResponse response) {
            ledger.recordSentInTheDelivery(proceed, response);
        }

        @Override
        public void recordFailure(Begin.Proceed proceed, ProviderResponse response, Failure failure,
                                  RecoveryAction decision, boolean providerCalled) {
            ledger.recordFailureInTheDelivery(proceed, response, failure, decision, providerCalled);
        }
    }
}
