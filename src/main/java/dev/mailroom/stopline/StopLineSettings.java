package dev.mailroom.stopline;

import dev.mailroom.platform.MailroomConfig;
import dev.mailroom.platform.settings.CheckedAtBoot;
import dev.mailroom.platform.settings.SettingsReader;
import dev.mailroom.provider.registry.ProviderRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;

/**
 * The stop-the-line settings (MicroProfile Config), read once at deployment for every configured queue:
 * <pre>
 * mailroom.stop-the-line.probe-interval = 10s     one probe (a provider call with the queue's head job) per interval
 * mailroom.stop-the-line.put-back       = 1s      how long a job met by a stopped line waits on the broker
 * mailroom.stop-the-line.same-outage    = 10m     a stop this soon after a restart that did not prove the outage
 *                                                 over (an operator's resume, a breaker half-open) continues it
 * mailroom.stop-the-line.drain-timeout  = 60s     how long a stopped line waits for the deliveries under way at the
 *                                                 stop to end before it stops its consumers anyway (ConsumerStop)
 * mailroom.stop-the-line.dead-letter-rate.(queue|default).enabled / .activation-threshold / .trip-threshold
 *                                       / .window / .restart-after / .reasons
 * </pre>
 * A queue's provider chain is the {@link ProviderRegistry}'s, parsed there once.
 */
@ApplicationScoped
public class StopLineSettings implements CheckedAtBoot {

    static final String PREFIX = "mailroom.stop-the-line.";

    @Inject
    Config config;
    @Inject
    MailroomConfig mailroom;
    @Inject
    ProviderRegistry providers;

    private volatile Read read;

    /** Everything this class serves, read together. */
    public record Read(Duration probeInterval, Duration putBack, Duration sameOutage, Duration drainTimeout,
                       Map<String, Optional<DeadLetterRateWindow.Settings>> rates) {
    }

    @Override
    public void checkSettings() {
        read();
    }

    public Duration probeInterval() {
        return read().probeInterval();
    }

    /** At least 100 ms: a put-back is a scheduled copy, and zero would spin a delivery against the gate. */
    public Duration putBack() {
        return read().putBack();
    }

    /** A stop this soon after a trial restart, with no call accepted since, continues the same outage. */
    public Duration sameOutage() {
        return read().sameOutage();
    }

    /** How long a stopped line waits for the deliveries under way at the stop before stopping its consumers anyway. */
    public Duration drainTimeout() {
        return read().drainTimeout();
    }

    /** The dead-letter-rate breaker's settings for {@code queue}, or empty when it is disabled there. */
    public Optional<DeadLetterRateWindow.Settings> deadLetterRate(String queue) {
        Optional<DeadLetterRateWindow.Settings> known = read().rates().get(queue);
        return known != null ? known : deadLetterRate(reader(), queue);
    }

    /** The providers a queue sends through, in order. */
    public List<String> chain(String queue) {
        return providers.chain(queue);
    }

    private Read read() {
        Read r = read;
        if (r == null) {
            r = read(reader(), mailroom.queues());
            read = r;
        }
        return r;
    }

    private SettingsReader reader() {
        return new SettingsReader(key -> config.getOptionalValue(key, String.class));
    }

    /** The settings of {@code queues} from {@code settings}; a value that cannot be used names its key. */
    public static Read read(SettingsReader settings, List<String> queues) {
        Duration putBack = settings.positiveDuration(Duration.ofSeconds(1), PREFIX + "put-back");
        Map<String, Optional<DeadLetterRateWindow.Settings>> rates = new LinkedHashMap<>();
        for (String queue : queues) {
            rates.put(queue, deadLetterRate(settings, queue));
        }
        return new Read(settings.positiveDuration(Duration.ofSeconds(10), PREFIX + "probe-interval"),
                putBack.compareTo(Duration.ofMillis(100)) < 0 ? Duration.ofMillis(100) : putBack,
                settings.positiveDuration(Duration.ofMinutes(10), PREFIX + "same-outage"),
                settings.positiveDuration(Duration.ofSeconds(60), PREFIX + "drain-timeout"), Map.copyOf(rates));
    }

    static Optional<DeadLetterRateWindow.Settings> deadLetterRate(SettingsReader settings, String queue) {
        if (!settings.bool(true, keys(queue, "enabled"))) {
            return Optional.empty();
        }
        DeadLetterRateWindow.Settings d = DeadLetterRateWindow.Settings.defaults();
        return Optional.of(new DeadLetterRateWindow.Settings(
                settings.integer(d.activationThreshold(), 1, Integer.MAX_VALUE, keys(queue, "activation-threshold")),
                settings.find(keys(queue, "trip-threshold")).map(SettingsReader.Value::share).orElse(d.tripThreshold()),
                settings.positiveDuration(d.window(), keys(queue, "window")),
                settings.positiveDuration(d.restartAfter(), keys(queue, "restart-after")),
                settings.find(keys(queue, "reasons")).map(v -> (java.util.Set<String>) new HashSet<>(v.list()))
                        .orElse(d.reasons())));
    }

    /** The queue's own key, then {@code default}'s. */
    private static String[] keys(String queue, String key) {
        return new String[] {PREFIX + "dead-letter-rate." + queue + "." + key, PREFIX + "dead-letter-rate.default." + key};
    }
}
