package dev.mailroom.alert;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.Config;

/**
 * Alerts in the server: an {@link AlertDispatcher} built from MicroProfile Config, with the log sink and,
 * when {@code mailroom.alerts.webhook.url} is set, the webhook sink, ticked every second on the
 * bean's own thread. Callers only {@link #raise}; that never blocks, never throws and needs
 * no transaction, so it is safe right after a dead letter's transaction commits.
 *
 * <p>The bean starts with the application (so a bad {@code mailroom.alerts.*} value fails the
 * deployment, not the first dead letter) and, being application-scoped, in any case on its first use.
 * At undeployment it offers what is still open to every sink once more and logs what is left.
 */
@ApplicationScoped
public class AlertService implements dev.mailroom.platform.settings.CheckedAtBoot {

    private static final Logger LOG = Logger.getLogger(AlertService.class.getName());
    private static final long TICK_MILLIS = 1000;

    @Inject
    Config config;

    @Inject
    Clock clock;

    private AlertDispatcher dispatcher;
    /**
     * The bean's own daemon thread, not the container's managed scheduler: WildFly refuses a managed
     * task while the server is suspended (booting) and a periodic task that was refused is never run
     * again, so alerts would stop silently. The tick needs no container context.
     */
    private ScheduledExecutorService ownScheduler;
    private ScheduledFuture<?> ticking;

    @PostConstruct
    void start() {
        dispatcher = newDispatcher();
        List<AlertSink> sinks = dispatcher.sinks();

        ownScheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "mailroom-alerts");
            t.setDaemon(true);
            return t;
        });
        ScheduledExecutorService s = ownScheduler;
        // fixed delay, not rate: a tick that waits on a slow webhook is not followed by a pile of catch-up ticks
        ticking = s.scheduleWithFixedDelay(this::tickQuietly, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
        AlertRouting r = dispatcher.routing();
        LOG.info("Alerts to " + sinks.stream().map(AlertSink::name).collect(Collectors.joining(", "))
                + "; paging reasons " + r.pageReasons() + ", burst " + r.burstCount() + " in "
                + AlertConfig.text(r.burstWindow()) + ", group wait " + AlertConfig.text(dispatcher.settings().groupWait()));
    }

    /**
     * A dispatcher of its own with the configured settings and sinks (the log; the webhook if set): the
     * outbox's, which the holder of the delivery lease feeds ({@link AlertOutbox}).
     */
    AlertDispatcher newDispatcher() {
        Function<String, Optional<String>> lookup = key -> config.getOptionalValue(key, String.class);
        List<AlertSink> sinks = new ArrayList<>();
        sinks.add(new LogSink());
        WebhookSink.fromConfig(lookup, clock).ifPresent(sinks::add);
        return AlertDispatcher.fromConfig(lookup, clock, sinks);
    }

    /**
     * Starts the bean with the application rather than on the first dead letter: the settings gate calls this at
     * deployment, which creates the bean (start() reads and checks every alert setting).
     */
    @Override
    public void checkSettings() {
        // calling this method created the bean: start() has run
    }

    /**
     * Takes an occurrence to alert on. Never blocks, never throws, needs no transaction.
     *
     * @return false when it was dropped because the alert queue is full (the next alert says how many)
     */
    public boolean raise(AlertEvent event) {
        return dispatcher.raise(event);
    }

    /** The engine, for metrics and diagnostics (dropped and undeliverable counts). */
    public AlertDispatcher dispatcher() {
        return dispatcher;
    }

    @PreDestroy
    void stop() {
        if (ticking != null) {
            ticking.cancel(false);
        }
        try {
            // waits for a running tick (the dispatcher is serialised), then one last round
            dispatcher.close(clock.instant());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Alerts could not be flushed at shutdown", e);
        } finally {
            if (ownScheduler != null) {
                ownScheduler.shutdownNow();
            }
        }
    }

    private void tickQuietly() {
        try {
            dispatcher.tick();
        } catch (Throwable t) {
            // a periodic task that throws is never run again: alerts would stop without a word
            LOG.log(Level.SEVERE, "Alert tick failed; next tick in " + TICK_MILLIS + " ms", t);
        }
    }
}
