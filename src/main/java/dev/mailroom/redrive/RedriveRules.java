package dev.mailroom.redrive;

import dev.mailroom.deadletter.DeadLetterFilter;
import dev.mailroom.platform.Refused;
import dev.mailroom.job.JobState;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.List;

/**
 * The pure rules of a redrive: what a valid request is, what it runs with, when a run may go on, and
 * what became of a replayed entry. No container, no clock of its own: unit-tested with plain JUnit.
 */
public final class RedriveRules {

    /** Most entries a plan may freeze: a bigger cohort is narrowed by its filter first. */
    public static final int MAX_COHORT = 10_000;
    public static final int MAX_SAMPLE = 1_000;
    public static final double MAX_RATE = 100.0;
    /** The longest a sample may wait for its replays' outcomes. */
    public static final Duration MAX_SAMPLE_TIMEOUT = Duration.ofHours(1);

    /** A rate a run may go at, jobs per second: above 0 and at most {@link #MAX_RATE}. */
    static boolean validRate(double perSecond) {
        return perSecond > 0 && perSecond <= MAX_RATE;
    }

    /** A sample timeout a run may have: above zero and at most {@link #MAX_SAMPLE_TIMEOUT}. */
    static boolean validSampleTimeout(Duration timeout) {
        return !timeout.isNegative() && !timeout.isZero() && timeout.compareTo(MAX_SAMPLE_TIMEOUT) <= 0;
    }

    private RedriveRules() {
    }

    /** The configured defaults a request's missing options take. */
    public record Defaults(int sampleSize, double sampleRatePerSecond, double ratePerSecond, Duration sampleTimeout) { }

    /** Checks a request; returns the action it asks for. Everything wrong is a 400 with the reason. */
    public static Redrive.Action validate(RedriveRequest r, Collection<String> queues) {
        if (r == null) {
            throw bad("a plan needs a body: {\"filter\": {...}}");
        }
        Redrive.Action action;
        try {
            action = r.action() == null || r.action().isBlank() ? Redrive.Action.replay
                    : Redrive.Action.valueOf(r.action().trim());
        } catch (IllegalArgumentException e) {
            throw bad("action is replay or discard, not " + r.action());
        }
        DeadLetterFilter f = r.filter();
        if (f == null || f.matchesEverything()) {
            throw bad("a plan needs a filter (" + String.join(", ", DeadLetterFilter.NAMES)
                    + "): redrive is never \"everything\"");
        }
        f.checked();
        if (f.queue() != null && !queues.contains(f.queue())) {
            throw bad("unknown queue " + f.queue() + "; send queues are " + queues);
        }
        if (action == Redrive.Action.discard && (r.reason() == null || r.reason().isBlank())) {
            throw bad("a discard needs a reason: it is recorded with who and why");
        }
        if (r.reason() != null && r.reason().length() > 2000) {
            throw bad("reason is at most 2000 characters");
        }
        return action;
    }

    /**
     * The options a run goes with: the request's, else the defaults; out-of-range values are a 400. A replay
     * without a sample sends the whole cohort at once with nothing to stop it early: it is run only when
     * asked for by name ({@code skip_sample: true}), never because a sample size happened to be 0.
     */
    public static RedriveRecord.Options options(RedriveRequest r, Defaults d) {
        boolean skipSample = Boolean.TRUE.equals(r.skipSample());
        if (skipSample && r.sampleSize() != null && r.sampleSize() != 0) {
            throw bad("skip_sample: true runs without a sample; it cannot go with sample_size " + r.sampleSize());
        }
        int sample = skipSample ? 0 : r.sampleSize() == null ? d.sampleSize() : r.sampleSize();
        if (sample < 0 || sample > MAX_SAMPLE) {
            throw bad("sample_size is from 0 to " + MAX_SAMPLE);
        }
        boolean replay = r.action() == null || r.action().isBlank() || "replay".equals(r.action().trim());
        if (sample == 0 && replay && !skipSample) {
            throw bad("a replay without a sample (sample_size 0) sends the whole cohort with nothing to stop it"
                    + " early: say so with \"skip_sample\": true");
        }
        double sampleRate = r.sampleRatePerSecond() == null ? d.sampleRatePerSecond() : r.sampleRatePerSecond();
        double rate = r.ratePerSecond() == null ? d.ratePerSecond() : r.ratePerSecond();
        if (!validRate(sampleRate) || !validRate(rate)) {
            throw bad("sample_rate_per_second and rate_per_second are above 0 and at most " + MAX_RATE);
        }
        Duration timeout;
        try {
            timeout = r.sampleTimeout() == null ? d.sampleTimeout() : Duration.parse(r.sampleTimeout().trim());
        } catch (DateTimeParseException e) {
            throw bad("sample_timeout is an ISO-8601 duration (e.g. PT2M), not " + r.sampleTimeout());
        }
        if (!validSampleTimeout(timeout)) {
            throw bad("sample_timeout is above zero and at most PT1H");
        }
        return new RedriveRecord.Options(sample, sampleRate, rate, timeout.toString(), skipSample);
    }

    /** What an operator may ask of a plan or run; {@link #commands} says in which status. */
    public enum Command { run, resume, abandon }

    /**
     * The commands a plan or run in {@code status} accepts: a plan runs once or is abandoned; a run the server's
     * stop interrupted is resumed or abandoned; a running, stopped, completed or abandoned one accepts none (a
     * stopped run's not-run entries are open again: a new plan redrives them). The server refuses every other
     * command with 409 and the record lists these, so the console offers only what will be accepted.
     */
    public static java.util.Set<Command> commands(Redrive.Status status) {
        return switch (status) {
            case planned -> java.util.EnumSet.of(Command.run, Command.abandon);
            case interrupted -> java.util.EnumSet.of(Command.resume, Command.abandon);
            case running, stopped, completed, abandoned -> java.util.EnumSet.noneOf(Command.class);
        };
    }

    /** Refuses {@code command} unless {@code status} accepts it: 409 {@code wrong_state}, saying what it accepts. */
    public static void require(Command command, String id, Redrive.Status status) {
        java.util.Set<Command> accepted = commands(status);
        if (!accepted.contains(command)) {
            throw new Refused.Conflict("wrong_state", "redrive " + id + " is " + status + "; " + switch (command) {
                case run -> "a plan runs once: make a new plan";
                case resume -> "only an interrupted run can be resumed";
                case abandon -> "only a plan or an interrupted run can be abandoned";
            } + (accepted.isEmpty() ? "" : " (it accepts: " + accepted.stream().map(Enum::name)
                    .collect(java.util.stream.Collectors.joining(", ")) + ")"));
        }
    }

    /** Who carries a run out now, as {@code node}'s runner sees it: {@link #carrier}. */
    public sealed interface Carrier {
        /** {@code node} does: it goes on. */
        record Here() implements Carrier { }

        /** Another node took the run over (this one was stopped past its liveness lease): this one writes nothing more. */
        record Elsewhere(String node) implements Carrier { }

        /** The run is no longer running (abandoned, interrupted, ended): its runner ends where it stands. */
        record Ended(Redrive.Status status) implements Carrier { }
    }

    /**
     * Whether {@code node}'s runner may go on with a run recorded as {@code status} on {@code runNode}: only while it is
     * running there. A runner that was stopped (a long pause) while the other node resumed its run finds the run
     * running {@link Carrier.Elsewhere elsewhere}: running, but not its own any more.
     */
    public static Carrier carrier(Redrive.Status status, String runNode, String node) {
        if (status != Redrive.Status.running) {
            return new Carrier.Ended(status);
        }
        return node.equals(runNode) ? new Carrier.Here() : new Carrier.Elsewhere(runNode);
    }

    /** When the {@code index}-th publish of a phase is due: a fixed schedule, so pauses do not add up. */
    public static Instant dueAt(Instant phaseStart, int index, double ratePerSecond) {
        return phaseStart.plusNanos(Math.round(index * 1_000_000_000d / ratePerSecond));
    }

    /** What the run knows of one published entry now. */
    public record Observed(String outcome, int failedAttemptsSinceReplay) { }

    /** Whether a run may go on: the first reason to stop, or null. */
    public static String stopReason(List<Observed> published) {
        long again = published.stream().filter(o -> Outcomes.DEAD_LETTERED_AGAIN.equals(o.outcome())).count();
        long failedCalls = published.stream().mapToLong(Observed::failedAttemptsSinceReplay).sum();
        if (again > 0) {
            return again + " of " + published.size() + " replayed jobs dead-lettered again";
        }
        if (failedCalls > 0) {
            return failedCalls + " provider call" + (failedCalls == 1 ? "" : "s") + " failed for "
                    + published.stream().filter(o -> o.failedAttemptsSinceReplay() > 0).count() + " of "
                    + published.size() + " replayed jobs";
        }
        return null;
    }

    /** Whether every published sample entry has its final outcome (sent, suppressed, ...). */
    public static boolean settled(List<Observed> published) {
        return published.stream().allMatch(o -> Outcomes.FINAL.contains(o.outcome()));
    }

    /** Where a sample stands: {@link Passed}, {@link Failed} or {@link Undecided} yet. */
    public sealed interface SampleVerdict permits Passed, Failed, Undecided { }

    /** Every sample entry was published and settled without a failure: the rest may follow. */
    public record Passed(int entries) implements SampleVerdict { }

    /** The sample cannot pass any more: stop the run, whether or not the rest of the sample was sent. */
    public record Failed(String reason) implements SampleVerdict { }

    /** Nothing failed so far, and entries are still to be published or still on their way. */
    public record Undecided() implements SampleVerdict { }

    /**
     * The sample's verdict from what is known of its published entries so far ({@code allPublished}: the sample
     * phase has published all it will). A sample passes only if none of its entries fails ({@link #stopReason}), so
     * the first failure decides it: publishing the rest of the sample would send mail that can no longer change the
     * verdict, and the run stops there.
     */
    public static SampleVerdict sample(List<Observed> published, boolean allPublished) {
        String failed = stopReason(published);
        if (failed != null) {
            return new Failed("the sample failed: " + failed);
        }
        return allPublished && settled(published) ? new Passed(published.size()) : new Undecided();
    }

    /** The outcomes of a record entry (the wire names). */
    public static final class Outcomes {
        public static final String SENT = "sent";
        /** The provider refused the recipient for good (no retry): not sent, and not counted as sent. */
        public static final String BOUNCED_PERMANENT = "bounced_permanent";
        public static final String DEAD_LETTERED_AGAIN = "dead_lettered_again";
        public static final String UNKNOWN = "unknown";
        /** Every recipient is on the suppression list: not sent, no provider call. */
        public static final String SUPPRESSED = "suppressed";
        static final List<String> FINAL = List.of(SENT, BOUNCED_PERMANENT, DEAD_LETTERED_AGAIN, UNKNOWN, SUPPRESSED, "discarded_expired",
                "duplicate_suppressed", "skipped_changed", "discarded", "not_run");

        private Outcomes() {
        }
    }

    /**
     * What became of a published entry, from the state of its job and whether its next lap exists:
     * {@code published} while the job is still on its way.
     */
    public static String refine(RedriveEntry.Outcome recorded, JobState job, boolean nextLapExists) {
        if (recorded != RedriveEntry.Outcome.published) {
            return recorded.name();
        }
        if (nextLapExists) {
            return Outcomes.DEAD_LETTERED_AGAIN;
        }
        if (job == null) {
            return RedriveEntry.Outcome.published.name();
        }
        return switch (job) {
            case sent_to_provider, delivered, bounced, complained -> Outcomes.SENT;
            case bounced_permanent -> Outcomes.BOUNCED_PERMANENT;
            case duplicate_suppressed -> RedriveEntry.Outcome.duplicate_suppressed.name();
            case discarded -> RedriveEntry.Outcome.discarded_expired.name();
            case unknown -> Outcomes.UNKNOWN;
            case suppressed -> Outcomes.SUPPRESSED;
            // the replay waited for its send_at and an operator cancelled it there: not sent, by a person's choice
            case cancelled -> RedriveEntry.Outcome.discarded.name();
            // dead_lettered without a next lap yet: the recorder's transaction is on its way
            case received, scheduled, sending, retry_scheduled, waiting_for_key, dead_lettered ->
                    RedriveEntry.Outcome.published.name();
        };
    }

    private static Refused bad(String why) {
        return new Refused.Invalid("invalid_plan", why);
    }
}
