package dev.mailroom.platform;

import dev.mailroom.platform.liberty.OwnPrometheusRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.util.Optional;

/**
 * Chooses, at run time, the registry behind {@link Meters}. WildFly's Micrometer subsystem offers a
 * {@link MeterRegistry} bean and scrapes it at its management port's {@code /prometheus}; Open Liberty has none
 * (its MicroProfile Metrics keeps its registry to itself), so there Mailroom keeps a Prometheus registry and
 * serves it at {@code /api/v1/metrics} ({@link #ownScrape()}). A qualifier rather than a second default bean:
 * two {@code @Default} registries on WildFly would be an ambiguous dependency.
 */
@ApplicationScoped
public class MeterRegistries {

    @Inject
    Instance<MeterRegistry> server;

    private volatile MeterRegistry chosen;
    private volatile OwnPrometheusRegistry own;

    @Produces
    @Meters
    MeterRegistry registry() {
        MeterRegistry r = chosen;
        if (r == null) {
            synchronized (this) {
                if (chosen == null) {
                    if (server.isResolvable()) {
                        chosen = server.get();
                    } else {
                        own = new OwnPrometheusRegistry();
                        chosen = own.registry();
                    }
                }
                r = chosen;
            }
        }
        return r;
    }

    /** The Prometheus text of the registry Mailroom keeps itself; empty where the server scrapes its own. */
    public Optional<String> ownScrape() {
        registry();
        OwnPrometheusRegistry o = own;
        return o == null ? Optional.empty() : Optional.of(o.scrape());
    }
}
