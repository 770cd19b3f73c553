package dev.mailroom.reconcile;

import dev.mailroom.job.JobLedger;
import dev.mailroom.job.JobState;
import dev.mailroom.job.MailJob;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.EJB;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The reconciliation job: every {@code mailroom.reconcile.interval} (default 2 s) it reads the inbox's
 * {@code received} events, normalises them, matches each to its job (provider message id recorded at send,
 * else the job's {@code message_id}) and carries out {@link DeliveryTransitions#decide}. A stored call is one
 * step: if any of its events must wait (job not there yet, or still sending), none is applied and the whole
 * call is tried again next run, so nothing is applied twice. One transaction per run (an EJB timer method).
 */
@Singleton
@Startup
public class Reconciler {

    static final int MAX_PER_RUN = 500;
    /** With several nodes, one reconciles at a time: the one holding this lease. */
    public static final String LEASE = "reconciler";
    private static final Logger LOG = Logger.getLogger(Reconciler.class.getName());

    @Resource
    TimerService timers;
    @Inject
    @ConfigProperty(name = "mailroom.reconcile.interval", defaultValue = "PT2S")
    String interval;
    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Inject
    JobLedger ledger;
    @Inject
    dev.mailroom.suppression.SuppressionList suppressions;
    @Inject
    Clock clock;
    @Inject
    MeterRegistry meters;
    @EJB
    dev.mailroom.platform.SchemaMigration schema;
    @Inject
    dev.mailroom.platform.lease.Leases leases;

    @PostConstruct
    void schedule() {
        long ms = Duration.parse(interval).toMillis();
        timers.createIntervalTimer(ms, ms, new TimerConfig("reconciler", false));
    }

    @Timeout
    public void onTimer() {
        schema.awaitMigrated();
        if (leases.takeTurn(LEASE)) {
            run();
        }
    }

    /** One run: the received events, in order, at most {@value #MAX_PER_RUN}. */
    public void run() {
        Instant now = clock.instant();
        List<ProviderEvent> received = em.createQuery(
                        "select e from ProviderEvent e where e.status = :s and e.profile in :p order by e.id", ProviderEvent.class)
                .setParameter("s", ProviderEvent.RECEIVED).setParameter("p", EventNormaliser.PROFILES)
                .setMaxResults(MAX_PER_RUN).getResultList();
        for (ProviderEvent stored : received) {
            reconcile(stored, now);
        }
    }

    private void reconcile(ProviderEvent stored, Instant now) {
        List<TrackingEvent> events;
        try {
            events = EventNormaliser.normalise(stored.getProfile(), stored.getBody());
        } catch (EventNormaliser.Unreadable e) {
            stored.done("unreadable", e.getMessage(), now);
            meters.counter("mailroom.reconcile.events", "profile", stored.getProfile(), "outcome", "unreadable").increment();
            return;
        }
        Duration waiting = Duration.between(stored.getReceivedAt(), now);
        List<Runnable> steps = new ArrayList<>();
        List<String> outcomes = new ArrayList<>();
        for (TrackingEvent event : events) {
            Optional<MailJob> job = match(event);
            DeliveryTransitions.Action action = DeliveryTransitions.decide(job.map(MailJob::getState), event.eventType(), waiting);
            if (action instanceof DeliveryTransitions.Wait) {
                return;
            }
            if (action instanceof DeliveryTransitions.Unmatched) {
                outcomes.add("unmatched");
                continue;
            }
            MailJob j = job.orElseThrow();
            steps.add(() -> {
                if (action instanceof DeliveryTransitions.Apply apply) {
                    ledger.moveTo(j, apply.to(), now);
                }
                ledger.event(j, "delivery_" + event.eventType(), event.timelineText(), now);
                SuppressionCauses.of(event).ifPresent(reason -> suppressions.fromEvent(j, event.recipient(), reason, stored.getId(), event.timelineText(), now));
            });
            outcomes.add("applied");
        }
        steps.forEach(Runnable::run);
        String outcome = outcomes.contains("unmatched") ? "unmatched" : "applied";
        stored.done(outcome, String.join(",", outcomes), now);
        meters.counter("mailroom.reconcile.events", "profile", stored.getProfile(), "outcome", outcome).increment();
        meters.timer("mailroom.reconcile.lag", "profile", stored.getProfile()).record(waiting);
        if (outcome.equals("unmatched")) {
            LOG.warning(() -> "provider event " + stored.getId() + " (" + stored.getProfile() + ") matched no job");
        }
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
}
