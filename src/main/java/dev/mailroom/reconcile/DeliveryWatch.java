package dev.mailroom.reconcile;

import dev.mailroom.job.JobLedger;
import dev.mailroom.job.MailJob;
import dev.mailroom.platform.MailroomConfig;
import dev.mailroom.platform.settings.CheckedAtBoot;
import dev.mailroom.platform.settings.SettingsReader;
import io.micrometer.core.instrument.MeterRegistry;
import dev.mailroom.platform.Meters;
import io.micrometer.core.instrument.Tags;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.Config;

/**
 * What the reconciliation job watches besides events, every
 * {@code mailroom.reconcile.watch-interval} (default 1 minute) of the application clock:
 * <ul>
 *   <li>jobs still {@code sent_to_provider} past their provider's limit ({@code mailroom.reconcile.silence-limit},
 *       default 2 hours; per provider {@code mailroom.reconcile.silence-limit.<provider>}) without any provider
 *       event: each fires one {@link DeliverySilent} (recorded as {@code delivery_silent} on its timeline, so
 *       once) and counts in {@code mailroom.reconcile.silent}; the job is never assumed failed. It reads only the
 *       jobs due ({@code mail_job.silence_check_at}, set at the send, cleared once there is nothing more to look
 *       for), not every {@code sent_to_provider} job retention keeps;</li>
 *   <li>bounce and complaint rates per queue and tenant over {@code mailroom.reconcile.rate-window}
 *       (default 24 hours, by the jobs' send time): gauges {@code mailroom.delivery.bounce.rate} and
 *       {@code mailroom.delivery.complaint.rate}, and a {@link DeliveryRateExceeded} when one crosses its
 *       threshold ({@code mailroom.reconcile.bounce-rate-threshold} 0.05, {@code ...complaint-rate-threshold}
 *       0.001, judged from {@code ...rate-min-sent} 100 recipients).</li>
 * </ul>
 */
@ApplicationScoped
public class DeliveryWatch implements CheckedAtBoot {
    private static final Logger LOG = Logger.getLogger(DeliveryWatch.class.getName());
    private static final int MAX_SILENT_PER_CHECK = 500;

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Inject
    JobLedger ledger;
    @Inject
    @Meters
    MeterRegistry meters;
    @Inject
    Config config;
    @Inject
    Event<DeliverySilent> silent;
    @Inject
    Event<DeliveryRateExceeded> rateExceeded;
    @Inject
    MailroomConfig mailroom;

    private volatile WatchSettings settings;
    private volatile Instant lastCheck;
    private final Set<String> breaching = ConcurrentHashMap.newKeySet();
    private final Map<String, AtomicLong> rateGauges = new ConcurrentHashMap<>();

    /**
     * The active provider's silent-job counter exists from deployment at 0: Prometheus's increase() cannot see the
     * first count of a series that appears with it, so a rule on it would miss the first silent job.
     */
    @PostConstruct
    void registerSilentCounter() {
        meters.counter("mailroom.reconcile.silent", "provider", mailroom.provider());
    }

    @Override
    public void checkSettings() {
        settings();
    }

    private WatchSettings settings() {
        WatchSettings s = settings;
        if (s == null) {
            s = WatchSettings.read(new SettingsReader(key -> config.getOptionalValue(key, String.class)),
                    config.getPropertyNames());
            settings = s;
        }
        return s;
    }

    /** Whether a check is due at {@code now} (the first one right away). */
    public boolean due(Instant now) {
        Instant last = lastCheck;
        return last == null || !now.isBefore(last.plus(settings().watchInterval()));
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void check(Instant now) {
        lastCheck = now;
        silentJobs(now);
        rates(now);
    }

    /**
     * Jobs due for a silence check that need none any more (they left {@code sent_to_provider}, or a provider event
     * reached them, or they were reported) are done with: each is read here once, through
     * {@code ix_mail_job_silence_check}, and never again however long retention keeps it. One statement per reason:
     * joined by {@code or}, PostgreSQL checks the events by reading every one of that type once (a hashed subplan),
     * the history's too, instead of probing each due job's.
     */
    public static final List<String> HEARD = List.of(
            "update mail_job set silence_check_at = null where silence_check_at <= ?1 and state <> 'sent_to_provider'",
            """
            update mail_job set silence_check_at = null where silence_check_at <= ?1
            and exists (select 1 from job_recipient r where r.job_id = mail_job.id and r.delivery_state is not null)""",
            """
            update mail_job set silence_check_at = null where silence_check_at <= ?1
            and exists (select 1 from job_event e where e.job_id = mail_job.id
                        and e.type in ('delivery_silent', 'delivery_state'))""");
    /** The jobs left due after {@link #HEARD}, the ones silent longest first: only the due ones are read. */
    public static final String DUE = "select * from mail_job where silence_check_at <= ?1 order by silence_check_at"
            + " fetch first " + MAX_SILENT_PER_CHECK + " rows only";

    @SuppressWarnings("unchecked")
    private void silentJobs(Instant now) {
        Duration shortest = settings().shortestSilence();
        // an offset time in UTC, as the ledger binds its native statements' times on both databases
        OffsetDateTime before = now.minus(shortest).atOffset(ZoneOffset.UTC);
        HEARD.forEach(sql -> em.createNativeQuery(sql).setParameter(1, before).executeUpdate());
        List<MailJob> due = em.createNativeQuery(DUE, MailJob.class).setParameter(1, before).getResultList();
        for (MailJob j : due) {
            Duration limit = settings().silenceLimit(j.getProvider());
            SilenceCheck.Verdict v = SilenceCheck.judge(j.getSentAt(), limit, shortest, now);
            if (v instanceof SilenceCheck.Verdict.LookAgain again) {
                j.silenceCheckAt(again.checkAt());
                continue;
            }
            j.silenceCheckAt(null);
            ledger.event(j, "delivery_silent", "no event from " + j.getProvider() + " " + Duration.between(j.getSentAt(), now)
                    + " after the send (limit " + limit + "): not assumed failed; check the provider's webhooks and logs", now);
            meters.counter("mailroom.reconcile.silent", "provider", String.valueOf(j.getProvider())).increment();
            silent.fire(new DeliverySilent(String.valueOf(j.getProvider()), j.getQueue(), j.getMessageId(), j.getId(), j.getSentAt(),
                    limit, now));
            LOG.warning(() -> "job " + j.getMessageId() + " on " + j.getQueue() + ": no provider event " + limit + " after the send");
        }
    }

    private void rates(Instant now) {
        Duration window = settings().rateWindow();
        DeliveryRates.Thresholds t = settings().thresholds();
        List<Object[]> rows = em.createQuery("""
                        select j.queue, j.tenant, count(r),
                               sum(case when r.deliveryState = 'bounced' then 1 else 0 end),
                               sum(case when r.deliveryState = 'complained' then 1 else 0 end)
                        from JobRecipient r, MailJob j where r.jobId = j.id and j.sentAt >= :since
                        group by j.queue, j.tenant""", Object[].class)
                .setParameter("since", now.minus(window)).getResultList();
        List<DeliveryRates.Counts> counts = new ArrayList<>();
        for (Object[] r : rows) {
            counts.add(new DeliveryRates.Counts((String) r[0], r[1] == null ? "-" : (String) r[1], number(r[2]), number(r[3]), number(r[4])));
        }
        for (DeliveryRates.Counts c : counts) {
            gauge("mailroom.delivery.bounce.rate", c).set(Double.doubleToLongBits(DeliveryRates.rate(c.bounced(), c.sent())));
            gauge("mailroom.delivery.complaint.rate", c).set(Double.doubleToLongBits(DeliveryRates.rate(c.complained(), c.sent())));
        }
        List<DeliveryRates.Breach> breaches = DeliveryRates.judge(counts, t, Set.copyOf(breaching));
        Set<String> nowBreaching = new HashSet<>();
        for (DeliveryRates.Breach b : breaches) {
            nowBreaching.add(b.key());
            if (b.crossed()) {
                rateExceeded.fire(new DeliveryRateExceeded(b.kind(), b.counts().queue(), b.counts().tenant(), b.counts().sent(),
                        b.count(), b.rate(), b.threshold(), window, now));
            }
        }
        breaching.retainAll(nowBreaching);
        breaching.addAll(nowBreaching);
    }

    private AtomicLong gauge(String name, DeliveryRates.Counts c) {
        return rateGauges.computeIfAbsent(name + "|" + c.queue() + "|" + c.tenant(), k -> {
            // registry.gauge(...), not Gauge.builder(...).register(...): WildFly 39's per-deployment registry forwards
            // only the former to the registry Prometheus reads (these gauges were missing from /prometheus until then)
            return meters.gauge(name, Tags.of("queue", c.queue(), "tenant", c.tenant()), new AtomicLong(),
                    b -> Double.longBitsToDouble(b.get()));
        });
    }

    private static long number(Object o) {
        return o == null ? 0 : ((Number) o).longValue();
    }
}
