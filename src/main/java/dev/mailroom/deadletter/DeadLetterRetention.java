package dev.mailroom.deadletter;

import dev.mailroom.platform.MailroomConfig;
import dev.mailroom.platform.settings.CheckedAtBoot;
import dev.mailroom.platform.settings.DurationText;
import dev.mailroom.platform.settings.SettingsReader;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.eclipse.microprofile.config.Config;

/**
 * How long dead letters of a send queue are kept: {@code mailroom.deadletter.retention.<queue>}, else
 * {@code mailroom.deadletter.retention.default}, else 14 days; never less than 4 days, so a long weekend
 * cannot expire what nobody had a chance to look at (a shorter setting is refused, not shortened). Read once per
 * queue, every configured queue at deployment: a bad value stops the deployment instead of breaking
 * dead-lettering itself inside a delivery.
 */
@ApplicationScoped
public class DeadLetterRetention implements CheckedAtBoot {

    public static final Duration DEFAULT = Duration.ofDays(14);
    public static final Duration MINIMUM = Duration.ofDays(4);

    @Inject
    Config config;
    @Inject
    MailroomConfig mailroom;

    private Function<String, Optional<String>> lookup;
    private final Map<String, Duration> byQueue = new ConcurrentHashMap<>();

    /** For CDI. */
    protected DeadLetterRetention() {
    }

    public DeadLetterRetention(Function<String, Optional<String>> config) {
        this.lookup = config;
    }

    @Override
    public void checkSettings() {
        mailroom.queues().forEach(this::forQueue);
    }

    public Duration forQueue(String queue) {
        return byQueue.computeIfAbsent(queue, this::read);
    }

    private Duration read(String queue) {
        Function<String, Optional<String>> source = lookup != null ? lookup
                : key -> config.getOptionalValue(key, String.class);
        return new SettingsReader(source)
                .find("mailroom.deadletter.retention." + queue, "mailroom.deadletter.retention.default")
                .map(v -> v.as(DeadLetterRetention::atLeastTheMinimum,
                        DurationText.SYNTAX + ", at least " + MINIMUM.toDays() + " days (a long weekend)"))
                .orElse(DEFAULT);
    }

    private static Duration atLeastTheMinimum(String text) {
        Duration d = DurationText.parse(text);
        if (d.compareTo(MINIMUM) < 0) {
            throw new IllegalArgumentException("below the minimum");
        }
        return d;
    }
}
