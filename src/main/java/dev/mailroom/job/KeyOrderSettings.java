package dev.mailroom.job;

import dev.mailroom.platform.settings.SettingsReader;
import dev.mailroom.recoverability.KeyOrderPolicy.AfterDeadLetter;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a key does after a dead-lettered head, per send queue, read once at deployment:
 * {@code mailroom.ordering.after-dead-letter.<queue>}, else {@code mailroom.ordering.after-dead-letter}, else
 * {@code continue}. A value that is neither {@code continue} nor {@code hold} stops the deployment naming its key.
 */
public final class KeyOrderSettings {

    /** The setting for every queue; {@code .<queue>} after it for one queue. */
    public static final String SETTING = "mailroom.ordering.after-dead-letter";
    private static final String ACCEPTED = "continue or hold";

    private final Map<String, AfterDeadLetter> byQueue;
    private final AfterDeadLetter fallback;

    private KeyOrderSettings(Map<String, AfterDeadLetter> byQueue, AfterDeadLetter fallback) {
        this.byQueue = Map.copyOf(byQueue);
        this.fallback = fallback;
    }

    /** @throws dev.mailroom.platform.settings.InvalidSetting naming the key of a value that is not continue or hold */
    public static KeyOrderSettings read(SettingsReader settings, Collection<String> queues) {
        AfterDeadLetter fallback = settings.find(SETTING).map(KeyOrderSettings::parse).orElse(AfterDeadLetter.CONTINUE);
        Map<String, AfterDeadLetter> byQueue = new TreeMap<>();
        for (String queue : queues) {
            byQueue.put(queue, settings.find(SETTING + "." + queue).map(KeyOrderSettings::parse).orElse(fallback));
        }
        return new KeyOrderSettings(byQueue, fallback);
    }

    private static AfterDeadLetter parse(SettingsReader.Value value) {
        return value.as(text -> Objects.requireNonNull(AfterDeadLetter.fromWireName(text.trim())), ACCEPTED);
    }

    /** The setting of {@code queue}; a queue not read at deployment has the one for every queue. */
    public AfterDeadLetter afterDeadLetter(String queue) {
        return byQueue.getOrDefault(queue, fallback);
    }
}
