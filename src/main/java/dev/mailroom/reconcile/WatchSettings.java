package dev.mailroom.reconcile;

import dev.mailroom.platform.settings.SettingsReader;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What {@link DeliveryWatch} watches for, read once: how often it looks, how long a provider may stay silent
 * ({@code mailroom.reconcile.silence-limit}, per provider {@code mailroom.reconcile.silence-limit.<provider>}), the
 * window and thresholds of the bounce and complaint rates.
 */
public record WatchSettings(Duration watchInterval, Duration silenceLimit, Map<String, Duration> silenceByProvider,
                     Duration rateWindow, DeliveryRates.Thresholds thresholds) {

    static final String SILENCE_LIMIT = "mailroom.reconcile.silence-limit";

    /** From {@code settings}; {@code names} lists the configured keys, to find every per-provider silence limit. */
    public static WatchSettings read(SettingsReader settings, Iterable<String> names) {
        Duration all = settings.positiveDuration(Duration.ofHours(2), SILENCE_LIMIT);
        Map<String, Duration> byProvider = new LinkedHashMap<>();
        for (String name : names) {
            if (name.startsWith(SILENCE_LIMIT + ".")) {
                byProvider.put(name.substring(SILENCE_LIMIT.length() + 1), settings.positiveDuration(all, name));
            }
        }
        return new WatchSettings(
                settings.positiveDuration(Duration.ofMinutes(1), "mailroom.reconcile.watch-interval"),
                all, Map.copyOf(byProvider),
                settings.positiveDuration(Duration.ofHours(24), "mailroom.reconcile.rate-window"),
                new DeliveryRates.Thresholds(
                        settings.decimal(0.05, 0, 1, "mailroom.reconcile.bounce-rate-threshold"),
                        settings.decimal(0.001, 0, 1, "mailroom.reconcile.complaint-rate-threshold"),
                        settings.longInteger(100, 1, Long.MAX_VALUE, "mailroom.reconcile.rate-min-sent")));
    }

    /** The limit for jobs sent through {@code provider} (null: the general one). */
    Duration silenceLimit(String provider) {
        return provider == null ? silenceLimit : silenceByProvider.getOrDefault(provider, silenceLimit);
    }

    /** The shortest limit of any provider: jobs older than this are the candidates. */
    Duration shortestSilence() {
        return silenceByProvider.values().stream().reduce(silenceLimit, (a, b) -> a.compareTo(b) < 0 ? a : b);
    }
}
