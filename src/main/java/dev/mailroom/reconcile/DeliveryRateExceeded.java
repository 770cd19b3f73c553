package dev.mailroom.reconcile;

import java.time.Duration;
import java.time.Instant;

/**
 * The bounce or complaint rate of a queue and tenant over the window went above its threshold: providers
 * suspend senders above about 0.1 % complaints and a few % bounces. Fired when a rate crosses its threshold
 * (not again until it has been back under it) by {@link DeliveryWatch}; the alert side pages.
 *
 * @param kind   {@code bounce} or {@code complaint}
 * @param tenant the tenant, {@code -} for jobs without one
 */
public record DeliveryRateExceeded(String kind, String queue, String tenant, long sent, long count, double rate,
                                   double threshold, Duration window, Instant at) {
}
