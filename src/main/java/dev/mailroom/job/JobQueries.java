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

    /**
     * @param attemptCount the attempts that count against the job's attempt budget (an accepted one included;
     *                     throttles and pauses not)
     * @param retriesUsed  the failed attempts that used up a retry ({@link AttemptView#usedRetry})
     * @param subject      the rendered subject as received (masked for a viewer when {@code subject} is a redacted
     *                     field), null for a template job or one received before it was kept
     * @param templateId   the template it was rendered from, null for rendered content
     * @param queuedAt     when the producer sent it (the JMS timestamp), beside {@code receivedAt}: when Mailroom took it
     * @param sendAt       its {@code send_at}: not sent before it (state {@code scheduled} until then); null for none
     */
    public record JobView(long id, String messageId, String queue, String idempotencyKey, String tenant, String campaignId,
                          String category, JobState state, String provider, String providerMessageId,
                          int attemptCount, int retriesUsed, int providerCalls, String traceId, String subject,
                          String templateId, Instant queuedAt, Instant expiresAt, Instant receivedAt,
                          Instant updatedAt, Instant sentAt, Instant sendAt, List<AttemptView> attempts,
                          List<EventView> timeline, List<RecipientView> recipients) { }

    /**
     * One recipient of the job with its own delivery state ({@code delivered}, {@code bounced}, … or
     * {@code suppressed}, never sent) and the provider's or the suppression's words for it; {@code delivery} is
     * what can be said of it ({@link RecipientDelivery}): that state, else what the job's state tells.
     */
    public record RecipientView(int position, String kind, String address, String deliveryState,
                                String deliveryDetail, Instant deliveryAt, String delivery) { }

    /**
     * @param consumedAttempt whether it counts against the job's attempt budget (an accepted attempt does)
     * @param usedRetry       whether its failure used up one of its class's retries ({@link #usedRetry})
     */
    public record AttemptView(int number, String provider, Instant startedAt, Instant irrevocableAt,
                              Instant finishedAt, String outcome, String code, String enhancedCode,
                              String response, String errorType, String failureClass, boolean consumedAttempt,
                              boolean usedRetry, String decision) { }

    /**
     * Whether an attempt used up a retry: it failed (it has a failure class) and the decision made of that failure
     * consumed one (a retry after a transient failure does; an acceptance, a throttle, a pause, a reroute and a
     * failure that ended the job do not). Pure.
     */
    public static boolean usedRetry(String failureClass, boolean consumedAttempt) {
        return failureClass != null && consumedAttempt;
    }

    /** The attempts that called a provider: all but those that ended before the call (an attachment not fetched). */
    public static int providerCalls(List<AttemptView> attempts) {
        return (int) attempts.stream().filter(a -> !JobAttempt.Outcome.not_called.name().equals(a.outcome())).count();
    }

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
                        usedRetry(a.getFailureClass(), a.isConsumedAttempt()), a.getDecision()))
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
        String lastOutcome = attempts.isEmpty() ? null : attempts.get(attempts.size() - 1).outcome();
        List<RecipientView> recipients = em.createQuery(
                        "select r from JobRecipient r where r.jobId = :j order by r.position", JobRecipient.class)
                .setParameter("j", j.getId())
                .getResultStream()
                .map(r -> new RecipientView(r.getPosition(), r.getKind(),
                        reveal ? r.getAddress() : redaction.recipient(r.getKind(), r.getAddress()),
                        r.getDeliveryState(), r.getDeliveryDetail(), r.getDeliveryAt(),
                        RecipientDelivery.of(j.getState(), r.getDeliveryState(), lastOutcome).word()))
                .toList();
        return new JobView(j.getId(), j.getMessageId(), j.getQueue(), j.getIdempotencyKey(), j.getTenant(), j.getCampaignId(),
                j.getCategory(), j.getState(), j.getProvider(), j.getProviderMessageId(),
                (int) attempts.stream().filter(AttemptView::consumedAttempt).count(),
                (int) attempts.stream().filter(AttemptView::usedRetry).count(), providerCalls(attempts), j.getTraceId(),
                reveal ? j.getSubject() : redaction.member("subject", j.getSubject()), j.getTemplateId(),
                j.getQueuedAt(), j.getExpiresAt(), j.getReceivedAt(), j.getUpdatedAt(), j.getSentAt(), j.getSendAt(), attempts,
                timeline, recipients);
    }
}
