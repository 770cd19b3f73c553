package dev.mailroom.redrive;

import dev.mailroom.deadletter.DeadLetter;
import dev.mailroom.deadletter.DeadLetterActions;
import dev.mailroom.deadletter.DeadLetterCounts;
import dev.mailroom.deadletter.DeadLetterQueries;
import dev.mailroom.platform.Refused;
import dev.mailroom.job.Incoming;
import dev.mailroom.job.JobLedger;
import dev.mailroom.job.MailJob;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The steps of a run, each its own JTA transaction: what a crash can interrupt is a whole step or
 * nothing. Publishing one entry (republish to its source queue, remove the broker's DLQ copy, mark the
 * row and the job) is one transaction over the broker and the database.
 */
@ApplicationScoped
public class RedriveSteps {

    /** Rows per flush when a step touches a whole cohort. */
    private static final int BATCH = 200;

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Inject
    ReplayMessages messages;
    @Inject
    DeadLetterActions actions;
    @Inject
    DeadLetterCounts counts;
    @Inject
    JobLedger ledger;
    @Inject
    Clock clock;

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void persistPlan(Redrive plan, List<DeadLetterQueries.Candidate> cohort, int sampleSize) {
        em.persist(plan);
        Map<Long, Integer> revisions = latestRevisions(cohort.stream().map(DeadLetterQueries.Candidate::id).toList());
        int position = 0;
        for (DeadLetterQueries.Candidate d : cohort) {
            String phase = plan.actionValue() == Redrive.Action.discard ? "discard"
                    : position < sampleSize ? "sample" : "remainder";
            em.persist(new RedriveEntry(plan.getId(), d, position++, phase, revisions.getOrDefault(d.id(), 0)));
            if (position % BATCH == 0) {
                em.flush();
                em.clear();
            }
        }
    }

    /**
     * Starts (or resumes) a run. A new run claims every entry of its cohort that is still as planned:
     * {@code replaying} with this run's id, under the row's lock, so a second run on an overlapping
     * cohort finds it taken and skips it.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void start(String id, String actor, String node, boolean resume) {
        Redrive r = lock(id);
        RedriveRules.require(resume ? RedriveRules.Command.resume : RedriveRules.Command.run, id, r.statusValue());
        r.started(actor, node, clock.instant());
        if (resume || r.actionValue() == Redrive.Action.discard) {
            return;
        }
        int n = 0;
        // the counts of every claim at once, after the last dead letter's lock (DeadLetterCounts' one lock order)
        List<DeadLetterCounts.Change> claimed = new ArrayList<>();
        for (long entryId : entryIds(id, RedriveEntry.Outcome.pending)) {
            RedriveEntry e = em.find(RedriveEntry.class, entryId);
            DeadLetter d = em.find(DeadLetter.class, e.getDeadLetterId(), LockModeType.PESSIMISTIC_WRITE);
            String changed = changedSincePlanning(e, d);
            if (changed != null) {
                e.outcome(RedriveEntry.Outcome.skipped_changed, changed);
            } else {
                actions.transition(d, DeadLetter.Status.replaying, id, actor, "claimed by redrive " + id, claimed);
            }
            releaseMemory(++n);
        }
        counts.apply(claimed);
    }

    /** Dead-letter rows carry their payload: a big cohort is worked through in batches, not held at once. */
    private void releaseMemory(int done) {
        if (done % BATCH == 0) {
            em.flush();
            em.clear();
        }
    }

    /**
     * Publishes one claimed entry: its latest revision or its original bytes (taken from the broker's DLQ
     * copy, which is removed in the same transaction) go back to the source queue with the original
     * idempotency key, marked with this run's id; the row becomes {@code replayed} and the job starts
     * again. An entry past its validity window is discarded as expired instead.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void publish(String redriveId, long entryId, String actor, String node) {
        if (!(carrier(em.find(Redrive.class, redriveId), node) instanceof RedriveRules.Carrier.Here)) {
            return; // taken over by another node (or ended) while this node's runner was stopped: not its entry now
        }
        RedriveEntry e = lockedEntry(entryId);
        if (e.outcomeValue() != RedriveEntry.Outcome.pending) {
            return; // done before a crash, or by a resumed run: never twice
        }
        DeadLetter d = em.find(DeadLetter.class, e.getDeadLetterId(), LockModeType.PESSIMISTIC_WRITE);
        if (d == null || !DeadLetter.Status.replaying.name().equals(d.getStatus()) || !redriveId.equals(d.getRedriveId())) {
            e.outcome(RedriveEntry.Outcome.skipped_changed, d == null ? "purged since planning"
                    : "now " + d.getStatus() + (d.getRedriveId() != null ? " (redrive " + d.getRedriveId() + ")" : ""));
            return;
        }
        Instant now = clock.instant();
        if (dev.mailroom.recoverability.ValidityCheck.expired(d.getExpiresAt(), now)) {
            String why = "expired: its validity window ended at " + d.getExpiresAt() + "; not sent late (redrive "
                    + redriveId + ")";
            actions.transition(d, DeadLetter.Status.discarded, redriveId, actor, why);
            e.outcome(RedriveEntry.Outcome.discarded_expired, why);
            return;
        }
        MailJob job = d.getJobId() == null ? null : ledger.job(d.getJobId());
        if (job != null && job.getState().finished() && job.getState() != dev.mailroom.job.JobState.dead_lettered) {
            String why = "job " + job.getId() + " is already " + job.getState() + ": not sent twice (redrive " + redriveId + ")";
            actions.transition(d, DeadLetter.Status.discarded, redriveId, actor, why);
            e.outcome(RedriveEntry.Outcome.duplicate_suppressed, why);
            return;
        }
        DeadLetterRevision revision = latest(d.getId());
        Incoming original = messages.takeDlqCopy(d);
        byte[] body;
        boolean text;
        if (revision != null) {
            body = revision.getPayload();
            text = true;
        } else if (original != null) {
            body = original.body();
            text = original.textMessage();
        } else if (d.getPayload() != null && !d.isPayloadTruncated()) {
            body = d.getPayload();
            text = ReplayMessages.isUtf8(body); // the DLQ copy that said which is gone: text if it reads as text
        } else {
            String why = "the broker's DLQ copy is gone and the stored payload is "
                    + (d.getPayload() == null ? "purged" : "truncated") + ": nothing to replay byte-for-byte";
            actions.transition(d, DeadLetter.Status.open, null, actor, why);
            e.outcome(RedriveEntry.Outcome.skipped_changed, why);
            return;
        }
        String jmsMessageId = messages.send(d, body, text, original == null ? null : original.traceparent(), redriveId);
        if (job != null) {
            ledger.replayed(job.getId(), jmsMessageId, "redrive " + redriveId + " of dead letter " + d.getId()
                    + (revision == null ? "" : " (revision " + revision.getRevision() + ")"));
        }
        actions.transition(d, DeadLetter.Status.replayed, redriveId, actor, "replayed by redrive " + redriveId
                + " as JMS message " + jmsMessageId + (revision == null ? "" : " (revision " + revision.getRevision() + ")"));
        e.published(now, jmsMessageId, revision == null ? null : revision.getRevision(),
                revision == null ? null : revision.getIdempotencyKey());
    }

    /** Discards one entry of a discard plan, if it is still open and as planned. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void discard(String redriveId, long entryId, String actor, String why) {
        RedriveEntry e = lockedEntry(entryId);
        if (e.outcomeValue() != RedriveEntry.Outcome.pending) {
            return;
        }
        DeadLetter d = em.find(DeadLetter.class, e.getDeadLetterId(), LockModeType.PESSIMISTIC_WRITE);
        String changed = changedSincePlanning(e, d);
        if (changed != null) {
            e.outcome(RedriveEntry.Outcome.skipped_changed, changed);
            return;
        }
        actions.transition(d, DeadLetter.Status.discarded, redriveId, actor, why + " (redrive " + redriveId + ")");
        e.outcome(RedriveEntry.Outcome.discarded, why);
    }

    /**
     * Ends a run that will publish nothing more: entries not yet published are {@code not_run} and their
     * dead letters {@code open} again.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void end(String id, Redrive.Status end, String why, String actor) {
        lock(id);
        int n = 0;
        List<DeadLetterCounts.Change> released = new ArrayList<>();
        for (long entryId : entryIds(id, RedriveEntry.Outcome.pending)) {
            RedriveEntry e = em.find(RedriveEntry.class, entryId);
            DeadLetter d = em.find(DeadLetter.class, e.getDeadLetterId(), LockModeType.PESSIMISTIC_WRITE);
            if (d != null && DeadLetter.Status.replaying.name().equals(d.getStatus()) && id.equals(d.getRedriveId())) {
                actions.transition(d, DeadLetter.Status.open, null, actor, "released: redrive " + id + " "
                        + end.name() + (why == null ? "" : ": " + why), released);
            }
            e.outcome(RedriveEntry.Outcome.not_run, why);
            releaseMemory(++n);
        }
        counts.apply(released);
        em.find(Redrive.class, id).ended(end, why, clock.instant());
    }

    /** {@link #end}, by the runner on {@code node}: only while the run is still carried out there. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void endHere(String id, Redrive.Status end, String why, String actor, String node) {
        if (carrier(lock(id), node) instanceof RedriveRules.Carrier.Here) {
            end(id, end, why, actor);
        }
    }

    /** The run completed, by the runner on {@code node}: only while the run is still carried out there. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void complete(String id, String node) {
        Redrive r = lock(id);
        if (carrier(r, node) instanceof RedriveRules.Carrier.Here) {
            r.ended(Redrive.Status.completed, null, clock.instant());
        }
    }

    /** The run's phases, by the runner on {@code node}: not once another node took the run over. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void phases(String id, String json, String node) {
        Redrive r = lock(id);
        if (!(carrier(r, node) instanceof RedriveRules.Carrier.Elsewhere)) {
            r.phases(json);
        }
    }

    /** Who carries run {@code id} out now, as {@code node} sees it (read in its own transaction). */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public RedriveRules.Carrier carrier(String id, String node) {
        return carrier(em.find(Redrive.class, id), node);
    }

    private static RedriveRules.Carrier carrier(Redrive r, String node) {
        return RedriveRules.carrier(r.statusValue(), r.getNode(), node);
    }

    /** Marks this node's runs that were running when it went down as {@code interrupted}. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public int interruptRunsOf(String node) {
        List<Redrive> running = em.createQuery("select r from Redrive r where r.status = 'running' and r.node = :n",
                Redrive.class).setParameter("n", node).getResultList();
        running.forEach(r -> r.ended(Redrive.Status.interrupted,
                "the server stopped during the run: resume it or abandon it", clock.instant()));
        return running.size();
    }

    /**
     * {@link #interruptRunsOf} for the takeover of a stopped node's runs, if {@code fenced} (asked in this transaction,
     * the takeover's lease) still lets this node do it; -1 when it does not.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public int interruptRunsOfStopped(String node, java.util.function.BooleanSupplier fenced) {
        return fenced.getAsBoolean() ? interruptRunsOf(node) : -1;
    }

    /** The nodes other than {@code node} that are carrying out a run, as recorded. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<String> nodesRunningOtherThan(String node) {
        return em.createQuery("select distinct r.node from Redrive r where r.status = 'running' and r.node <> :n",
                String.class).setParameter("n", node).getResultList();
    }

    /** The runs {@code node} is carrying out, as recorded. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<String> runningOn(String node) {
        return em.createQuery("select r.id from Redrive r where r.status = 'running' and r.node = :n", String.class)
                .setParameter("n", node).getResultList();
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Redrive load(String id) {
        Redrive r = em.find(Redrive.class, id);
        if (r == null) {
            throw new Refused.NotFound("redrive_not_found", "no redrive with id " + id);
        }
        em.detach(r);
        return r;
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<Long> pendingEntries(String id, String phase) {
        return em.createQuery("""
                        select e.id from RedriveEntry e where e.redriveId = :r and e.phase = :p and e.outcome = 'pending'
                        order by e.position""", Long.class)
                .setParameter("r", id).setParameter("p", phase).getResultList();
    }

    private String changedSincePlanning(RedriveEntry e, DeadLetter d) {
        if (d == null) {
            return "purged since planning";
        }
        if (!DeadLetter.Status.open.name().equals(d.getStatus())) {
            return "now " + d.getStatus() + (d.getRedriveId() != null ? " (redrive " + d.getRedriveId() + ")" : "");
        }
        if (!d.getFailedAt().equals(e.getFailedAt()) || d.getLap() != e.getLap()) {
            return "failed again since planning";
        }
        if (latestRevision(d.getId()) != e.getPlannedRevision()) {
            return "edited since planning";
        }
        return null;
    }

    private Redrive lock(String id) {
        Redrive r = em.find(Redrive.class, id, LockModeType.PESSIMISTIC_WRITE);
        if (r == null) {
            throw new Refused.NotFound("redrive_not_found", "no redrive with id " + id);
        }
        return r;
    }

    private List<Long> entryIds(String id, RedriveEntry.Outcome outcome) {
        return em.createQuery("""
                        select e.id from RedriveEntry e where e.redriveId = :r and e.outcome = :o order by e.position""",
                        Long.class)
                .setParameter("r", id).setParameter("o", outcome.name()).getResultList();
    }

    DeadLetterRevision latest(long deadLetterId) {
        List<DeadLetterRevision> r = em.createQuery("""
                        select r from DeadLetterRevision r where r.deadLetterId = :d order by r.revision desc""",
                        DeadLetterRevision.class)
                .setParameter("d", deadLetterId).setMaxResults(1).getResultList();
        return r.isEmpty() ? null : r.get(0);
    }

    private Map<Long, Integer> latestRevisions(List<Long> deadLetterIds) {
        Map<Long, Integer> latest = new HashMap<>();
        for (int from = 0; from < deadLetterIds.size(); from += BATCH) {
            em.createQuery("""
                            select r.deadLetterId, max(r.revision) from DeadLetterRevision r
                            where r.deadLetterId in :ids group by r.deadLetterId""", Object[].class)
                    .setParameter("ids", deadLetterIds.subList(from, Math.min(deadLetterIds.size(), from + BATCH)))
                    .getResultStream().forEach(row -> latest.put((Long) row[0], ((Number) row[1]).intValue()));
        }
        return latest;
    }

    int latestRevision(long deadLetterId) {
        DeadLetterRevision r = latest(deadLetterId);
        return r == null ? 0 : r.getRevision();
    }

    /**
     * The entry, locked for this transaction. Nothing deletes a running run's entries: Hibernate answers null for a
     * find whose statement failed in a transaction already marked for rollback (the connection gave up, e.g. while it
     * waited on a row lock a stopped node held), so null is that failure.
     */
    private RedriveEntry lockedEntry(long entryId) {
        RedriveEntry e = em.find(RedriveEntry.class, entryId, LockModeType.PESSIMISTIC_WRITE);
        if (e == null) {
            throw new EntryNotRead(entryId);
        }
        return e;
    }

    /** A step could not read its entry: its transaction failed on the database and changed nothing. */
    public static final class EntryNotRead extends RuntimeException {
        private static final long serialVersionUID = 1L;

        EntryNotRead(long entryId) {
            super("redrive entry " + entryId + " could not be read: its transaction failed on the database");
        }
    }
}
