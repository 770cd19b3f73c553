package dev.mailroom.job;

import dev.mailroom.platform.settings.SettingsReader;
import dev.mailroom.recoverability.ClaimDecision;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Which finished jobs retention removes, and for how long a removed job's idempotency claim is kept. A pure function
 * of the job's facts, the settings and the time: the table in {@code JobRetentionPolicyTest} is the whole of it.
 *
 * <p>A job is removable once its send path is over ({@link #REMOVABLE}: not {@code received}, {@code scheduled},
 * {@code sending}, {@code retry_scheduled}, {@code waiting_for_key}, nor {@code unknown}, which waits on an operator), it has no dead letter an operator may
 * still replay and no held send, and it has been in its last state longer than its category's retention. Its claim
 * outlives it by the claim window, so a late duplicate is still recognised.
 */
public final class JobRetentionPolicy {

    static final String RETENTION = "mailroom.jobs.retention";
    /** A category's own retention: {@code mailroom.jobs.retention.<category>}. */
    static final String RETENTION_PREFIX = "mailroom.jobs.retention.";
    static final String CLAIM_WINDOW = "mailroom.jobs.claim-window";
    static final String INTERVAL = "mailroom.jobs.retention-interval";

    /** The states retention may remove: finished, and not {@code unknown} (an operator has still to settle it). */
    public static final Set<JobState> REMOVABLE = removable();

    private JobRetentionPolicy() {
    }

    private static Set<JobState> removable() {
        EnumSet<JobState> s = EnumSet.noneOf(JobState.class);
        for (JobState state : JobState.values()) {
            if (state.finished() && state != JobState.unknown) {
                s.add(state);
            }
        }
        return Set.copyOf(s);
    }

    /**
     * {@code retention}: how long a finished job is kept after its last change, {@code byCategory} overriding it;
     * {@code claimWindow}: how long its idempotency claim outlives it; {@code interval}: time between two passes.
     */
    public record Settings(Duration retention, Map<String, Duration> byCategory, Duration claimWindow,
                           Duration interval) {
        public Settings {
            Objects.requireNonNull(retention, "retention");
            byCategory = Map.copyOf(byCategory);
            Objects.requireNonNull(claimWindow, "claimWindow");
            Objects.requireNonNull(interval, "interval");
        }

        /** The retention of jobs of {@code category} (null or unconfigured: the general one). */
        public Duration retentionOf(String category) {
            return category == null ? retention : byCategory.getOrDefault(category, retention);
        }

        /**
         * From {@code settings}; {@code names} lists the configured keys, to find every category's override
         * ({@code mailroom.jobs.retention.<category>}).
         */
        public static Settings read(SettingsReader settings, Iterable<String> names) {
            Map<String, Duration> byCategory = new LinkedHashMap<>();
            for (String name : names) {
                if (name.startsWith(RETENTION_PREFIX)) {
                    byCategory.put(name.substring(RETENTION_PREFIX.length()), settings.positiveDuration(null, name));
                }
            }
            return new Settings(settings.positiveDuration(Duration.ofDays(30), RETENTION), byCategory,
                    settings.positiveDuration(Duration.ofDays(7), CLAIM_WINDOW),
                    settings.positiveDuration(Duration.ofMinutes(1), INTERVAL));
        }
    }

    /** What is known of one job when retention looks at it. */
    public record Facts(JobState state, String category, Instant lastChangedAt, boolean deadLetterPending,
                        boolean held) {
    }

    /** What retention does with a job. */
    public sealed interface Verdict {

        /** Removed with every row hanging off it; its idempotency claim is kept until {@code claimKeptUntil}. */
        record Remove(Instant claimKeptUntil) implements Verdict {
        }

        /** Kept, for {@code why}. */
        record Keep(String why) implements Verdict {
        }
    }

    public static Verdict decide(Facts f, Settings s, Instant now) {
        if (!REMOVABLE.contains(f.state())) {
            return new Verdict.Keep(f.state() == JobState.unknown ? "unknown: an operator has still to settle it"
                    : "not finished (" + f.state() + ")");
        }
        if (f.deadLetterPending()) {
            return new Verdict.Keep("its dead letter may still be replayed");
        }
        if (f.held()) {
            return new Verdict.Keep("its send is held for an operator");
        }
        Instant until = f.lastChangedAt().plus(s.retentionOf(f.category()));
        if (now.isBefore(until)) {
            return new Verdict.Keep("kept until " + until);
        }
        return new Verdict.Remove(now.plus(s.claimWindow()));
    }

    /**
     * A job wants a key whose holder retention removed (the claim is kept for the claim window): the key stays with
     * the removed job, whatever it ended as, so a late duplicate is refused rather than sent again.
     */
    public static ClaimDecision claimOfRemovedJob(long ownerJobId, Instant keptUntil) {
        return new ClaimDecision.Kept(ownerJobId, "its job finished and was removed by retention; the key is kept until "
                + keptUntil);
    }

    /** Jobs judged by one retention: one category's, or (category null) that of every category without its own. */
    public record Cohort(String category, Set<String> others, Duration retention) {
        public Cohort {
            others = Set.copyOf(others);
        }
    }

    /** The cohorts a pass goes through: the general one, then each category with a retention of its own. */
    public static List<Cohort> cohorts(Settings s) {
        List<Cohort> cohorts = new ArrayList<>();
        cohorts.add(new Cohort(null, s.byCategory().keySet(), s.retention()));
        s.byCategory().forEach((category, retention) -> cohorts.add(new Cohort(category, Set.of(), retention)));
        return List.copyOf(cohorts);
    }
}
