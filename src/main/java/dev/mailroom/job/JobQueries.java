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
    @jakarta.inject.Inject
    PayloadRedaction redaction;

    public record JobView(long id, String messageId, String queue, String idempotencyKey, String tenant, String campaignId,
                          String category, JobState state, String provider, String providerMessageId,
                          int attemptCount, int providerCalls, String traceId, Instant expiresAt, Instant receivedAt,
                          Instant updatedAt, Instant sentAt, List<AttemptView> attempts,
                          List<EventView> timeline, List<RecipientView> recipients) { }

    /**
     * One recipient of the job with its own delivery state ({@code delivered}, {@code bounced}, … or
     * {@code suppressed}, never sent) and the provider's or the suppression's words for it.
     */
    public record RecipientView(int position, String kind, String address, String deliveryState,
                                String deliveryDetail, Instant deliveryAt) { }

    public record AttemptView(int number, String provider, Instant startedAt, Instant irrevocableAt,
                              Instant finishedAt, String outcome, String code, String enhancedCode,
                              String response, String errorType, String failureClass, boolean consumedAttempt,
                              String decision) { }

    public record EventView(Instant at, String type, String detail, String actor) { }

    /** The jobs with this message_id, one per send queue that saw it, every recipient shown. */
    public List<JobView> byMessageId(String messageId, String queue) {
        return byMessageId(messageId, queue, true);
    }

    /**
     * The jobs with this message_id, one per send queue that saw it; unless {@code reveal}, the addresses of
     * a recipient kind named in {@code mailroom.redact.fields} ({@code to}, {@code cc}, {@code bcc}) are
     * masked as a payload's would be.
     */
    public List<JobView> byMessageId(String messageId, String queue, boolean reveal) {
        var q = em.createQuery("select j from MailJob j where j.messageId = :m"
                + (queue == null ? "" : " and j.queue = :q") + " order by j.id", MailJob.class)
                .setParameter("m", messageId);
        if (queue != null) {
            q.setParameter("q", queue);
        }
        return q.getResultList().stream().map(j -> view(j, reveal)).toList();
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

    private JobView view(MailJob j, boolean reveal) {
        List<AttemptView> attempts = attempts(j.getId());
        List<EventView> timeline = em.createQuery(
                        "select e from JobEvent e where e.jobId = :j order by e.id", JobEvent.class)
                .setParameter("j", j.getId())
                .getResultStream()
                .map(e -> new EventView(e.getAt(), e.getType(), e.getDetail(), e.getActor()))
                .toList();
        List<RecipientView> recipients = em.createQuery(
                        "select r from JobRecipient r where r.jobId = :j order by r.position", JobRecipient.class)
                .setParameter("j", j.getId())
                .getResultStream()
                .map(r -> new RecipientView(r.getPosition(), r.getKind(),
                        reveal ? r.getAddress() : redaction.recipient(r.getKind(), r.getAddress()),
                        r.getDeliveryState(), r.getDeliveryDetail(), r.getDeliveryAt()))
                .toList();
        return new JobView(j.getId(), j.getMessageId(), j.getQueue(), j.getIdempotencyKey(), j.getTenant(), j.getCampaignId(),
                j.getCategory(), j.getState(), j.getProvider(), j.getProviderMessageId(),
                // attempt_count: the attempts that used up a retry (throttles and pauses do not)
                (int) attempts.stream().filter(AttemptView::consumedAttempt).count(), attempts.size(), j.getTraceId(), j.getExpiresAt(), j.getReceivedAt(), j.getUpdatedAt(), j.getSentAt(), attempts,
                timeline, recipients);
    }
}
