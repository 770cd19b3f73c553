package dev.mailroom.job;

import static dev.mailroom.job.LedgerSql.instant;
import static dev.mailroom.job.LedgerSql.utc;

import dev.mailroom.platform.lease.Leases;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.Query;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One batch of retention, one transaction: up to {@code size} finished jobs of one cohort, read and locked, each
 * judged by {@link JobRetentionPolicy#decide}, and those it removes deleted with their attempts, recipients and
 * timeline; their dead letters (resolved or expired: a pending one keeps its job) lose the link, their claims are kept
 * for the claim window, and an ordering key none of whose jobs is left goes unless it is held. Each batch first checks, under the lease row's lock, that this node still holds retention's
 * lease as it took it: a node that stopped mid-pass and lost the lease deletes nothing more.
 */
@ApplicationScoped
public class RetentionBatch {

    /** Rows one batch removed, by kind ({@code mailroom_jobs_retention_removed_total{kind}}); fenced: none, lease lost. */
    public record Removed(Map<String, Integer> rows, boolean fenced) {

        static final List<String> KINDS = List.of("job", "attempt", "recipient", "timeline", "claim", "provider_event",
                "ordering_key");

        static Removed lost() {
            return new Removed(Map.of(), true);
        }

        int of(String kind) {
            return rows.getOrDefault(kind, 0);
        }
    }

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Inject
    Leases leases;

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Removed jobs(JobRetentionPolicy.Settings settings, JobRetentionPolicy.Cohort cohort, Instant now, int size) {
        if (!leases.fenced(JobRetention.LEASE)) {
            return Removed.lost(); // retention moved to another node while this one was stopped: it removes no more
        }
        Map<Instant, List<Long>> byClaimKeptUntil = new LinkedHashMap<>();
        for (Object[] r : candidates(cohort, now, size)) {
            JobRetentionPolicy.Verdict v = JobRetentionPolicy.decide(new JobRetentionPolicy.Facts(
                    JobState.valueOf((String) r[1]), (String) r[2], instant(r[3]), false, false), settings, now);
            if (v instanceof JobRetentionPolicy.Verdict.Remove remove) {
                byClaimKeptUntil.computeIfAbsent(remove.claimKeptUntil(), k -> new ArrayList<>())
                        .add(((Number) r[0]).longValue());
            }
        }
        Map<String, Integer> rows = new LinkedHashMap<>();
        byClaimKeptUntil.forEach((keptUntil, ids) -> remove(ids, keptUntil, rows));
        return new Removed(rows, false);
    }

    /**
     * Claims past their window and webhook calls the reconciliation is done with that are older than the general
     * retention (a call may name several jobs: it goes by its own age, not with one of them).
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Removed expired(JobRetentionPolicy.Settings settings, Instant now, int size) {
        if (!leases.fenced(JobRetention.LEASE)) {
            return Removed.lost();
        }
        Map<String, Integer> rows = new LinkedHashMap<>();
        rows.put("claim", em.createNativeQuery("""
                        delete from send_claim where idempotency_key in (select idempotency_key from send_claim
                        where kept_until <= ?1 order by kept_until fetch first""" + " " + size + " rows only)")
                .setParameter(1, utc(now)).executeUpdate());
        rows.put("provider_event", em.createNativeQuery("""
                        delete from provider_event where id in (select id from provider_event
                        where status <> 'received' and received_at <= ?1 order by id fetch first""" + " " + size
                        + " rows only)")
                .setParameter(1, utc(now.minus(settings.retention()))).executeUpdate());
        return new Removed(rows, false);
    }

    /** When the oldest finished job (one retention may remove) last changed; null when there is none. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Instant oldestFinished() {
        return instant(em.createNativeQuery(OLDEST_FINISHED).getSingleResult());
    }

    /**
     * The least of each removable state's own oldest: one probe of {@code ix_mail_job_state_updated} per state. A
     * {@code min} over {@code state in (...)} reads every finished job's index entry instead (PostgreSQL cannot take
     * the first of several ranges in order), a million at a million jobs of history, at every tick on every node.
     */
    static final String OLDEST_FINISHED = "select min(oldest) from ("
            + String.join(" union all ", stateNames().stream()
                    .map(state -> "select min(updated_at) as oldest from mail_job where state = '" + state + "'")
                    .toList())
            + ") oldest_per_state";

    /**
     * The cohort's removable jobs past its retention, locked: a pending dead letter or held send keeps one. In no
     * order: every one of them goes, and an order would make PostgreSQL sort all that are due (millions, when
     * retention is far behind) for each batch instead of stopping at the batch's size.
     */
    @SuppressWarnings("unchecked")
    private List<Object[]> candidates(JobRetentionPolicy.Cohort cohort, Instant now, int size) {
        String which = cohort.category() != null ? "j.category = :category"
                : cohort.others().isEmpty() ? "1 = 1" : "(j.category is null or j.category not in (:others))";
        Query q = em.createNativeQuery("select j.id, j.state, j.category, j.updated_at from mail_job j where " + which + " "
                + """
                 and j.state in (:states) and j.updated_at <= :before
                 and not exists (select 1 from dead_letter d where d.job_id = j.id and d.status in ('open', 'replaying'))
                 and not exists (select 1 from held_send h where h.job_id = j.id)
                 fetch first""" + " " + size + " rows only for update")
                .setParameter("states", stateNames())
                .setParameter("before", utc(now.minus(cohort.retention())));
        if (cohort.category() != null) {
            q.setParameter("category", cohort.category());
        } else if (!cohort.others().isEmpty()) {
            q.setParameter("others", cohort.others());
        }
        return q.getResultList();
    }

    @SuppressWarnings("unchecked")
    private void remove(List<Long> ids, Instant claimKeptUntil, Map<String, Integer> rows) {
        List<Object[]> keys = em.createNativeQuery("select distinct queue, ordering_key from mail_job"
                + " where id in (:ids) and ordering_key is not null").setParameter("ids", ids).getResultList();
        em.createNativeQuery("update send_claim set kept_until = :until where job_id in (:ids)")
                .setParameter("until", utc(claimKeptUntil)).setParameter("ids", ids).executeUpdate();
        // a resolved or expired dead letter has its own retention: it outlives its job, without the link
        em.createNativeQuery("update dead_letter set job_id = null where job_id in (:ids)")
                .setParameter("ids", ids).executeUpdate();
        rows.merge("timeline", delete("delete from job_event where job_id in (:ids)", ids), Integer::sum);
        rows.merge("attempt", delete("delete from job_attempt where job_id in (:ids)", ids), Integer::sum);
        rows.merge("recipient", delete("delete from job_recipient where job_id in (:ids)", ids), Integer::sum);
        rows.merge("job", delete("delete from mail_job where id in (:ids)", ids), Integer::sum);
        rows.merge("ordering_key", forgetKeys(keys), Integer::sum);
    }

    /**
     * The rows of the removed jobs' ordering keys that no job is left of and that are not held: a key's row would
     * otherwise outlive its jobs for good (an order number is a key: one row per order ever sent). Each row is locked
     * before the check: a job of the key takes that lock at the door before its own row is written, so the check, a
     * statement of its own after the lock, sees every job of the key there is (a delete checking in its own where
     * clause could miss one committed while it waited for the lock). A key seen again later starts afresh.
     */
    private int forgetKeys(List<Object[]> keys) {
        int forgotten = 0;
        for (Object[] key : keys) {
            boolean unheld = !em.createNativeQuery("select last_seq from ordering_key where queue = ?1"
                            + " and ordering_key = ?2 and held_after_seq is null for update")
                    .setParameter(1, key[0]).setParameter(2, key[1]).getResultList().isEmpty();
            if (unheld) {
                forgotten += em.createNativeQuery("""
                                delete from ordering_key where queue = ?1 and ordering_key = ?2 and not exists
                                (select 1 from mail_job j where j.queue = ?1 and j.ordering_key = ?2)""")
                        .setParameter(1, key[0]).setParameter(2, key[1]).executeUpdate();
            }
        }
        return forgotten;
    }

    private int delete(String sql, List<Long> ids) {
        return em.createNativeQuery(sql).setParameter("ids", ids).executeUpdate();
    }

    private static List<String> stateNames() {
        return JobRetentionPolicy.REMOVABLE.stream().map(Enum::name).sorted().toList();
    }
}
