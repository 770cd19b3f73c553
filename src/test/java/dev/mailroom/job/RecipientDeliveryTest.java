package dev.mailroom.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link RecipientDelivery} and {@link JobQueries#usedRetry}: what the job page says of a recipient and of an attempt. */
class RecipientDeliveryTest {

    @Test
    void aRecipientWithoutAnEventIsWhatItsJobsStateTells() {
        // job state, last attempt's outcome, what is said of a recipient nothing was recorded for
        Object[][] cases = {
            {JobState.received, null, "not_sent_yet"},
            {JobState.scheduled, null, "not_sent_yet"},
            {JobState.sending, null, "not_sent_yet"},
            {JobState.retry_scheduled, "rejected", "not_sent_yet"},
            {JobState.waiting_for_key, null, "not_sent_yet"},
            {JobState.sent_to_provider, "accepted", "not_yet_known"},
            {JobState.delivered, "accepted", "not_yet_known"},
            {JobState.bounced, "accepted", "not_yet_known"},
            {JobState.complained, "accepted", "not_yet_known"},
            {JobState.bounced_permanent, "rejected", "refused"},
            {JobState.dead_lettered, "rejected", "refused"},
            {JobState.dead_lettered, null, "not_sent"},
            {JobState.dead_lettered, "not_connected", "not_sent"},
            {JobState.discarded, null, "not_sent"},
            {JobState.duplicate_suppressed, null, "not_sent"},
            {JobState.suppressed, null, "not_sent"},
            {JobState.cancelled, null, "not_sent"},
            {JobState.unknown, "ambiguous", "may_have_been_sent"},
        };
        EnumSet<JobState> covered = EnumSet.noneOf(JobState.class);
        for (Object[] c : cases) {
            JobState job = (JobState) c[0];
            covered.add(job);
            assertThat(RecipientDelivery.of(job, null, (String) c[1]).word()).as(c[0] + " after " + c[1]).isEqualTo(c[2]);
        }
        assertThat(covered).as("every job state has a row").isEqualTo(EnumSet.allOf(JobState.class));
    }

    @Test
    void aRecordedStateIsShownAsRecordedWhateverTheJob() {
        for (Map.Entry<JobState, String> c : Map.of(JobState.bounced, "bounced", JobState.delivered, "delivered",
                JobState.sent_to_provider, "suppressed", JobState.dead_lettered, "deferred").entrySet()) {
            assertThat(RecipientDelivery.of(c.getKey(), c.getValue(), "rejected"))
                    .isEqualTo(new RecipientDelivery.Recorded(c.getValue()));
        }
    }

    @Test
    void onlyAFailureWhoseDecisionConsumedAnAttemptUsedARetry() {
        // failure class (null: no failure), consumed_attempt as recorded, used a retry
        Object[][] cases = {
            {null, true, false},               // accepted at its call: the column's default is true
            {null, false, false},              // abandoned
            {"transient", true, true},         // retry after a delay, counted
            {"content_policy", false, false},  // refused 550 5.7.1: dead-lettered, not retried
            {"permanent_recipient", false, false},
            {"throttled", false, false},
            {"systemic", false, false},
        };
        for (Object[] c : cases) {
            assertThat(JobQueries.usedRetry((String) c[0], (Boolean) c[1])).as(c[0] + "/" + c[1]).isEqualTo(c[2]);
        }
    }
}
