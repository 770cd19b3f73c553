package dev.mailroom.alert;

import dev.mailroom.send.LateOutcomes;
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
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Every {@value #CHECK_MS} ms, asks {@link UnrecordedOutcomesRule} whether this node's unrecorded outcomes
 * ({@link LateOutcomes}, in memory) deserve {@value AlertRouting#OUTCOMES_UNRECORDED}, and raises it on this node's
 * own dispatcher ({@link AlertService#raise}), not the outbox: the outbox is a database write, and the database is
 * what does not take this node's records; the alert is about this node's memory, which a restart empties anyway.
 * So the check makes no database call.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class UnrecordedOutcomeAlerts {

    static final long CHECK_MS = 5000;
    private static final Logger LOG = Logger.getLogger(UnrecordedOutcomeAlerts.class.getName());

    @Resource
    TimerService timers;
    @Inject
    LateOutcomes outcomes;
    @Inject
    AlertService alerts;
    @Inject
    Clock clock;
    @Inject
    @ConfigProperty(name = "mailroom.node.id", defaultValue = "mailroom-1")
    String node;

    /** {@code mailroom.alerts.unrecorded-after}, as the alert settings read it at deployment. */
    Duration after;
    /** When the alert was last raised; null while it is not. Touched by the timer only. */
    private Instant raisedAt;

    @PostConstruct
    void schedule() {
        after = alerts.dispatcher().routing().unrecordedAfter();
        timers.createIntervalTimer(CHECK_MS, CHECK_MS, new TimerConfig("unrecorded-outcome-alerts", false));
    }

    @Timeout
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void onTimer() {
        check();
    }

    void check() {
        Instant now = clock.instant();
        UnrecordedOutcomesRule.Action action = UnrecordedOutcomesRule.decide(new UnrecordedOutcomesRule.Facts(
                outcomes.waiting(), outcomes.oldestWaitingSince().orElse(null), raisedAt, now, after));
        if (action instanceof UnrecordedOutcomesRule.Raise r) {
            alerts.raise(AlertEvent.outcomesUnrecorded(node, r.count(), r.oldest(), now));
            raisedAt = now;
        } else if (action instanceof UnrecordedOutcomesRule.Resolve) {
            LOG.info(() -> "no outcome known to " + node + " has waited longer than " + AlertConfig.text(after)
                    + " for its record any more (" + outcomes.waiting() + " wait): " + AlertRouting.OUTCOMES_UNRECORDED
                    + " is over");
            raisedAt = null;
        }
    }
}
