package dev.mailroom.reconcile;

import dev.mailroom.job.JobLedger;
import dev.mailroom.job.JobRecipient;
import dev.mailroom.job.JobState;
import dev.mailroom.job.MailJob;
import dev.mailroom.suppression.SuppressionReason;
import io.micrometer.core.instrument.MeterRegistry;
import dev.mailroom.platform.Meters;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.FlushModeType;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.logging.Logger;

/**
 * One batch of the reconciliation job, in its own transaction: takes {@code received} calls of the inbox,
 * normalises them, matches each event to its job and carries out {@link DeliveryTransitions}: per
 * recipient the event speaks of ({@code job_recipient.delivery_state}, the event's verbatim text in
 * {@code delivery_detail}), then the roll-up to the job. Every event goes on the job's timeline
 * ({@code delivery_<type>}), every change of the job's state too ({@code delivery_state}).
 *
 * <p>A batch costs a fixed number of queries, not a few per event (measured: per-event lookups and a
 * re-read of the job per event kept the job at ~200 calls/s under a 470 calls/s burst): the jobs of every
 * event of the batch are matched in one query per kind of id, the finished ones locked in id order in one
 * query (an operator's "mark as sent" or "send again" of an unknown job is not lost, and two batches never
 * lock in opposite orders), their recipients read in one; only the timeline rows are one insert each.
 *
 * <p>A stored call is one step: if any of its events must wait (its job is not there yet, or still sending),
 * none is applied and the whole call is tried again later, so nothing is applied twice.
 */
@ApplicationScoped
public class ReconcileBatch {

    private static final Logger LOG = Logger.getLogger(ReconcileBatch.class.getName());
    /** Ids per IN list: well under every database's bind-parameter limit. */
    static final int IN_CHUNK = 1000;

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Inject
    JobLedger ledger;
    @Inject
    @Meters
    MeterRegistry meters;
    @Inject
    dev.mailroom.suppression.SuppressionList suppressions;
    @Inject
    java.time.Clock clock;

    /** What a batch did: the last inbox id it looked at, how many calls it read and how many of them wait. */
    public record Progress(long lastId, int read, int waiting) {
    }

    /**
     * The ids of up to {@code max} calls still received after inbox id {@code afterId}, in order (what the sweep
     * takes next: only ids, so the job can claim them before a batch reconciles them, see {@link Reconciler}).
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<Long> received(long afterId, int max) {
        return em.createQuery("""
                        select e.id from ProviderEvent e where e.status = :s and e.profile in :p and e.id > :after order by e.id""",
                        Long.class)
                .setParameter("s", ProviderEvent.RECEIVED).setParameter("p", EventNormaliser.PROFILES).setParameter("after", afterId)
                .setMaxResults(max).getResultList();
    }

    /** Reconciles the calls with these inbox ids that are still received (fresh arrivals, or what the sweep took). */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Progress these(Collection<Long> ids) {
        List<ProviderEvent> received = new ArrayList<>();
        for (List<Long> chunk : chunks(new TreeSet<>(ids))) {
            received.addAll(em.createQuery("""
                            select e from ProviderEvent e where e.id in :ids and e.status = :s and e.profile in :p order by e.id""",
                            ProviderEvent.class)
                    .setParameter("ids", chunk).setParameter("s", ProviderEvent.RECEIVED).setParameter("p", EventNormaliser.PROFILES)
                    .getResultList());
        }
        return reconcile(received, 0, clock.instant());
    }

    /** A call's events and the jobs they matched (by position), once none of them must wait. */
    private record Call(ProviderEvent stored, List<TrackingEvent> events, Duration waiting) {
    }

    /** {@code now}: read after the calls were, so no call was received after it (its lag would be negative). */
    Progress reconcile(List<ProviderEvent> received, long afterId, Instant now) {
        // nothing below reads back what it wrote through the persistence context (the queries come first, the
        // suppression list is written with its own statements): one flush at the end, not one before every query
        em.setFlushMode(FlushModeType.COMMIT);
        long last = afterId;
        List<Call> calls = new ArrayList<>();
        for (ProviderEvent stored : received) {
            last = Math.max(last, stored.getId());
            try {
                List<TrackingEvent> events = EventNormaliser.normalise(stored.getProfile(), stored.getBody());
                if (events.isEmpty()) {
                    finish(stored, "ignored", "the call carries no delivery events", now);
                } else {
                    calls.add(new Call(stored, events, Duration.between(stored.getReceivedAt(), now)));
                }
            } catch (EventNormaliser.Unreadable e) {
                finish(stored, "unreadable", e.getMessage(), now);
            }
        }
        Matches matches = match(calls);
        Map<Long, MailJob> locked = lockFinished(matches);
        List<Call> ready = new ArrayList<>();
        int waiting = 0;
        for (Call call : calls) {
            boolean mustWait = call.events().stream().anyMatch(e -> {
                Long jobId = matches.jobOf(e);
                Optional<JobState> state = jobId == null ? Optional.empty()
                        : Optional.of(locked.containsKey(jobId) ? locked.get(jobId).getState() : matches.states().get(jobId));
                return mustWait(state, call.waiting());
            });
            if (mustWait) {
                waiting++; // the whole call again later
            } else {
                ready.add(call);
            }
        }
        Map<Long, List<JobRecipient>> recipients = recipients(locked.keySet());
        Effects effects = new Effects();
        for (Call call : ready) {
            apply(call, matches, locked, recipients, effects, now);
        }
        em.flush();
        ledger.events(effects.timeline);
        // in one order (tenant, address) in every batch: two batches that suppress the same addresses never wait on
        // each other's inserts in opposite orders
        effects.suppress.sort(java.util.Comparator.comparing(Suppress::key));
        effects.suppress.forEach(s -> s.write().run());
        effects.count(meters);
        return new Progress(last, received.size(), waiting);
    }

    /** A suppression the batch writes after its flush (the list is written with statements of its own). */
    private record Suppress(String key, Runnable write) {
    }

    /**
     * What a batch writes besides its entities, gathered while it applies and written at the end: the timeline rows
     * (one multi-row insert per hundred, in the order they were decided), the suppressions, and the counters (one
     * increment per profile and type, not a registry look-up per event).
     */
    private static final class Effects {
        final List<dev.mailroom.job.JobEvent> timeline = new ArrayList<>();
        final List<Suppress> suppress = new ArrayList<>();
        final Map<List<String>, Integer> events = new HashMap<>();
        final Map<String, Integer> unmatched = new HashMap<>();
        final Map<List<String>, Integer> calls = new HashMap<>();
        final Map<String, List<Duration>> lags = new HashMap<>();

        void timeline(MailJob job, String type, String detail, Instant at) {
            timeline.add(new dev.mailroom.job.JobEvent(job.getId(), at, type, detail, dev.mailroom.job.JobEvent.SYSTEM));
        }

        void count(MeterRegistry meters) {
            events.forEach((k, n) -> meters.counter("mailroom.reconcile.events", "profile", k.get(0), "type", k.get(1)).increment(n));
            unmatched.forEach((profile, n) -> meters.counter("mailroom.reconcile.unmatched", "profile", profile).increment(n));
            calls.forEach((k, n) -> meters.counter("mailroom.reconcile.calls", "profile", k.get(0), "outcome", k.get(1)).increment(n));
            lags.forEach((profile, waits) -> {
                Timer lag = lag(meters, profile);
                waits.forEach(lag::record);
            });
        }
    }

    private void apply(Call call, Matches matches, Map<Long, MailJob> jobs, Map<Long, List<JobRecipient>> recipients,
                       Effects effects, Instant now) {
        ProviderEvent stored = call.stored();
        String profile = stored.getProfile();
        List<String> outcomes = new ArrayList<>();
        for (TrackingEvent event : call.events()) {
            effects.events.merge(List.of(profile, event.eventType().name()), 1, Integer::sum);
            Long jobId = matches.jobOf(event);
            if (jobId == null) {
                outcomes.add("unmatched");
                effects.unmatched.merge(profile, 1, Integer::sum);
                continue;
            }
            MailJob job = jobs.get(jobId);
            apply(job, recipients.getOrDefault(jobId, List.of()), event, stored.getId(), call.waiting(), effects, now);
            outcomes.add("applied");
        }
        String outcome = outcomes.contains("unmatched") ? "unmatched" : "applied";
        stored.done(outcome, String.join(",", outcomes), now);
        effects.calls.merge(List.of(profile, outcome), 1, Integer::sum);
        effects.lags.computeIfAbsent(profile, k -> new ArrayList<>()).add(call.waiting());
        if (outcome.equals("unmatched")) {
            LOG.warning(() -> "provider event " + stored.getId() + " (" + profile + ") matched no job");
        }
    }

    private static boolean mustWait(Optional<JobState> job, Duration waiting) {
        return DeliveryTransitions.decide(job, true, Optional.empty(), EventType.unknown, waiting)
                instanceof DeliveryTransitions.Wait;
    }

    /** Carries out the decision for each recipient the event speaks of, then the roll-up to the job. */
    private void apply(MailJob job, List<JobRecipient> recipients, TrackingEvent event, long storedId, Duration waiting,
                       Effects effects, Instant now) {
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
            } else if (a instanceof DeliveryTransitions.RecordOnly record) {
                notes.add(recipients.size() > 1 ? r.getAddress() + ": " + record.why() : record.why());
            }
        }
        effects.timeline(job, "delivery_" + event.eventType(), event.timelineText()
                + (notes.isEmpty() ? "" : " (no change: " + String.join("; ", notes) + ")"), now);
        // the one place a hard bounce, a complaint or a provider's own suppression puts the recipient on the list
        // (after the batch's flush: the list is written with statements of its own)
        Optional<SuppressionReason> reason = SuppressionCauses.of(event);
        reason.ifPresent(why -> effects.suppress.add(new Suppress(
                (job.getTenant() == null ? "" : job.getTenant()) + "\n" + JobRecipient.normalise(event.recipient()) + "\n" + job.getId(),
                () -> suppressions.fromEvent(job, event.recipient(), why, storedId, event.timelineText(), now))));
        recipients.forEach(r -> DeliveryState.parse(r.getDeliveryState()).ifPresent(states::add));
        JobState before = job.getState();
        JobState after = DeliveryTransitions.rollUp(before, states);
        if (after != before) {
            ledger.moveTo(job, after, now);
            effects.timeline(job, "delivery_state", before + " -> " + after + (before == JobState.unknown
                    ? " (the provider's " + event.eventType() + " event settles the unknown send)" : ""), now);
        }
    }

    /**
     * The jobs the batch's events name, by the provider's message id recorded at send, else by Mailroom's
     * message_id (newest job first), with each job's state as read (not locked).
     */
    record Matches(Map<String, Long> byProviderId, Map<String, Long> byMessageId, Map<Long, JobState> states) {
        Long jobOf(TrackingEvent event) {
            Long byProvider = event.providerMessageId() == null ? null : byProviderId.get(event.providerMessageId());
            if (byProvider != null) {
                return byProvider;
            }
            return event.messageId() == null ? null : byMessageId.get(event.messageId());
        }
    }

    private Matches match(List<Call> calls) {
        Set<String> providerIds = new TreeSet<>();
        Set<String> messageIds = new TreeSet<>();
        for (Call call : calls) {
            for (TrackingEvent e : call.events()) {
                if (e.providerMessageId() != null) {
                    providerIds.add(e.providerMessageId());
                }
                if (e.messageId() != null) {
                    messageIds.add(e.messageId());
                }
            }
        }
        Map<Long, JobState> states = new HashMap<>();
        return new Matches(newest(providerIds, "providerMessageId", states), newest(messageIds, "messageId", states), states);
    }

    /** For each value of {@code field} among {@code keys}, the id of the newest job holding it. */
    private Map<String, Long> newest(Set<String> keys, String field, Map<Long, JobState> states) {
        Map<String, Long> newest = new HashMap<>();
        for (List<String> chunk : chunks(keys)) {
            List<Object[]> rows = em.createQuery("select j.id, j." + field + ", j.state from MailJob j where j." + field + " in :k",
                    Object[].class).setParameter("k", chunk).getResultList();
            for (Object[] row : rows) {
                long id = (Long) row[0];
                newest.merge((String) row[1], id, Math::max);
                states.put(id, (JobState) row[2]);
            }
        }
        return newest;
    }

    /**
     * The matched jobs whose send path is over, locked and read again in id order (one statement per chunk);
     * jobs still on their send path are not locked (the batch must not wait on a send), their events wait.
     */
    private Map<Long, MailJob> lockFinished(Matches matches) {
        Set<Long> ids = new TreeSet<>();
        matches.byProviderId().values().forEach(ids::add);
        matches.byMessageId().values().forEach(ids::add);
        ids.removeIf(id -> !matches.states().get(id).finished());
        Map<Long, MailJob> locked = new LinkedHashMap<>();
        for (List<Long> chunk : chunks(ids)) {
            em.createQuery("select j from MailJob j where j.id in :ids order by j.id", MailJob.class)
                    .setParameter("ids", chunk).setLockMode(LockModeType.PESSIMISTIC_WRITE)
                    .getResultList().forEach(j -> locked.put(j.getId(), j));
        }
        return locked;
    }

    private Map<Long, List<JobRecipient>> recipients(Set<Long> jobIds) {
        Map<Long, List<JobRecipient>> byJob = new HashMap<>();
        for (List<Long> chunk : chunks(new TreeSet<>(jobIds))) {
            em.createQuery("select r from JobRecipient r where r.jobId in :j order by r.jobId, r.position", JobRecipient.class)
                    .setParameter("j", chunk).getResultList()
                    .forEach(r -> byJob.computeIfAbsent(r.getJobId(), k -> new ArrayList<>()).add(r));
        }
        return byJob;
    }

    private static <T> List<List<T>> chunks(Collection<T> all) {
        List<T> list = List.copyOf(all);
        List<List<T>> chunks = new ArrayList<>();
        for (int i = 0; i < list.size(); i += IN_CHUNK) {
            chunks.add(list.subList(i, Math.min(list.size(), i + IN_CHUNK)));
        }
        return chunks;
    }

    /** A call done with before it reached the batch's effects (ignored, unreadable): counted at once. */
    private void finish(ProviderEvent stored, String outcome, String why, Instant now) {
        stored.done(outcome, why, now);
        meters.counter("mailroom.reconcile.calls", "profile", stored.getProfile(), "outcome", outcome).increment();
    }

    /**
     * Received → applied (count, sum, max). No client-side percentiles: they need HdrHistogram, which WildFly's
     * Micrometer module does not carry (the timer failed every run); the proof computes p99 from the inbox's
     * received_at/applied_at instead. {@code registry.timer(...)}, not {@code Timer.builder(...).register(...)}:
     * WildFly 39's per-deployment registry forwards only the former to the registry Prometheus reads.
     */
    private static Timer lag(MeterRegistry meters, String profile) {
        return meters.timer("mailroom.reconcile.lag", "profile", profile);
    }
}
