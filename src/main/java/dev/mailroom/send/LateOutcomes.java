package dev.mailroom.send;

import dev.mailroom.job.Begin;
import dev.mailroom.job.JobLedger;
import dev.mailroom.platform.Meters;
import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.recoverability.LateOutcomePolicy;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What this node's workers knew of their attempts and could not record because the database did not answer (a hung
 * or lost connection under the commit): kept in memory and recorded every {@link #INTERVAL_MS} ms until the
 * database takes it ({@link JobLedger#recordLate}, decided by {@link LateOutcomePolicy}). Without it, an attempt
 * whose point of no return committed after its worker gave up ends {@code unknown} although nothing was written, and
 * an acceptance whose commit failed ends {@code unknown} although the provider has the mail. A node killed before
 * the database answers loses this knowledge: its jobs then end {@code unknown}, for an operator, as any attempt
 * interrupted past its point of no return does.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class LateOutcomes {

    static final long INTERVAL_MS = 2000;
    static final String ACTOR = "mailroom";
    private static final Logger LOG = Logger.getLogger(LateOutcomes.class.getName());

    /** One worker's knowledge of one attempt, kept since {@code since}. */
    record Pending(LateOutcomePolicy.Known known, Begin.Proceed proceed, ProviderResponse accepted, String queue,
                   String messageId, Instant since) {
    }

    private final Queue<Pending> pending = new ConcurrentLinkedQueue<>();

    @Resource
    TimerService timers;
    @Inject
    JobLedger ledger;
    @Inject
    UnknownSends unknownSends;
    @Inject
    @Meters
    MeterRegistry registry;
    @Inject
    Clock clock;

    @PostConstruct
    void schedule() {
        register(registry);
        timers.createIntervalTimer(INTERVAL_MS, INTERVAL_MS, new TimerConfig("late-outcomes", false));
    }

    /**
     * {@code mailroom_outcomes_unrecorded}: what this node knows and only its memory holds. Stopping the node loses it
     * (its jobs then end {@code unknown}), so an operator waits for 0 before stopping a node the database left behind.
     * {@code mailroom_outcomes_unrecorded_oldest_age_seconds}: how long the oldest of them has waited (0: none), what
     * the {@code OutcomesUnrecorded} rule alerts on.
     */
    void register(MeterRegistry meters) {
        // registry.gauge(...), not Gauge.builder(...).register(...): WildFly 39's per-deployment registry
        // forwards only the former to the registry Prometheus reads
        meters.gauge("mailroom.outcomes.unrecorded", Tags.empty(), this, LateOutcomes::waiting);
        meters.gauge("mailroom.outcomes.unrecorded.oldest.age.seconds", Tags.empty(), this, LateOutcomes::oldestAgeSeconds);
    }

    /** The worker of {@code p} never wrote the mail: the commit of its point of no return failed. */
    public void notWritten(Begin.Proceed p, String queue, String messageId) {
        keep(new Pending(LateOutcomePolicy.Known.NOT_WRITTEN, p, null, queue, messageId, clock.instant()));
    }

    /** The provider accepted the mail of {@code p}; recording that failed. */
    public void accepted(Begin.Proceed p, ProviderResponse response, String queue, String messageId) {
        keep(new Pending(LateOutcomePolicy.Known.ACCEPTED, p, response, queue, messageId, clock.instant()));
    }

    private void keep(Pending p) {
        pending.add(p);
        LOG.warning(() -> "job " + p.messageId() + " on " + p.queue() + ", attempt " + p.proceed().attemptNumber() + ": "
                + (p.known() == LateOutcomePolicy.Known.ACCEPTED ? "accepted by the provider"
                : "never written to the provider") + ", not recorded (the database did not answer); recorded when it does");
    }

    /** How many are waiting for the database. */
    public int waiting() {
        return pending.size();
    }

    /** Since when the one waiting longest has waited; empty when none waits. Memory only: no database call. */
    public Optional<Instant> oldestWaitingSince() {
        // not the head: one whose record failed went to the end of the queue
        return pending.stream().map(Pending::since).min(Instant::compareTo);
    }

    private double oldestAgeSeconds() {
        return oldestWaitingSince().map(t -> Math.max(0, Duration.between(t, clock.instant()).toMillis()) / 1000.0).orElse(0.0);
    }

    @Timeout
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void onTimer() {
        recordWhatWaits();
    }

    /** Records each waiting one the database takes now; the rest wait for the next turn. */
    void recordWhatWaits() {
        for (int n = pending.size(); n > 0; n--) {
            // the head stays in the queue until carried out, so that waiting() counts it meanwhile (only this timer
            // takes from the head; workers add at the tail)
            Pending p = pending.peek();
            if (p == null) {
                return;
            }
            try {
                carryOut(p, ledger.recordLate(p.known(), p.proceed(), p.accepted()));
                pending.poll();
            } catch (Exception stillDown) { // a commit whose answer was lost comes as an undeclared HeuristicMixedException
                pending.add(pending.poll()); // to the end: one that fails for a reason of its own holds up no other
                LOG.log(Level.FINE, stillDown, () -> "late record of job " + p.messageId() + " waits: " + stillDown);
                return; // the database does not answer yet: the others would fail the same way
            }
        }
    }

    private void carryOut(Pending p, LateOutcomePolicy.Action action) {
        if (action instanceof LateOutcomePolicy.SendAgain) {
            unknownSends.sendAgain(p.messageId(), p.queue(), ACTOR, action.describe());
        }
        LOG.warning(() -> "job " + p.messageId() + " on " + p.queue() + ", attempt " + p.proceed().attemptNumber()
                + ": " + action.describe());
    }
}
