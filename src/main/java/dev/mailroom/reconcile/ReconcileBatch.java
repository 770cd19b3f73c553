package dev.mailroom.reconcile;

import dev.mailroom.job.JobLedger;
import dev.mailroom.job.JobRecipient;
import dev.mailroom.job.JobState;
import dev.mailroom.job.MailJob;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * One batch of the reconciliation job, in its own transaction: reads the next {@code received} calls of the
 * inbox, normalises them, matches each event to its job and carries out {@link DeliveryTransitions}: per
 * recipient the event speaks of ({@code job_recipient.delivery_state}, the event's verbatim text in
 * {@code delivery_detail}), then the roll-up to the job. Every event goes on the job's timeline
 * ({@code delivery_<type>}), every change of the job's state too ({@code delivery_state}).
 *
 * <p>A stored call is one step: if any of its events must wait (its job is not there yet, or still sending),
 * none is applied and the whole call is tried again next run, so nothing is applied twice.
 */
@ApplicationScoped
public class ReconcileBatch {

    private static final Logger LOG = Logger.getLogger(ReconcileBatch.class.getName());

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Inject
    JobLedger ledger;
    @Inject
    MeterRegistry meters;
    @Inject
    dev.mailroom.suppression.SuppressionList suppressions;

    /** What a batch did: the last inbox id it looked at, and how many calls it read. */
    public record Progress(long lastId, int read) {
    }

    /** Reconciles up to {@code max} received calls after inbox id {@code afterId}, as of {@code now}. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Progress next(long afterId, int max, Instant now) {
        List<ProviderEvent> received = em.createQuery("""
                        select e from ProviderEvent e where e.status = :s and e.profile in :p and e.id > :after order by e.id""",
                        ProviderEvent.class)
                .setParameter("s", ProviderEvent.RECEIVED).setParameter("p", EventNormaliser.PROFILES).setParameter("after", afterId)
                .setMaxResults(max).getResultList();
        long last = afterId;
        for (ProviderEvent stored : received) {
            reconcile(stored, now);
            last = stored.getId();
        }
        return new Progress(last, received.size());
    }

    private void reconcile(ProviderEvent stored, Instant now) {
        String profile = stored.getProfile();
        List<TrackingEvent> events;
        try {
            events = EventNormaliser.normalise(profile, stored.getBody());
        } catch (EventNormaliser.Unreadable e) {
            finish(stored, "unreadable", e.getMessage(), now);
            return;
        }
        if (events.isEmpty()) {
            finish(stored, "ignored", "the call carries no delivery events", now);
            return;
        }
        Duration waiting = Duration.between(stored.getReceivedAt(), now);
        Map<TrackingEvent, Optional<MailJob>> jobs = new HashMap<>();
        for (TrackingEvent event : events) {
            Optional<MailJob> job = match(event);
            if (mustWait(job, waiting)) {
                return; // the whole call again next run
            }
            jobs.put(event, job);
        }
        List<String> outcomes = new ArrayList<>();
        for (TrackingEvent event : events) {
            Optional<MailJob> job = jobs.get(event);
            meters.counter("mailroom.reconcile.events", "profile", profile, "type", event.eventType().name()).increment();
            if (job.isEmpty()) {
                outcomes.add("unmatched");
                meters.counter("mailroom.reconcile.unmatched", "profile", profile).increment();
                continue;
            }
            apply(job.get(), event, stored.getId(), waiting, now);
            outcomes.add("applied");
        }
        String outcome = outcomes.contains("unmatched") ? "unmatched" : "applied";
        finish(stored, outcome, String.join(",", outcomes), now);
        lag(profile).record(waiting);
        if (outcome.equals("unmatched")) {
            LOG.warning(() -> "provider event " + stored.getId() + " (" + profile + ") matched no job");
        }
    }

    private static boolean mustWait(Optional<MailJob> job, Duration waiting) {
        return DeliveryTransitions.decide(job.map(MailJob::getState), true, Optional.empty(), EventType.unknown, waiting)
                instanceof DeliveryTransitions.Wait;
    }

    /** Carries out the decision for each recipient the event speaks of, then the roll-up to the job. */
    private void apply(MailJob job, TrackingEvent event, long storedId, Duration waiting, Instant now) {
        // the job's row locked and re-read: an operator's "mark as sent" or "send again" of an unknown job is not lost
        em.flush();
        em.refresh(job, LockModeType.PESSIMISTIC_WRITE);
        List<JobRecipient> recipients = em.createQuery(
                        "select r from JobRecipient r where r.jobId = :j order by r.position", JobRecipient.class)
                .setParameter("j", job.getId()).getResultList();
        List<JobRecipient> concerned = event.recipient() == null ? recipients
                : recipients.stream().filter(r -> event.recipient().equals(r.getAddress())).toList();
        List<String> notes = new ArrayList<>();
        List<DeliveryState> states = new ArrayList<>();
        if (recipients.isEmpty()) {
            // a job received before per-recipient rows existed: the job's own state is its one recipient's
            DeliveryTransitions.Action a = DeliveryTransitions.decide(Optional.of(job.getState()), true, Optional.empty(),
                    event.eventType(), waiting);
            if (a instanceof DeliveryTransitions.Apply apply) {
                states.add(apply.to());
            } else if (a instanceof DeliveryTransitions.RecordOnly r) {
                notes.add(r.why());
            }
        } else if (concerned.isEmpty()) {
            DeliveryTransitions.Action a = DeliveryTransitions.decide(Optional.of(job.getState()), false, Optional.empty(),
                    event.eventType(), waiting);
            notes.add(a instanceof DeliveryTransitions.RecordOnly r ? r.why() : a.toString());
        }
        for (JobRecipient r : concerned) {
            DeliveryTransitions.Action a = DeliveryTransitions.decide(Optional.of(job.getState()), true,
                    DeliveryState.parse(r.getDeliveryState()), event.eventType(), waiting);
            if (a instanceof DeliveryTransitions.Apply apply) {
                r.delivery(apply.to().name(), event.timelineText(), event.timestamp() == null ? now : event.timestamp());
                recipientChanged(job, r, apply, event);
            } else if (a instanceof DeliveryTransitions.RecordOnly record) {
                notes.add(recipients.size() > 1 ? r.getAddress() + ": " + record.why() : record.why());
            }
        }
        ledger.event(job, "delivery_" + event.eventType(), event.timelineText()
                + (notes.isEmpty() ? "" : " (no change: " + String.join("; ", notes) + ")"), now);
        // the one place a hard bounce, a complaint or a provider's own suppression puts the recipient on the list
        SuppressionCauses.of(event).ifPresent(reason -> suppressions.fromEvent(job, event.recipient(), reason, storedId,
                event.timelineText(), now));
        recipients.forEach(r -> DeliveryState.parse(r.getDeliveryState()).ifPresent(states::add));
        JobState before = job.getState();
        JobState after = DeliveryTransitions.rollUp(before, states);
        if (after != before) {
            ledger.moveTo(job, after, now);
            ledger.event(job, "delivery_state", before + " -> " + after + (before == JobState.unknown
                    ? " (the provider's " + event.eventType() + " event settles the unknown send)" : ""), now);
        }
    }

    /**
     * A recipient's delivery state went up. Where a hard bounce or a complaint ({@code apply.suppress()}) is
     * applied: the one place that puts the recipient on the tenant's suppression list.
     */
    private void recipientChanged(MailJob job, JobRecipient recipient, DeliveryTransitions.Apply apply, TrackingEvent event) {
        // the recipient's state is kept on its row; suppression is applied per event in apply()
    }

    /** By the provider's message id recorded at send, else by Mailroom's message_id (newest job first). */
    private Optional<MailJob> match(TrackingEvent event) {
        if (event.providerMessageId() != null) {
            Optional<MailJob> byProvider = em.createQuery(
                            "select j from MailJob j where j.providerMessageId = :p order by j.id desc", MailJob.class)
                    .setParameter("p", event.providerMessageId()).setMaxResults(1).getResultStream().findFirst();
            if (byProvider.isPresent()) {
                return byProvider;
            }
        }
        if (event.messageId() == null) {
            return Optional.empty();
        }
        return em.createQuery("select j from MailJob j where j.messageId = :m order by j.id desc", MailJob.class)
                .setParameter("m", event.messageId()).setMaxResults(1).getResultStream().findFirst();
    }

    private void finish(ProviderEvent stored, String outcome, String why, Instant now) {
        stored.done(outcome, why, now);
        meters.counter("mailroom.reconcile.calls", "profile", stored.getProfile(), "outcome", outcome).increment();
    }

    /**
     * Received → applied (count, sum, max). No client-side percentiles: they need HdrHistogram, which WildFly's
     * Micrometer module does not carry (the timer failed every run); the proof computes p99 from the inbox's
     * received_at/applied_at instead.
     */
    private Timer lag(String profile) {
        return Timer.builder("mailroom.reconcile.lag").tag("profile", profile)
                .description("time from a webhook call's receipt to its events being applied").register(meters);
    }
}
