package dev.mailroom.stopline;

import dev.mailroom.platform.MailroomConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.Config;

/**
 * The stop-the-line settings (MicroProfile Config):
 * <pre>
 * mailroom.stop-the-line.probe-interval = PT10S   one probe (a provider call with the queue's head job) per interval
 * mailroom.stop-the-line.put-back       = PT1S    how long a job met by a stopped line waits on the broker
 * mailroom.stop-the-line.same-outage    = PT10M   a stop this soon after a restart that did not prove the outage
 *                                                 over (an operator's resume, a breaker half-open) continues it
 * mailroom.stop-the-line.dead-letter-rate.(queue|default).enabled / .activation-threshold / .trip-threshold
 *                                       / .window / .restart-after / .reasons
 * mailroom.providers.(queue)            the queue's provider chain (else mailroom.provider)
 * </pre>
 */
@ApplicationScoped
public class StopLineSettings {

    static final String PREFIX = "mailroom.stop-the-line.";

    @Inject
    Config config;
    @Inject
    MailroomConfig mailroom;

    public Duration probeInterval() {
        return duration(PREFIX + "probe-interval", Duration.ofSeconds(10));
    }

    /** At least 100 ms: a put-back is a scheduled copy, and zero would spin a delivery against the gate. */
    public Duration putBack() {
        Duration d = duration(PREFIX + "put-back", Duration.ofSeconds(1));
        return d.compareTo(Duration.ofMillis(100)) < 0 ? Duration.ofMillis(100) : d;
    }

    /** A stop this soon after a trial restart, with no call accepted since, continues the same outage. */
    public Duration sameOutage() {
        Duration d = duration(PREFIX + "same-outage", Duration.ofMinutes(10));
        if (d.isNegative()) {
            throw new IllegalArgumentException(PREFIX + "same-outage must not be negative, not " + d);
        }
        return d;
    }

    /** The dead-letter-rate breaker's settings for {@code queue}, or empty when it is disabled there. */
    public Optional<DeadLetterRateWindow.Settings> deadLetterRate(String queue) {
        if (!Boolean.parseBoolean(perQueue(queue, "enabled").orElse("true"))) {
            return Optional.empty();
        }
        DeadLetterRateWindow.Settings d = DeadLetterRateWindow.Settings.defaults();
        try {
            return Optional.of(new DeadLetterRateWindow.Settings(
                    perQueue(queue, "activation-threshold").map(String::trim).map(Integer::parseInt).orElse(d.activationThreshold()),
                    perQueue(queue, "trip-threshold").map(String::trim).map(Double::parseDouble).orElse(d.tripThreshold()),
                    perQueue(queue, "window").map(s -> Duration.parse(s.trim())).orElse(d.window()),
                    perQueue(queue, "restart-after").map(s -> Duration.parse(s.trim())).orElse(d.restartAfter()),
                    perQueue(queue, "reasons").map(StopLineSettings::set).orElse(d.reasons())));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("bad " + PREFIX + "dead-letter-rate setting for " + queue + ": " + e.getMessage(), e);
        }
    }

    /** The providers a queue sends through, in order. */
    public List<String> chain(String queue) {
        return config.getOptionalValue("mailroom.providers." + queue, String.class)
                .filter(s -> !s.isBlank())
                .map(s -> Arrays.stream(s.split(",")).map(String::trim).filter(p -> !p.isEmpty()).toList())
                .orElse(List.of(mailroom.provider()));
    }

    private Optional<String> perQueue(String queue, String key) {
        Optional<String> own = config.getOptionalValue(PREFIX + "dead-letter-rate." + queue + "." + key, String.class);
        return (own.isPresent() ? own : config.getOptionalValue(PREFIX + "dead-letter-rate.default." + key, String.class))
                .filter(s -> !s.isBlank());
    }

    private Duration duration(String key, Duration fallback) {
        return config.getOptionalValue(key, String.class).filter(s -> !s.isBlank()).map(s -> Duration.parse(s.trim()))
                .orElse(fallback);
    }

    private static Set<String> set(String csv) {
        return Arrays.stream(csv.split(",")).map(String::trim).filter(s -> !s.isEmpty()).collect(Collectors.toSet());
    }
}
