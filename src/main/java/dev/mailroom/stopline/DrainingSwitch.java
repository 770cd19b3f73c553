package dev.mailroom.stopline;

import dev.mailroom.platform.ConsumerControl;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.logging.Logger;

/**
 * Stops a stopped line's consumers once the deliveries under way at the stop have ended ({@link ConsumerStop}), so
 * that the resource adapter never tears a session down under a delivery still running.
 */
@ApplicationScoped
public class DrainingSwitch {

    private static final Logger LOG = Logger.getLogger(DrainingSwitch.class.getName());

    @Inject
    ConsumerControl consumers;
    @Inject
    DeliveriesUnderWay underWay;
    @Inject
    StopLineSettings settings;

    /** Stops the consumers of {@code queue}, whose line stopped at {@code since}, when allowed; false: not yet. */
    boolean stop(String queue, Instant since, boolean mayWait) {
        ConsumerStop.Decision d = underWay.consumersMayStop(queue, since, settings.drainTimeout(), mayWait);
        if (d instanceof ConsumerStop.Decision.Wait w) {
            LOG.info(() -> "line of " + queue + " stopped; its consumers stop once the " + w.underWay()
                    + " deliveries under way at the stop have ended (at most " + w.left().toSeconds() + " s more)");
            return false;
        }
        if (d instanceof ConsumerStop.Decision.Anyway a) {
            LOG.warning(() -> "line of " + queue + ": " + a.underWay() + " deliveries under way at the stop still run"
                    + " after " + settings.drainTimeout() + " (mailroom.stop-the-line.drain-timeout); its consumers"
                    + " stop anyway");
        }
        consumers.pause(queue, StopLine.ACTOR);
        return true;
    }
}
