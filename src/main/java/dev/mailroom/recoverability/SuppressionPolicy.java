package dev.mailroom.recoverability;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The decision, after {@link AdmissionPolicy} admitted a job, of which recipients it goes to: a pure function
 * of {@link SuppressionFacts}, tested from a table ({@code SuppressionPolicyTest}). It decides; the ledger
 * records it ({@code job_recipient.delivery_state = suppressed}, a timeline event per recipient) and the send
 * path leaves the withheld recipients out of the provider call.
 *
 * <p>Per recipient, first matching row wins:
 * <ol>
 *   <li>an earlier delivery of this job withheld it: withheld again (a retry never adds a recipient back,
 *       even when its suppression was lifted in between: the timeline said it was not mailed)</li>
 *   <li>its address is on the tenant's suppression list (active): withheld, naming that entry</li>
 *   <li>otherwise it is mailed</li>
 * </ol>
 * Then: nobody withheld, {@link SuppressionDecision.SendToAll}; some, {@link SuppressionDecision.SendToOthers};
 * everybody, {@link SuppressionDecision.SuppressAll} (the job ends {@code suppressed}, no provider call).
 */
public final class SuppressionPolicy {

    private SuppressionPolicy() {
    }

    public static SuppressionDecision decide(SuppressionFacts facts) {
        Objects.requireNonNull(facts, "facts");
        List<SuppressionDecision.Withheld> withheld = new ArrayList<>();
        for (SuppressionFacts.Recipient r : facts.recipients()) {
            if (r.withheldBefore()) {
                withheld.add(new SuppressionDecision.Withheld(r.position(), r.address(), null, "withheld_before",
                        null, null, false));
            } else if (r.suppression() != null) {
                SuppressionFacts.Match m = r.suppression();
                withheld.add(new SuppressionDecision.Withheld(r.position(), r.address(), m.id(), m.reason(), m.since(),
                        m.cause(), true));
            }
        }
        if (withheld.isEmpty()) {
            return new SuppressionDecision.SendToAll();
        }
        int remaining = facts.recipients().size() - withheld.size();
        return remaining == 0 ? new SuppressionDecision.SuppressAll(withheld)
                : new SuppressionDecision.SendToOthers(withheld, remaining);
    }
}
