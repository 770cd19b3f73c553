package dev.mailroom.redrive;

import dev.mailroom.platform.DatabaseFailures;
import dev.mailroom.platform.lease.Leases;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Carries a run out, off the request thread: the sample at its rate, a wait for the sample's outcomes,
 * then the remainder at its rate, checking the stop conditions as it goes. Every step is a transaction
 * of {@link RedriveSteps}; this loop only paces and decides. If the server dies, the run is marked
 * {@code interrupted} at the next start and can be resumed: published entries are never published again.
 */
@ApplicationScoped
public class RedriveRunner {

    private static final Logger LOG = Logger.getLogger(RedriveRunner.class.getName());
    /** How often the outcomes of published entries are read while a phase goes on. */
    static final Duration CHECK_EVERY = Duration.ofMillis(500);

    @Resource(lookup = "java:comp/DefaultManagedExecutorService")
    ManagedExecutorService executor;
    @Inject
    RedriveSteps steps;
    @Inject
    RedriveRecords records;
    @Inject
    Clock clock;
    @Inject
    Leases leases;

    public void submit(Redrive plan, String actor) {
        executor.submit(() -> execute(plan.getId(), plan.actionValue(), plan.options(), plan.getReason(), actor,
                RedriveRecords.read(plan.getPhasesJson(),
                        new com.fasterxml.jackson.core.type.TypeReference<List<RedriveRecord.Phase>>() { })));
    }

    /** A discard plan: every entry, one transaction each, before the caller gets the record. */
    public void discardAll(Redrive plan, String actor) {
        for (long entry : steps.pendingEntries(plan.getId(), "discard")) {
            steps.discard(plan.getId(), entry, actor, plan.getReason());
        }
        steps.complete(plan.getId(), node());
    }

    void execute(String id, Redrive.Action action, RedriveRecord.Options options, String reason, String actor,
                 List<RedriveRecord.Phase> earlier) {
        List<RedriveRecord.Phase> phases = new ArrayList<>(earlier == null ? List.of() : earlier);
        // published entries whose outcome is final, by entry id: read once, not on every check
        Map<Long, RedriveRules.Observed> settled = new HashMap<>();
        try {
            String stop = phase(id, "sample", options.sampleRatePerSecond(), actor, phases, settled);
            if (stop == null && !running(id)) {
                return;
            }
            if (stop == null) {
                stop = awaitSample(id, Duration.parse(options.sampleTimeout()), phases, settled);
            }
            if (stop == null && running(id)) {
                stop = phase(id, "remainder", options.ratePerSecond(), actor, phases, settled);
            }
            if (stop != null) {
                steps.endHere(id, Redrive.Status.stopped, stop, actor, node());
                LOG.warning(() -> "redrive " + id + " stopped: " + phases.get(phases.size() - 1).result());
            } else if (running(id)) {
                steps.complete(id, node());
                LOG.info(() -> "redrive " + id + " completed");
            }
        } catch (InterruptedException e) {
            // the server is going down: the run stays "running" and is marked interrupted at the next start
            Thread.currentThread().interrupt();
        } catch (Moved e) {
            LOG.warning(() -> "redrive " + id + " is carried out by " + e.node + " now (this node, " + node()
                    + ", was stopped past its liveness lease and the run was taken over): this node leaves it");
        } catch (RuntimeException | Error e) {
            LOG.log(Level.SEVERE, e, () -> "redrive " + id + " failed");
            steps.endHere(id, Redrive.Status.stopped, "internal error: " + e, actor, node());
        }
    }

    /**
     * Publishes one entry. A publish is one transaction over the broker and the database: as a deadlock's victim (two
     * runs changing the same dead-letter count rows), or failed on the database's connection, it sent nothing, and
     * runs again rather than stop the run (an entry published meanwhile is not published twice).
     */
    private void publish(String id, long entry, String actor) {
        DatabaseFailures.rerun(Redrives.PUBLISH_ATTEMPTS, Redrives.PUBLISH_PAUSE,
                f -> DatabaseFailures.isDeadlockVictim(f) || DatabaseFailures.isConnectionFailure(f)
                        || f instanceof RedriveSteps.EntryNotRead,
                () -> steps.publish(id, entry, actor, node()));
    }

    /** Publishes the phase's pending entries on a fixed schedule; returns why it stopped, or null. */
    private String phase(String id, String name, double rate, String actor, List<RedriveRecord.Phase> phases,
                         Map<Long, RedriveRules.Observed> settled)
            throws InterruptedException {
        List<Long> pending = steps.pendingEntries(id, name);
        if (pending.isEmpty()) {
            return null;
        }
        Instant start = clock.instant();
        String label = phases.stream().anyMatch(p -> p.name().equals(name)) ? name + " (resumed)" : name;
        phases.add(new RedriveRecord.Phase(label, start, null, pending.size(), "running"));
        steps.phases(id, RedriveRecords.write(phases), node());
        Instant nextCheck = start.plus(CHECK_EVERY);
        String stop = null;
        for (int i = 0; i < pending.size() && stop == null; i++) {
            sleepUntil(RedriveRules.dueAt(start, i, rate));
            if (!running(id)) {
                stop = "abandoned";
                break;
            }
            publish(id, pending.get(i), actor);
            if (!clock.instant().isBefore(nextCheck)) {
                stop = stopWhilePublishing(id, name, settled);
                nextCheck = clock.instant().plus(CHECK_EVERY);
            }
        }
        if (stop == null && "remainder".equals(name)) {
            stop = stopWhilePublishing(id, name, settled);
        }
        phases.set(phases.size() - 1, new RedriveRecord.Phase(label, start, clock.instant(), pending.size(),
                stop == null ? "published" : "stopped: " + stop));
        steps.phases(id, RedriveRecords.write(phases), node());
        return "abandoned".equals(stop) ? null : stop;
    }

    /**
     * Why the phase must stop now, or null: the sample as soon as it cannot pass any more
     * ({@link RedriveRules#sample}), the remainder at the run's stop rule over all it published.
     */
    private String stopWhilePublishing(String id, String phase, Map<Long, RedriveRules.Observed> settled) {
        if ("sample".equals(phase)) {
            return RedriveRules.sample(records.observed(id, phase, settled), false)
                    instanceof RedriveRules.Failed failed ? failed.reason() : null;
        }
        return RedriveRules.stopReason(records.observed(id, null, settled));
    }

    /** Waits until every sample entry has its outcome; returns why the run must stop, or null to go on. */
    private String awaitSample(String id, Duration timeout, List<RedriveRecord.Phase> phases,
                               Map<Long, RedriveRules.Observed> settled)
            throws InterruptedException {
        Instant start = clock.instant();
        Instant deadline = start.plus(timeout);
        phases.add(new RedriveRecord.Phase("sample_outcomes", start, null, 0, "waiting"));
        steps.phases(id, RedriveRecords.write(phases), node());
        String result;
        String stop;
        List<RedriveRules.Observed> sample;
        while (true) {
            sample = records.observed(id, "sample", settled);
            RedriveRules.SampleVerdict verdict = RedriveRules.sample(sample, true);
            if (verdict instanceof RedriveRules.Failed failed) {
                stop = failed.reason();
                result = stop;
                break;
            }
            if (verdict instanceof RedriveRules.Passed passed) {
                stop = null;
                result = "passed: " + passed.entries() + " of " + passed.entries()
                        + " sample jobs settled without a failure";
                break;
            }
            if (!clock.instant().isBefore(deadline)) {
                stop = "the sample's outcomes were not all known within " + timeout;
                result = stop;
                break;
            }
            if (!running(id)) {
                return null;
            }
            Thread.sleep(CHECK_EVERY.toMillis());
        }
        phases.set(phases.size() - 1, new RedriveRecord.Phase("sample_outcomes", start, clock.instant(),
                sample.size(), result));
        steps.phases(id, RedriveRecords.write(phases), node());
        return stop;
    }

    /** Whether the run goes on here; a run another node took over ends this runner at once ({@link Moved}). */
    private boolean running(String id) {
        RedriveRules.Carrier carrier = steps.carrier(id, node());
        if (carrier instanceof RedriveRules.Carrier.Elsewhere elsewhere) {
            throw new Moved(elsewhere.node());
        }
        return carrier instanceof RedriveRules.Carrier.Here;
    }

    private String node() {
        return leases.node();
    }

    /** The run was taken over by another node: this runner writes nothing more of it. */
    private static final class Moved extends RuntimeException {
        private final String node;

        Moved(String node) {
            super(null, null, false, false);
            this.node = node;
        }
    }

    private void sleepUntil(Instant due) throws InterruptedException {
        long ms = Duration.between(clock.instant(), due).toMillis();
        if (ms > 0) {
            Thread.sleep(ms);
        }
    }
}
