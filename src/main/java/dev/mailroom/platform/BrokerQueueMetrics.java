package dev.mailroom.platform;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The broker's own queue depths as a gauge, {@code mailroom_broker_queue_depth{queue="mail.send"}} and
 * {@code {queue="DLQ.mail.send"}}, for dashboards (server-config/grafana): read from {@link BrokerQueues} at
 * scrape time, so the embedded broker and a remote pair look the same. A broker that does not answer reads NaN
 * (a gap in the graph, not a false 0); the health check is what reports it.
 */
@Singleton
@Startup
public class BrokerQueueMetrics {

    private static final Logger LOG = Logger.getLogger(BrokerQueueMetrics.class.getName());

    @Inject
    @Meters
    MeterRegistry registry;
    @Inject
    BrokerQueues broker;
    @Inject
    MailroomConfig config;

    @PostConstruct
    void register() {
        for (String queue : config.queues()) {
            gauge(queue);
            gauge("DLQ." + queue);
        }
    }

    private void gauge(String queue) {
        // registry.gauge(...), not Gauge.builder(...).register(...): WildFly 39's per-deployment registry
        // forwards only the former to the registry Prometheus reads
        registry.gauge("mailroom.broker.queue.depth", Tags.of("queue", queue), this, m -> m.depth(queue));
    }

    private double depth(String queue) {
        try {
            return broker.figures(queue).depth();
        } catch (BrokerQueues.BrokerUnavailableException e) {
            LOG.log(Level.FINE, "no depth for " + queue + " at this scrape", e);
            return Double.NaN;
        }
    }
}
