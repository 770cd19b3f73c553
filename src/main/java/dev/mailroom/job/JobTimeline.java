package dev.mailroom.job;

import static dev.mailroom.job.LedgerSql.utc;

import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/**
 * The ledger's timeline part: a job's entries ({@code job_event}) and the state moves that go with one. In the
 * caller's transaction; {@link JobLedger} holds the transaction attributes of its entries.
 */
final class JobTimeline {

    /** Timeline rows per multi-row insert: 5 bind parameters each, well under every database's limit. */
    static final int EVENTS_PER_INSERT = 100;

    private final EntityManager em;
    private final Clock clock;

    JobTimeline(EntityManager em, Clock clock) {
        this.em = em;
        this.clock = clock;
    }

    void event(MailJob j, String type, String detail, Instant at) {
        em.persist(new JobEvent(j.getId(), at, type, detail, JobEvent.SYSTEM));
    }

    /** A timeline entry of {@code j}, kept in {@code timeline} to be written with the others ({@link #events}). */
    static void note(List<JobEvent> timeline, MailJob j, String type, String detail, Instant at) {
        timeline.add(new JobEvent(j.getId(), at, type, detail, JobEvent.SYSTEM));
    }

    /**
     * Writes these timeline entries (not yet persisted), in this order, with one multi-row insert per
     * {@value #EVENTS_PER_INSERT}: {@code persist} would be one insert each, as Hibernate cannot batch inserts of
     * identity ids, and the timeline is ordered by that id (a pooled sequence would not keep it in order across
     * nodes). Nothing is read back: the entries stay unmanaged.
     */
    void events(List<JobEvent> entries) {
        for (int from = 0; from < entries.size(); from += EVENTS_PER_INSERT) {
            List<JobEvent> chunk = entries.subList(from, Math.min(entries.size(), from + EVENTS_PER_INSERT));
            StringBuilder sql = new StringBuilder("insert into job_event (job_id, at, type, detail, actor) values ");
            for (int i = 0; i < chunk.size(); i++) {
                sql.append(i == 0 ? "" : ", ").append("(?").append(5 * i + 1).append(", ?").append(5 * i + 2)
                        .append(", ?").append(5 * i + 3).append(", ?").append(5 * i + 4).append(", ?").append(5 * i + 5).append(')');
            }
            jakarta.persistence.Query insert = em.createNativeQuery(sql.toString());
            for (int i = 0; i < chunk.size(); i++) {
                JobEvent e = chunk.get(i);
                insert.setParameter(5 * i + 1, e.getJobId())
                        .setParameter(5 * i + 2, utc(e.getAt()))
                        .setParameter(5 * i + 3, e.getType())
                        .setParameter(5 * i + 4, e.getDetail())
                        .setParameter(5 * i + 5, e.getActor());
            }
            insert.executeUpdate();
        }
    }

    void finish(long jobId, JobState state, String eventType, String detail) {
        Instant now = clock.instant();
        MailJob j = em.find(MailJob.class, jobId);
        j.moveTo(state, now);
        event(j, eventType, detail, now);
    }

    void deferred(String queue, String messageId, String retryJmsMessageId, String why) {
        List<MailJob> jobs = em.createQuery("select j from MailJob j where j.queue = :q and j.messageId = :m", MailJob.class)
                .setParameter("q", queue)
                .setParameter("m", messageId)
                .getResultList();
        for (MailJob j : jobs) {
            if (!j.getState().finished()) {
                j.ownedBy(retryJmsMessageId);
                event(j, "deferred", why, clock.instant());
            }
        }
    }

    void replayed(long jobId, String jmsMessageId, String detail) {
        Instant now = clock.instant();
        MailJob j = em.find(MailJob.class, jobId, LockModeType.PESSIMISTIC_WRITE);
        j.replayed(jmsMessageId, now);
        event(j, "replayed", detail + " as JMS message " + jmsMessageId, now);
    }
}
