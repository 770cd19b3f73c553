package dev.mailroom.platform;

import io.micrometer.core.instrument.MeterRegistry;

/** A meter registry Mailroom keeps and serves itself, on a server that offers none ({@link ServerPlatform#ownMeters()}). */
public interface OwnMeters {

    MeterRegistry registry();

    /** The registry in Prometheus' text format. */
    String scrape();
}
