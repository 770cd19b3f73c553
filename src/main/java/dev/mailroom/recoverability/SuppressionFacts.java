package dev.mailroom.recoverability;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What is known about a job's recipients when it is admitted for sending: everything
 * {@link SuppressionPolicy#decide} needs, gathered by the ledger with the job's row locked (its
 * {@code job_recipient} rows and the tenant's active suppressions of those addresses), nothing looked up by
 * the policy itself.
 *
 * @param recipients every recipient of the job, in {@code job_recipient} order (to, cc, bcc)
 */
public record SuppressionFacts(List<Recipient> recipients) {

    public SuppressionFacts {
        recipients = List.copyOf(recipients);
    }

    /**
     * One recipient.
     *
     * @param position       its {@code job_recipient.position}
     * @param address        its normalised address
     * @param suppression    the active suppression of this address on the job's tenant's list, or null
     * @param withheldBefore whether an earlier delivery of this job already withheld it ({@code delivery_state
     *                       suppressed}): a retry never adds back a recipient the timeline says was not mailed
     */
    public record Recipient(int position, String address, Match suppression, boolean withheldBefore) {
        public Recipient {
            Objects.requireNonNull(address, "address");
        }
    }

    /**
     * An active entry of the suppression list.
     *
     * @param id     its id ({@code GET /api/v1/suppressions})
     * @param reason {@code hard_bounce}, {@code complaint}, {@code provider_suppression} or {@code manual}
     * @param since  when it was put on the list
     * @param cause  what caused it, in words (the event and job, or who and why)
     */
    public record Match(long id, String reason, Instant since, String cause) {
        public Match {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
