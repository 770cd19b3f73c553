package dev.mailroom.platform.liberty;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * A Prometheus registry of Mailroom's own, for a server that offers none (Open Liberty). Kept apart so that on
 * WildFly, which brings its own, the Prometheus registry's classes are never loaded (WildFly does not give them
 * to the deployment).
 */
public final class OwnPrometheusRegistry {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    public MeterRegistry registry() {
        return registry;
    }

    public String scrape() {
        return registry.scrape();
    }
}
