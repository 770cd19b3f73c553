package dev.mailroom.redrive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.deadletter.DeadLetterFilter;
import dev.mailroom.platform.Refused;
import dev.mailroom.testsupport.Filters;
import dev.mailroom.job.JobState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RedriveRulesTest {

    private static final List<String> QUEUES = List.of("mail.send", "mail.send.bulk");
    private static final RedriveRules.Defaults DEFAULTS = new RedriveRules.Defaults(10, 1, 2, Duration.ofMinutes(2));
    private static final DeadLetterFilter BY_REASON = Filters.of("reason", "retries_exhausted");

    private static RedriveRequest request(String action, DeadLetterFilter f, String reason) {
        return new RedriveRequest(action, f, null, null, null, null, reason);
    }

    @Test
    void replayIsTheDefaultAction() {
        assertThat(RedriveRules.validate(request(null, BY_REASON, null), QUEUES)).isEqualTo(Redrive.Action.replay);
        assertThat(RedriveRules.validate(request("discard", BY_REASON, "junk"), QUEUES)).isEqualTo(Redrive.Action.discard);
    }

    @Test
    void aPlanWithoutAFilterIsRefused() {
        assertThatThrownBy(() -> RedriveRules.validate(request(null, null, null), QUEUES))
                .isInstanceOf(Refused.class).hasMessageContaining("needs a filter");
        DeadLetterFilter empty = Filters.of();
        assertThatThrownBy(() -> RedriveRules.validate(request(null, empty, null), QUEUES))
                .isInstanceOf(Refused.Invalid.class);
        assertThatThrownBy(() -> RedriveRules.validate(null, QUEUES)).isInstanceOf(Refused.class);
    }

    @Test
    void badFiltersAreRefusedWithTheReason() {
        DeadLetterFilter unknownQueue = Filters.of("queue", "mail.nope");
        assertThatThrownBy(() -> RedriveRules.validate(request(null, unknownQueue, null), QUEUES))
                .hasMessageContaining("unknown queue mail.nope");
        Instant t = Instant.parse("2026-11-30T10:00:00Z");
        DeadLetterFilter backwards = Filters.json("{\"from\": \"" + t + "\", \"to\": \"" + t + "\"}");
        assertThatThrownBy(() -> RedriveRules.validate(request(null, backwards, null), QUEUES))
                .hasMessageContaining("must be after from");
        DeadLetterFilter noIds = Filters.json("{\"ids\": []}");
        assertThatThrownBy(() -> RedriveRules.validate(request(null, noIds, null), QUEUES)).hasMessageContaining("ids");
        assertThatThrownBy(() -> RedriveRules.validate(request("resend", BY_REASON, null), QUEUES))
                .hasMessageContaining("replay or discard");
        assertThatThrownBy(() -> RedriveRules.validate(request("discard", BY_REASON, " "), QUEUES))
                .hasMessageContaining("needs a reason");
    }

    @Test
    void missingOptionsTakeTheDefaults() {
        RedriveRecord.Options o = RedriveRules.options(request(null, BY_REASON, null), DEFAULTS);
        assertThat(o).isEqualTo(new RedriveRecord.Options(10, 1.0, 2.0, "PT2M"));
        RedriveRecord.Options mine = RedriveRules.options(new RedriveRequest(null, BY_REASON, 3, 5.0, 20.0, "PT10S", null),
                DEFAULTS);
        assertThat(mine).isEqualTo(new RedriveRecord.Options(3, 5.0, 20.0, "PT10S"));
    }

    @Test
    void aReplayWithoutASampleIsRunOnlyWhenAskedForByName() {
        assertThatThrownBy(() -> RedriveRules.options(new RedriveRequest(null, BY_REASON, 0, null, null, null, null),
                DEFAULTS)).isInstanceOf(Refused.Invalid.class).hasMessageContaining("\"skip_sample\": true");
        assertThatThrownBy(() -> RedriveRules.options(new RedriveRequest("replay", BY_REASON, 0, null, null, null, null,
                false), DEFAULTS)).isInstanceOf(Refused.Invalid.class);
        assertThatThrownBy(() -> RedriveRules.options(request(null, BY_REASON, null),
                new RedriveRules.Defaults(0, 1, 2, Duration.ofMinutes(2))))
                .as("a configured default of 0 is not a request to skip").isInstanceOf(Refused.Invalid.class);

        RedriveRecord.Options skipped = RedriveRules.options(new RedriveRequest(null, BY_REASON, null, null, null, null,
                null, true), DEFAULTS);
        assertThat(skipped).isEqualTo(new RedriveRecord.Options(0, 1.0, 2.0, "PT2M", true));
        assertThat(RedriveRules.options(new RedriveRequest(null, BY_REASON, 0, null, null, null, null, true), DEFAULTS)
                .skipSample()).isTrue();
        assertThat(RedriveRules.options(request(null, BY_REASON, null), DEFAULTS).skipSample()).isFalse();
    }

    @Test
    void skippingTheSampleCannotGoWithASampleSize() {
        assertThatThrownBy(() -> RedriveRules.options(new RedriveRequest(null, BY_REASON, 5, null, null, null, null,
                true), DEFAULTS)).isInstanceOf(Refused.Invalid.class).hasMessageContaining("sample_size 5");
    }

    @Test
    void aDiscardHasNoSampleToSkip() {
        assertThat(RedriveRules.options(new RedriveRequest("discard", BY_REASON, 0, null, null, null, "junk"), DEFAULTS)
                .sampleSize()).isZero();
    }

    @ParameterizedTest
    @CsvSource({"-1,,,", "1001,,,", ",0,,", ",,-2,", ",,101,", ",,,P1D", ",,,soon", ",,,PT0S"})
    void optionsOutOfRangeAreRefused(Integer sample, Double sampleRate, Double rate, String timeout) {
        assertThatThrownBy(() -> RedriveRules.options(new RedriveRequest(null, BY_REASON, sample, sampleRate, rate,
                timeout, null), DEFAULTS)).isInstanceOf(Refused.class);
    }

    @Test
    void publishesAreDueOnAFixedSchedule() {
        Instant start = Instant.parse("2026-11-30T10:00:00Z");
        assertThat(RedriveRules.dueAt(start, 0, 2)).isEqualTo(start);
        assertThat(RedriveRules.dueAt(start, 1, 2)).isEqualTo(start.plusMillis(500));
        assertThat(RedriveRules.dueAt(start, 30, 2)).isEqualTo(start.plusSeconds(15));
        assertThat(RedriveRules.dueAt(start, 3, 3)).isEqualTo(start.plusSeconds(1));
    }

    @Test
    void aRunGoesOnWhileNothingFailed() {
        var ok = new RedriveRules.Observed("sent", 0);
        var onItsWay = new RedriveRules.Observed("published", 0);
        assertThat(RedriveRules.stopReason(List.of(ok, onItsWay))).isNull();
        assertThat(RedriveRules.stopReason(List.of())).isNull();
    }

    @Test
    void aDeadLetterAgainOrAFailedProviderCallStopsTheRun() {
        var ok = new RedriveRules.Observed("sent", 0);
        assertThat(RedriveRules.stopReason(List.of(ok, new RedriveRules.Observed("dead_lettered_again", 2))))
                .isEqualTo("1 of 2 replayed jobs dead-lettered again");
        assertThat(RedriveRules.stopReason(List.of(ok, new RedriveRules.Observed("published", 1))))
                .isEqualTo("1 provider call failed for 1 of 2 replayed jobs");
        assertThat(RedriveRules.stopReason(List.of(new RedriveRules.Observed("published", 2),
                new RedriveRules.Observed("published", 1)))).isEqualTo("3 provider calls failed for 2 of 2 replayed jobs");
    }

    @Test
    void aSampleIsSettledWhenEveryEntryHasItsFinalOutcome() {
        assertThat(RedriveRules.settled(List.of(new RedriveRules.Observed("sent", 0),
                new RedriveRules.Observed("duplicate_suppressed", 0)))).isTrue();
        assertThat(RedriveRules.settled(List.of(new RedriveRules.Observed("sent", 0),
                new RedriveRules.Observed("published", 0)))).isFalse();
        assertThat(RedriveRules.settled(List.of(new RedriveRules.Observed("bounced_permanent", 0)))).isTrue();
    }

    /**
     * The sample's verdict, one row per situation: published outcomes so far (outcome:failed calls, space
     * separated), whether the sample phase has published all it will, and the verdict. The first failure decides
     * it, with entries still unsent: the rest of the sample could not make it pass.
     */
    @ParameterizedTest(name = "{0} (all published: {1}) -> {2}")
    @CsvSource(delimiter = '|', value = {
            "''                                      | false | undecided",
            "''                                      | true  | passed: 0",
            "sent:0                                  | false | undecided",
            "sent:0 sent:0                           | true  | passed: 2",
            "sent:0 published:0                      | true  | undecided",
            "sent:0 duplicate_suppressed:0 suppressed:0 | true | passed: 3",
            "dead_lettered_again:1                   | false | the sample failed: 1 of 1 replayed jobs dead-lettered again",
            "sent:0 dead_lettered_again:2 published:0 | false | the sample failed: 1 of 3 replayed jobs dead-lettered again",
            "published:1                             | false | the sample failed: 1 provider call failed for 1 of 1 replayed jobs",
            "sent:0 sent:0 published:2               | true  | the sample failed: 2 provider calls failed for 1 of 3 replayed jobs",
            "bounced_permanent:0 unknown:0           | true  | passed: 2",
    })
    void aSampleFailsAtItsFirstFailureAndPassesOnlyWhenAllSettledCleanly(String observed, boolean allPublished,
                                                                          String verdict) {
        List<RedriveRules.Observed> published = observed == null || observed.isBlank() ? List.of() : java.util.Arrays.stream(observed.trim()
                        .split("\\s+")).map(o -> o.split(":"))
                .map(o -> new RedriveRules.Observed(o[0], Integer.parseInt(o[1]))).toList();
        RedriveRules.SampleVerdict v = RedriveRules.sample(published, allPublished);
        String text = v instanceof RedriveRules.Passed p ? "passed: " + p.entries()
                : v instanceof RedriveRules.Failed f ? f.reason() : "undecided";
        assertThat(text).isEqualTo(verdict);
    }

    @ParameterizedTest
    @CsvSource({
            "sent_to_provider, false, sent",
            "delivered, false, sent",
            "bounced, false, sent",
            "complained, false, sent",
            "bounced_permanent, false, bounced_permanent",
            "duplicate_suppressed, false, duplicate_suppressed",
            "discarded, false, discarded_expired",
            "unknown, false, unknown",
            "received, false, published",
            "retry_scheduled, false, published",
            "scheduled, false, published",
            "cancelled, false, discarded",
            "dead_lettered, false, published",
            "dead_lettered, true, dead_lettered_again",
            "sent_to_provider, true, dead_lettered_again"})
    void aPublishedEntryIsWhatItsJobBecame(JobState job, boolean nextLap, String outcome) {
        assertThat(RedriveRules.refine(RedriveEntry.Outcome.published, job, nextLap)).isEqualTo(outcome);
    }

    @Test
    void anEntryNotPublishedKeepsItsRecordedOutcome() {
        assertThat(RedriveRules.refine(RedriveEntry.Outcome.skipped_changed, JobState.sent_to_provider, true))
                .isEqualTo("skipped_changed");
        assertThat(RedriveRules.refine(RedriveEntry.Outcome.published, null, false)).isEqualTo("published");
    }

    /** Which commands each status accepts: the console offers exactly these buttons, the server refuses the rest. */
    @ParameterizedTest(name = "{0} accepts [{1}]")
    @CsvSource(delimiter = '|', value = {
            "planned     | run abandon",
            "running     | ''",
            "stopped     | ''",
            "completed   | ''",
            "interrupted | resume abandon",
            "abandoned   | ''"})
    void eachStatusAcceptsItsCommandsAndRefusesTheRest(Redrive.Status status, String accepted) {
        java.util.Set<RedriveRules.Command> expected = java.util.Arrays.stream(accepted.trim().split("\\s+"))
                .filter(x -> !x.isEmpty()).map(RedriveRules.Command::valueOf)
                .collect(java.util.stream.Collectors.toCollection(() -> java.util.EnumSet.noneOf(RedriveRules.Command.class)));
        assertThat(RedriveRules.commands(status)).isEqualTo(expected);
        for (RedriveRules.Command c : RedriveRules.Command.values()) {
            if (expected.contains(c)) {
                RedriveRules.require(c, "r-1", status);
            } else {
                assertThatThrownBy(() -> RedriveRules.require(c, "r-1", status)).isInstanceOf(Refused.Conflict.class)
                        .hasMessageContaining("redrive r-1 is " + status);
            }
        }
    }

    @Test
    void aStoppedRunIsNotResumedAndSaysWhatAnInterruptedOneIs() {
        assertThatThrownBy(() -> RedriveRules.require(RedriveRules.Command.resume, "r-2", Redrive.Status.stopped))
                .hasMessage("redrive r-2 is stopped; only an interrupted run can be resumed");
    }

    /** Who carries a run out, as node-1's runner sees it: it goes on only while the run is running on node-1. */
    @ParameterizedTest(name = "{0} on {1}: {2}")
    @CsvSource({
            "running,     node-1, Here",
            "running,     node-2, Elsewhere",
            "interrupted, node-1, Ended",
            "interrupted, node-2, Ended",
            "abandoned,   node-1, Ended",
            "completed,   node-2, Ended",
            "stopped,     node-1, Ended",
            "planned,     ,       Ended"})
    void carrier(Redrive.Status status, String runNode, String expected) {
        RedriveRules.Carrier carrier = RedriveRules.carrier(status, runNode, "node-1");
        assertThat(carrier.getClass().getSimpleName()).isEqualTo(expected);
        if (carrier instanceof RedriveRules.Carrier.Elsewhere e) {
            assertThat(e.node()).isEqualTo(runNode);
        } else if (carrier instanceof RedriveRules.Carrier.Ended e) {
            assertThat(e.status()).isEqualTo(status);
        }
    }
}
