package dev.mailroom.platform;

import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.util.Optional;

/**
 * The registry behind {@link Meters}: the server's own where it offers one (WildFly's Micrometer subsystem, which
 * scrapes it at its management port's {@code /prometheus}), else the one Mailroom keeps itself
 * ({@link ServerPlatform#ownMeters()}, Open Liberty, served at {@code /api/v1/metrics}). A qualifier rather than a
 * second default bean: two {@code @Default} registries on WildFly would be an ambiguous dependency.
 */
@ApplicationScoped
public class MeterRegistries {

    @Inject
    Instance<MeterRegistry> server;

    @Inject
    ServerPlatform platform;

    @Produces
    @Meters
    MeterRegistry registry() {
        return platform.ownMeters().map(OwnMeters::registry).orElseGet(() -> server.get());
    }

    /** The Prometheus text of the registry Mailroom keeps itself; empty where the server scrapes its own. */
    public Optional<String> ownScrape() {
        return platform.ownMeters().map(OwnMeters::scrape);
    }
}
