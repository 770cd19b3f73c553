package dev.mailroom.job;

import static dev.mailroom.job.LedgerSql.onTables;
import static dev.mailroom.job.LedgerSql.utc;

import dev.mailroom.platform.Refused;
import dev.mailroom.recoverability.KeyOrderPolicy;
import jakarta.persistence.EntityManager;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The ledger's part for jobs with an {@code ordering_key}: each one's place in its key, taken at the door; a job that
 * waits behind its key's head, recorded with its bytes; and after a job of a key, the next one released or the key
 * held, as {@link KeyOrderPolicy} decides. Every step locks the key's row first ({@code ordering_key}), so the door of
 * one job and the end of another are one after the other, never both reading a key as it was. In the caller's
 * transaction; {@link KeyLedger} holds the transaction attributes of its entries.
 */
final class KeyedJobs {

    /** The states of a job that has not ended, as an SQL list of literals (the enum's names, nothing from outside). */
    private static final String UNFINISHED = Arrays.stream(JobState.values()).filter(s -> !s.finished())
            .map(s -> "'" + s.name() + "'").collect(Collectors.joining(", "));

    private final EntityManager em;
    private final Clock clock;
    private final ValidityWindow validity;

    KeyedJobs(EntityManager em, Clock clock, ValidityWindow validity) {
        this.em = em;
        this.clock = clock;
        this.validity = validity;
    }

    /** What the door decided for a keyed job, and the job. */
    record Arrived(long jobId, KeyOrderPolicy.Place place) {
    }

    /**
     * The job received (inserted, with its place in its key, or locked), the facts gathered under the key's lock,
     * the policy asked, and a job that waits recorded {@code waiting_for_key} with its bytes.
     */
    Arrived arrive(Incoming in, SendJob job) {
        Instant now = clock.instant();
        Key key = lockKey(in.queue(), job.orderingKey());
        MailJob j = new JobAdmission(em, clock, validity).receive(in, job, JobState.received, now);
        if (j.getKeySeq() == null) {
            long seq = key.lastSeq() + 1;
            onTables(em, "update ordering_key set last_seq = ?1 where queue = ?2 and ordering_key = ?3", "ordering_key")
                    .setParameter(1, seq).setParameter(2, in.queue()).setParameter(3, job.orderingKey())
                    .executeUpdate();
            j.placed(job.orderingKey(), seq);
        }
        Long earlier = firstUnfinished(in.queue(), job.orderingKey(), j.getKeySeq());
        String held = key.heldAfterSeq() != null && j.getKeySeq() > key.heldAfterSeq() ? key.heldReason() : null;
        KeyOrderPolicy.Place place = KeyOrderPolicy.atTheDoor(new KeyOrderPolicy.Arrival(j.getState().finished(),
                j.getState() == JobState.waiting_for_key, earlier, held));
        if (place instanceof KeyOrderPolicy.WaitBehind || place instanceof KeyOrderPolicy.Held) {
            em.persist(new KeyWait(j.getId(), in, now));
            j.moveTo(JobState.waiting_for_key, now);
            new JobTimeline(em, clock).event(j, "waiting_for_key", place.describe() + " (place " + j.getKeySeq()
                    + " of key " + job.orderingKey() + "); its message acknowledged, its bytes kept until then", now);
        } else if (place instanceof KeyOrderPolicy.AlreadyWaiting) {
            new JobTimeline(em, clock).event(j, "redelivery_ignored", "JMS message " + in.jmsMessageId() + ": "
                    + place.describe(), now);
        }
        em.flush();
        return new Arrived(j.getId(), place);
    }

    /**
     * After a delivery of job {@code messageId} of a key: if it ended, the key's next job released (returned, for the
     * caller to publish) or the key held, as the policy decides with the queue's {@code setting}.
     */
    Optional<KeyRelease> after(String queue, String messageId, KeyOrderPolicy.AfterDeadLetter setting) {
        List<MailJob> found = em.createQuery("select j from MailJob j where j.queue = :q and j.messageId = :m",
                MailJob.class).setParameter("q", queue).setParameter("m", messageId).getResultList();
        MailJob j = found.isEmpty() ? null : found.get(0);
        if (j == null || j.getOrderingKey() == null) {
            return Optional.empty();
        }
        Key key = lockKey(j.getQueue(), j.getOrderingKey());
        em.flush();
        em.refresh(j); // its end may have been committed by a transaction of its own, after this one read it
        Long first = firstUnfinished(j.getQueue(), j.getOrderingKey(), Long.MAX_VALUE);
        MailJob next = first == null ? null : em.find(MailJob.class, first);
        KeyOrderPolicy.Next decided = KeyOrderPolicy.afterEnd(new KeyOrderPolicy.Ended(j.getState().name(),
                next != null && next.getState() == JobState.waiting_for_key, setting,
                j.getKeySeq() != null && j.getKeySeq().equals(key.heldAfterSeq())));
        if (decided instanceof KeyOrderPolicy.HoldKey hold) {
            hold(j, hold.reason());
            return Optional.empty();
        }
        if (decided instanceof KeyOrderPolicy.LiftHold lift) {
            unhold(j.getQueue(), j.getOrderingKey());
            new JobTimeline(em, clock).event(j, "key_hold_lifted", lift.describe() + " (held: " + key.heldReason()
                    + ")", clock.instant());
            return next != null && next.getState() == JobState.waiting_for_key ? releasing(next) : Optional.empty();
        }
        if (decided instanceof KeyOrderPolicy.ReleaseNext && !held(j.getQueue(), j.getOrderingKey(), next)) {
            return releasing(next);
        }
        return Optional.empty();
    }

    /** The released job's copy, JMS message {@code copyJmsMessageId}, is on its queue and owns the job. */
    void released(long jobId, String copyJmsMessageId, String why) {
        Instant now = clock.instant();
        MailJob j = em.find(MailJob.class, jobId);
        KeyWait wait = em.find(KeyWait.class, jobId);
        if (wait != null) {
            em.remove(wait);
        }
        j.ownedBy(copyJmsMessageId);
        j.moveTo(JobState.received, now);
        new JobTimeline(em, clock).event(j, "released_by_key", why + "; goes as JMS message " + copyJmsMessageId, now);
    }

    /** The held keys, on {@code queue} if given, oldest hold first, at most {@code limit}. */
    List<HeldKey> held(String queue, int limit) {
        // the queue's condition only when one is given: PostgreSQL cannot type a null parameter in "?1 is null"
        jakarta.persistence.Query q = onTables(em, """
                select k.queue, k.ordering_key, k.held_reason, k.held_at, k.held_after_seq,
                       (select count(*) from mail_job j where j.queue = k.queue and j.ordering_key = k.ordering_key
                          and j.state = 'waiting_for_key')
                from ordering_key k where k.held_after_seq is not null %s
                order by k.held_at, k.queue, k.ordering_key limit ?1""".formatted(queue == null ? "" : "and k.queue = ?2"),
                "ordering_key", "mail_job").setParameter(1, limit);
        if (queue != null) {
            q.setParameter(2, queue);
        }
        List<?> rows = q.getResultList();
        return rows.stream().map(r -> (Object[]) r).map(r -> new HeldKey((String) r[0], (String) r[1], (String) r[2],
                LedgerSql.instant(r[3]), ((Number) r[4]).longValue(), ((Number) r[5]).longValue())).toList();
    }

    /**
     * An operator releases a held key: the hold goes, recorded on the key's first waiting job (returned to publish),
     * whose later jobs then go one after the other as each ends.
     *
     * @throws Refused.NotFound for a key the queue never saw; {@link Refused.Conflict} for one that is not held
     */
    Optional<KeyRelease> release(String queue, String orderingKey, String actor, String why) {
        List<?> exists = onTables(em, "select 1 from ordering_key where queue = ?1 and ordering_key = ?2",
                "ordering_key").setParameter(1, queue).setParameter(2, orderingKey).getResultList();
        if (exists.isEmpty()) {
            throw new Refused.NotFound("key_not_found", "no ordering key '" + orderingKey + "' on " + queue);
        }
        Key key = lockKey(queue, orderingKey);
        if (key.heldAfterSeq() == null) {
            throw new Refused.Conflict("not_held", "ordering key '" + orderingKey + "' on " + queue
                    + " is not held: its jobs go as the ones before them end");
        }
        unhold(queue, orderingKey);
        Long first = firstUnfinished(queue, orderingKey, Long.MAX_VALUE);
        MailJob next = first == null ? null : em.find(MailJob.class, first);
        Instant now = clock.instant();
        if (next == null || next.getState() != JobState.waiting_for_key) {
            return Optional.empty();
        }
        em.persist(new JobEvent(next.getId(), now, "key_hold_released", "ordering key released by " + actor
                + " (held: " + key.heldReason() + "): " + why, actor));
        return releasing(next);
    }

    /** A dead-lettered head holds its key: the jobs after it wait until an operator releases it. */
    private void hold(MailJob head, String reason) {
        onTables(em, """
                update ordering_key set held_after_seq = ?1, held_reason = ?2, held_at = ?3
                where queue = ?4 and ordering_key = ?5 and (held_after_seq is null or held_after_seq < ?1)""",
                "ordering_key")
                .setParameter(1, head.getKeySeq()).setParameter(2, "job " + head.getMessageId() + " " + reason)
                .setParameter(3, utc(clock.instant())).setParameter(4, head.getQueue())
                .setParameter(5, head.getOrderingKey())
                .executeUpdate();
    }

    /** The waiting job {@code next}, with its kept delivery, for the caller to publish. */
    private Optional<KeyRelease> releasing(MailJob next) {
        return Optional.of(new KeyRelease(next.getId(), em.find(KeyWait.class, next.getId()).delivery(next.getQueue())));
    }

    private void unhold(String queue, String orderingKey) {
        onTables(em, """
                update ordering_key set held_after_seq = null, held_reason = null, held_at = null
                where queue = ?1 and ordering_key = ?2""", "ordering_key")
                .setParameter(1, queue).setParameter(2, orderingKey).executeUpdate();
    }

    /** Whether {@code next} is behind the key's hold. */
    private boolean held(String queue, String orderingKey, MailJob next) {
        Key key = readKey(queue, orderingKey);
        return key.heldAfterSeq() != null && next.getKeySeq() > key.heldAfterSeq();
    }

    /** The key's row. */
    private record Key(long lastSeq, Long heldAfterSeq, String heldReason) {
    }

    /**
     * The key's row, inserted if it is new, locked for the rest of the transaction. Retention removes the row of a key
     * none of whose jobs is left ({@link RetentionBatch}): if it did so between the insert and the lock, the row is
     * inserted again.
     */
    private Key lockKey(String queue, String orderingKey) {
        for (int tries = 0; ; tries++) {
            onTables(em, "insert into ordering_key (queue, ordering_key, last_seq) values (?1, ?2, 0)"
                    + " on conflict do nothing", "ordering_key")
                    .setParameter(1, queue).setParameter(2, orderingKey).executeUpdate();
            Optional<Key> key = key(queue, orderingKey, " for update");
            if (key.isPresent() || tries == 1) {
                return key.orElseThrow(() -> new IllegalStateException("ordering key '" + orderingKey + "' on "
                        + queue + " was removed twice while it was being locked"));
            }
        }
    }

    private Key readKey(String queue, String orderingKey) {
        return key(queue, orderingKey, "").orElseThrow();
    }

    private Optional<Key> key(String queue, String orderingKey, String lock) {
        List<?> rows = onTables(em, "select last_seq, held_after_seq, held_reason from ordering_key"
                + " where queue = ?1 and ordering_key = ?2" + lock, "ordering_key")
                .setParameter(1, queue).setParameter(2, orderingKey).getResultList();
        return rows.stream().map(r -> (Object[]) r).findFirst().map(row -> new Key(((Number) row[0]).longValue(),
                row[1] == null ? null : ((Number) row[1]).longValue(), (String) row[2]));
    }

    /** The id of the key's first job before place {@code before} that has not ended, or null. */
    private Long firstUnfinished(String queue, String orderingKey, long before) {
        List<?> ids = onTables(em, """
                select id from mail_job where queue = ?1 and ordering_key = ?2 and key_seq < ?3 and state in (%s)
                order by key_seq limit 1""".formatted(UNFINISHED), "mail_job")
                .setParameter(1, queue).setParameter(2, orderingKey).setParameter(3, before).getResultList();
        return ids.isEmpty() ? null : ((Number) ids.get(0)).longValue();
    }
}
