package dev.mailroom.job;

import dev.mailroom.contract.UnsubscribeRule;
import dev.mailroom.platform.settings.SettingsReader;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Which send queues require a one-click unsubscribe, read once at deployment. Keyed per queue because a queue is
 * what says a mail is bulk: {@code mailroom.bulk.require-unsubscribe.<queue>} for any queue, and the bare
 * {@code mailroom.bulk.require-unsubscribe} for {@code mail.send.bulk} (on unless set to false). Transactional queues
 * are never forced: a password reset must not be refused for want of an unsubscribe link.
 */
public final class UnsubscribeRequirement {

    private final Map<String, Boolean> byQueue;

    private UnsubscribeRequirement(Map<String, Boolean> byQueue) {
        this.byQueue = Map.copyOf(byQueue);
    }

    /** @throws IllegalArgumentException naming the key of a value that is not true or false */
    public static UnsubscribeRequirement read(SettingsReader settings, Collection<String> queues) {
        Map<String, Boolean> byQueue = new TreeMap<>();
        for (String queue : queues) {
            String own = "mailroom.bulk.require-unsubscribe." + queue;
            Optional<SettingsReader.Value> value = UnsubscribeRule.requiredByDefault(queue)
                    ? settings.find(own, UnsubscribeRule.SETTING) : settings.find(own);
            byQueue.put(queue, value.map(SettingsReader.Value::bool)
                    .orElse(UnsubscribeRule.requiredByDefault(queue)));
        }
        return new UnsubscribeRequirement(byQueue);
    }

    /** Whether a job on {@code queue} must carry {@code unsubscribe}; a queue not read at deployment uses the default. */
    public boolean required(String queue) {
        return byQueue.getOrDefault(queue, UnsubscribeRule.requiredByDefault(queue));
    }

    /** The rule's decision on {@code job} arriving on {@code queue}. */
    public UnsubscribeRule.Decision decide(String queue, SendJob job) {
        return UnsubscribeRule.decide(queue, required(queue), job.unsubscribe() != null);
    }
}
