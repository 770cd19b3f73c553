package dev.mailroom.redrive;

import dev.mailroom.deadletter.DeadLetter;
import dev.mailroom.deadletter.DeadLetterFilter;
import dev.mailroom.deadletter.DeadLetterQueries;
import dev.mailroom.platform.DatabaseFailures;
import dev.mailroom.platform.MailroomConfig;
import dev.mailroom.platform.Refused;
import dev.mailroom.platform.lease.Leases;
import dev.mailroom.platform.settings.CheckedAtBoot;
import dev.mailroom.platform.settings.SettingsReader;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.Config;

/**
 * The redrive capability's entry point for every adapter (REST, JMX, console): plan, run, resume,
 * abandon, read records. Refusals are {@link Refused}.
 */
@ApplicationScoped
public class Redrives implements CheckedAtBoot {

    /** How often a claim or a publish runs in all while the database picks it as a deadlock's victim. */
    static final int DEADLOCK_ATTEMPTS = 3;
    /**
     * How often a publish runs in all while its transaction fails on the database and so sent nothing: a connection
     * failure, or a read cut by the socket timeout while it waited on a row lock a stopped node still held (the frozen
     * node of chaos/README.md held one 24 s), with {@link #PUBLISH_PAUSE} between them.
     */
    static final int PUBLISH_ATTEMPTS = 5;
    static final java.time.Duration PUBLISH_PAUSE = java.time.Duration.ofSeconds(2);

    @Inject
    DeadLetterQueries deadLetters;
    @Inject
    RedriveSteps steps;
    @Inject
    RedriveRunner runner;
    @Inject
    RedriveRecords records;
    @Inject
    MailroomConfig config;
    @Inject
    Clock clock;
    @Inject
    Leases leases;

    @Inject
    Config mpConfig;

    private volatile RedriveSettings settings;

    @Override
    public void checkSettings() {
        settings();
    }

    private RedriveSettings settings() {
        RedriveSettings s = settings;
        if (s == null) {
            s = RedriveSettings.read(new SettingsReader(key -> mpConfig.getOptionalValue(key, String.class)));
            settings = s;
        }
        return s;
    }

    /** Freezes the cohort the request's filter selects now: a dry run, nothing is touched. */
    public RedriveRecord plan(RedriveRequest request, String actor) {
        Redrive.Action action = RedriveRules.validate(request, config.queues());
        RedriveSettings settings = settings();
        RedriveRecord.Options options = RedriveRules.options(request, settings.defaults());
        DeadLetterFilter f = request.filter();
        List<DeadLetterQueries.Candidate> matched = deadLetters.matching(f, 4 * RedriveRules.MAX_COHORT);
        Map<String, Long> excluded = new LinkedHashMap<>();
        List<DeadLetterQueries.Candidate> cohort = matched.stream().filter(d -> {
            String why = !DeadLetter.Status.open.name().equals(d.status()) ? d.status()
                    : action == Redrive.Action.replay && d.lap() >= settings.maxLaps() ? "lap_cap" : null;
            if (why != null) {
                excluded.merge(why, 1L, Long::sum);
            }
            return why == null;
        }).toList();
        if (cohort.size() > RedriveRules.MAX_COHORT || matched.size() > 4 * RedriveRules.MAX_COHORT) {
            throw new Refused.Invalid("invalid_plan", "the filter selects more than " + RedriveRules.MAX_COHORT
                    + " open dead letters: narrow it (queue, reason, time window)");
        }
        if (f.ids() != null) {
            long missing = f.ids().stream().distinct().count() - matched.size();
            if (missing > 0) {
                excluded.put("ids_not_matched", missing);
            }
        }
        Redrive plan = new Redrive(UUID.randomUUID().toString(), action, actor, clock.instant(),
                request.reason() == null ? null : request.reason().trim(), RedriveRecords.write(f), options,
                cohort.size(), RedriveRecords.write(excluded));
        steps.persistPlan(plan, cohort, options.sampleSize());
        return records.record(plan.getId());
    }

    /** Starts a planned run (a discard plan completes before this returns). */
    public RedriveRecord run(String planId, String actor) {
        return start(planId, actor, false);
    }

    /** Continues an interrupted run with the entries it has not published. */
    public RedriveRecord resume(String planId, String actor) {
        return start(planId, actor, true);
    }

    private RedriveRecord start(String planId, String actor, boolean resume) {
        claim(planId, actor, resume);
        Redrive plan = steps.load(planId);
        if (plan.actionValue() == Redrive.Action.discard) {
            runner.discardAll(plan, actor);
        } else {
            runner.submit(plan, actor);
        }
        return records.record(planId);
    }

    /**
     * Claims the run's entries ({@link RedriveSteps#start}, its own transaction). Two runs claiming overlapping
     * cohorts at once both update the same dead-letter count rows, and the database may roll one back as a
     * deadlock's victim: that transaction did nothing, so it runs again (at most {@value #DEADLOCK_ATTEMPTS} times),
     * and then sees what the other one claimed.
     */
    private void claim(String planId, String actor, boolean resume) {
        DatabaseFailures.rerunDeadlockVictims(DEADLOCK_ATTEMPTS, () -> steps.start(planId, actor, node(), resume));
    }

    /** Ends an interrupted run (or a plan never run): its unpublished entries are open again. */
    public RedriveRecord abandon(String planId, String actor, String reason) {
        if (reason == null || reason.isBlank()) {
            throw new Refused.Invalid("invalid_request", "abandoning a run needs a reason");
        }
        RedriveRules.require(RedriveRules.Command.abandon, planId, steps.load(planId).statusValue());
        steps.end(planId, Redrive.Status.abandoned, "abandoned by " + actor + ": " + reason.trim(), actor);
        return records.record(planId);
    }

    public RedriveRecord record(String planId) {
        return records.record(planId);
    }

    /** The newest plans and runs, without their entries. */
    public List<RedriveRecord> recent(int limit) {
        return records.recent(limit);
    }

    /** Replays one dead letter (its latest revision, if edited) now: a one-entry plan, run at once. */
    public RedriveRecord replayOne(long deadLetterId, String actor, String reason) {
        RedriveRecord plan = plan(new RedriveRequest("replay", DeadLetterFilter.ofIds(List.of(deadLetterId)), 1, null,
                null, null, reason), actor);
        if (plan.cohort().count() == 0) {
            throw new Refused.Conflict("not_replayable", "dead letter " + deadLetterId + " cannot be replayed: "
                    + (plan.cohort().excluded().isEmpty() ? "not found" : plan.cohort().excluded()));
        }
        return run(plan.id(), actor);
    }

    /** This node's id ({@code mailroom.node.id}): a run records the node carrying it out. */
    String node() {
        return leases.node();
    }
}
