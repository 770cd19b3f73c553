package dev.mailroom.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.platform.settings.InvalidSetting;
import dev.mailroom.platform.settings.SettingsReader;
import dev.mailroom.recoverability.ClaimDecision;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link JobRetentionPolicy}: one row per job fact that matters, and what retention does with the job. */
class JobRetentionPolicyTest {

    private static final Instant NOW = Instant.parse("2030-03-01T12:00:00Z");
    private static final JobRetentionPolicy.Settings SETTINGS = new JobRetentionPolicy.Settings(Duration.ofDays(30),
            Map.of("password_reset", Duration.ofDays(2), "invoice", Duration.ofDays(400)), Duration.ofDays(7),
            Duration.ofMinutes(1));

    private static Arguments row(JobState state, String category, Duration age, boolean deadLetterPending,
                                 boolean held, String expected) {
        return Arguments.of(new JobRetentionPolicy.Facts(state, category, NOW.minus(age), deadLetterPending, held),
                expected);
    }

    static Stream<Arguments> jobs() {
        Duration old = Duration.ofDays(31);
        return Stream.of(
                // finished and past the general retention: removed, its claim kept a window from now
                row(JobState.sent_to_provider, null, old, false, false, "remove"),
                row(JobState.delivered, "newsletter", old, false, false, "remove"),
                row(JobState.bounced_permanent, null, old, false, false, "remove"),
                row(JobState.complained, null, old, false, false, "remove"),
                row(JobState.discarded, null, old, false, false, "remove"),
                row(JobState.duplicate_suppressed, null, old, false, false, "remove"),
                row(JobState.suppressed, null, old, false, false, "remove"),
                row(JobState.dead_lettered, null, old, false, false, "remove"),
                // exactly at the end of its retention: removed; a second before: kept
                row(JobState.delivered, null, Duration.ofDays(30), false, false, "remove"),
                row(JobState.delivered, null, Duration.ofDays(30).minusSeconds(1), false, false, "kept until"),
                // a category's own retention, shorter or longer than the general one
                row(JobState.delivered, "password_reset", Duration.ofDays(3), false, false, "remove"),
                row(JobState.delivered, "password_reset", Duration.ofDays(1), false, false, "kept until"),
                row(JobState.delivered, "invoice", old, false, false, "kept until"),
                row(JobState.delivered, "invoice", Duration.ofDays(401), false, false, "remove"),
                // never removed, however old: not finished, or unknown (an operator settles it)
                row(JobState.received, null, Duration.ofDays(900), false, false, "not finished (received)"),
                row(JobState.sending, null, Duration.ofDays(900), false, false, "not finished (sending)"),
                row(JobState.retry_scheduled, null, Duration.ofDays(900), false, false, "not finished (retry_scheduled)"),
                row(JobState.unknown, null, Duration.ofDays(900), false, false, "unknown"),
                // finished but still needed: a dead letter that may be replayed, a send held for an operator
                row(JobState.dead_lettered, null, old, true, false, "its dead letter may still be replayed"),
                row(JobState.discarded, null, old, false, true, "held for an operator"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("jobs")
    void decides(JobRetentionPolicy.Facts facts, String expected) {
        JobRetentionPolicy.Verdict v = JobRetentionPolicy.decide(facts, SETTINGS, NOW);
        if (expected.equals("remove")) {
            assertThat(v).isEqualTo(new JobRetentionPolicy.Verdict.Remove(NOW.plus(Duration.ofDays(7))));
        } else {
            assertThat(v).isInstanceOf(JobRetentionPolicy.Verdict.Keep.class);
            assertThat(((JobRetentionPolicy.Verdict.Keep) v).why()).contains(expected);
        }
    }

    @Test
    void everyStateIsEitherRemovableOrNeverRemoved() {
        assertThat(JobRetentionPolicy.REMOVABLE).doesNotContain(JobState.received, JobState.scheduled, JobState.sending,
                JobState.retry_scheduled, JobState.waiting_for_key, JobState.unknown);
        Set<JobState> all = EnumSet.allOf(JobState.class);
        all.removeAll(Set.of(JobState.received, JobState.scheduled, JobState.sending, JobState.retry_scheduled,
                JobState.waiting_for_key, JobState.unknown));
        assertThat(JobRetentionPolicy.REMOVABLE).containsExactlyInAnyOrderElementsOf(all);
    }

    @Test
    void aRemovedJobKeepsItsKeyWhateverItEndedAs() {
        Instant until = NOW.plus(Duration.ofDays(7));
        ClaimDecision d = JobRetentionPolicy.claimOfRemovedJob(42, until);
        assertThat(d).isInstanceOf(ClaimDecision.Kept.class);
        assertThat(((ClaimDecision.Kept) d).ownerJobId()).isEqualTo(42);
        assertThat(d.describe()).contains("removed by retention").contains(until.toString());
    }

    @Test
    void aPassGoesThroughTheGeneralCohortThenEachCategoryOfItsOwn() {
        List<JobRetentionPolicy.Cohort> cohorts = JobRetentionPolicy.cohorts(SETTINGS);
        assertThat(cohorts).hasSize(3);
        assertThat(cohorts.get(0)).isEqualTo(new JobRetentionPolicy.Cohort(null, Set.of("password_reset", "invoice"),
                Duration.ofDays(30)));
        assertThat(cohorts.subList(1, 3)).containsExactlyInAnyOrder(
                new JobRetentionPolicy.Cohort("password_reset", Set.of(), Duration.ofDays(2)),
                new JobRetentionPolicy.Cohort("invoice", Set.of(), Duration.ofDays(400)));
    }

    @Test
    void settingsAreReadWithTheirDefaultsAndEveryCategoryOverride() {
        JobRetentionPolicy.Settings none = JobRetentionPolicy.Settings.read(SettingsReader.of(Map.of()), List.of());
        assertThat(none).isEqualTo(new JobRetentionPolicy.Settings(Duration.ofDays(30), Map.of(), Duration.ofDays(7),
                Duration.ofMinutes(1)));
        Map<String, String> values = Map.of("mailroom.jobs.retention", "90d",
                "mailroom.jobs.retention.password_reset", "1d", "mailroom.jobs.claim-window", "P14D",
                "mailroom.jobs.retention-interval", "5m");
        JobRetentionPolicy.Settings read = JobRetentionPolicy.Settings.read(SettingsReader.of(values), values.keySet());
        assertThat(read).isEqualTo(new JobRetentionPolicy.Settings(Duration.ofDays(90),
                Map.of("password_reset", Duration.ofDays(1)), Duration.ofDays(14), Duration.ofMinutes(5)));
        assertThatThrownBy(() -> JobRetentionPolicy.Settings.read(SettingsReader.of(Map.of("mailroom.jobs.retention",
                "0s")), List.of("mailroom.jobs.retention"))).isInstanceOf(InvalidSetting.class);
    }
}
