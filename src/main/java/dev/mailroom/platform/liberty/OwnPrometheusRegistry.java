package dev.mailroom.platform.liberty;

import dev.mailroom.platform.OwnMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * A Prometheus registry of Mailroom's own, for a server that offers none (Open Liberty). Kept apart so that on
 * WildFly, which brings its own, the Prometheus registry's classes are never loaded (WildFly does not give them
 * to the deployment).
 */
final class OwnPrometheusRegistry implements OwnMeters {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    @Override
    public MeterRegistry registry() {
        return registry;
    }

    @Override
    public String scrape() {
        return registry.scrape();
    }
}
