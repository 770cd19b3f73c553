package dev.mailroom.job;

/**
 * What can be said of one recipient's delivery: the state recorded for it (a provider event's {@code delivered},
 * {@code bounced}, … or {@code suppressed}), else what the job's own state tells of every recipient it has no event
 * for. "Not yet known" is said only while an event may still come (the job went to the provider); a job the
 * provider refused, or one never sent, says so. Pure.
 */
public sealed interface RecipientDelivery {

    /** The word the API and the job page show. */
    String word();

    /** The state recorded for the recipient (provider events, suppression), as recorded. */
    record Recorded(String word) implements RecipientDelivery { }

    /** What the job's state tells when nothing was recorded for the recipient. */
    enum Inferred implements RecipientDelivery {
        /** Still on its way to a provider (received, sending, waiting for a retry). */
        not_sent_yet,
        /** The provider took the job; no event about this recipient has come (yet). */
        not_yet_known,
        /** The provider refused the job when it was handed over (a 5xx answer): it was not sent. */
        refused,
        /** It was never sent: dead-lettered without a refusal, discarded, or a duplicate of a job sent before. */
        not_sent,
        /** The call passed its point of no return without an answer: it may or may not have gone out. */
        may_have_been_sent;

        @Override
        public String word() {
            return name();
        }
    }

    /**
     * @param job         the job's state
     * @param recorded    the recipient's {@code delivery_state}, null when nothing was recorded for it
     * @param lastOutcome the outcome of the job's last attempt ({@link JobAttempt.Outcome}'s name), null without one
     */
    static RecipientDelivery of(JobState job, String recorded, String lastOutcome) {
        if (recorded != null) {
            return new Recorded(recorded);
        }
        boolean refusedByProvider = JobAttempt.Outcome.rejected.name().equals(lastOutcome);
        return switch (job) {
            case received, scheduled, sending, retry_scheduled, waiting_for_key -> Inferred.not_sent_yet;
            case sent_to_provider, delivered, bounced, complained -> Inferred.not_yet_known;
            case bounced_permanent -> Inferred.refused;
            case dead_lettered -> refusedByProvider ? Inferred.refused : Inferred.not_sent;
            case discarded, duplicate_suppressed, suppressed, cancelled -> Inferred.not_sent;
            case unknown -> Inferred.may_have_been_sent;
        };
    }
}
