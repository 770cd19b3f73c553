package dev.mailroom.job;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Instant;
import java.util.List;

/** Read side of the send path: a job with its attempts and timeline, as the API shows it. */
@ApplicationScoped
public class JobQueries {

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;

    public record JobView(String messageId, String queue, String idempotencyKey, String tenant, String campaignId,
                          String category, JobState state, String provider, String providerMessageId,
                          int attemptCount, int providerCalls, String traceId, Instant expiresAt, Instant receivedAt,
                          Instant updatedAt, Instant sentAt, List<AttemptView> attempts,
                          List<EventView> timeline) { }

    public record AttemptView(int number, String provider, Instant startedAt, Instant irrevocableAt,
                              Instant finishedAt, String outcome, String code, String enhancedCode,
                              String response, String errorType, String failureClass, boolean consumedAttempt,
                              String decision) { }

    public record EventView(Instant at, String type, String detail, String actor) { }

    /** The jobs with this message_id, one per send queue that saw it. */
    public List<JobView> byMessageId(String messageId, String queue) {
        var q = em.createQuery("select j from MailJob j where j.messageId = :m"
                + (queue == null ? "" : " and j.queue = :q") + " order by j.id", MailJob.class)
                .setParameter("m", messageId);
        if (queue != null) {
            q.setParameter("q", queue);
        }
        return q.getResultList().stream().map(this::view).toList();
    }

    /** A job's attempts, oldest first. */
    public List<AttemptView> attempts(long jobId) {
        return em.createQuery("select a from JobAttempt a where a.jobId = :j order by a.attemptNumber", JobAttempt.class)
                .setParameter("j", jobId)
                .getResultStream()
                .map(a -> new AttemptView(a.getAttemptNumber(), a.getProvider(), a.getStartedAt(),
                        a.getIrrevocableAt(), a.getFinishedAt(), a.getOutcome(), a.getCode(), a.getEnhancedCode(),
                        a.getResponse(), a.getErrorType(), a.getFailureClass(), a.isConsumedAttempt(),
                        a.getDecision()))
                .toList();
    }

    private JobView view(MailJob j) {
        List<AttemptView> attempts = attempts(j.getId());
        List<EventView> timeline = em.createQuery(
                        "select e from JobEvent e where e.jobId = :j order by e.id", JobEvent.class)
                .setParameter("j", j.getId())
                .getResultStream()
                .map(e -> new EventView(e.getAt(), e.getType(), e.getDetail(), e.getActor()))
                .toList();
        return new JobView(j.getMessageId(), j.getQueue(), j.getIdempotencyKey(), j.getTenant(), j.getCampaignId(),
                j.getCategory(), j.getState(), j.getProvider(), j.getProviderMessageId(),
                // attempt_count: the attempts that used up a retry (throttles and pauses do not)
                (int) attempts.stream().filter(AttemptView::consumedAttempt).count(), attempts.size(), j.getTraceId(), j.getExpiresAt(), j.getReceivedAt(), j.getUpdatedAt(), j.getSentAt(), attempts,
                timeline);
    }
}
