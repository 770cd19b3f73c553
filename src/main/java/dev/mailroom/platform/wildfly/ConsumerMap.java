package dev.mailroom.platform.wildfly;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Which message-driven beans consume which send queue, read from the beans' own activation config as the
 * server reports it ({@code destinationLookup} {@code java:/jms/queue/<queue>}, or a plain {@code destination}),
 * so adding a send queue and its MDB needs no table to keep in step. Pure: no server access.
 */
final class ConsumerMap {

    /** Where server-config/wildfly binds the send queues (see WildFlyPlatform.queueJndiName). */
    static final String QUEUE_JNDI_MARKER = "jms/queue/";

    private ConsumerMap() {
    }

    /** The queue an MDB with this activation config consumes, if it names one. */
    public static Optional<String> queueOf(Map<String, String> activationConfig) {
        String lookup = trimmed(activationConfig.get("destinationLookup"));
        if (lookup != null) {
            int at = lookup.lastIndexOf(QUEUE_JNDI_MARKER);
            return at < 0 ? Optional.empty() : Optional.ofNullable(trimmed(lookup.substring(at + QUEUE_JNDI_MARKER.length())));
        }
        return Optional.ofNullable(trimmed(activationConfig.get("destination")));
    }

    /** MDB names per queue (sorted, for stable answers), from each MDB's activation config. */
    public static Map<String, List<String>> byQueue(Map<String, Map<String, String>> activationConfigByMdb) {
        Map<String, List<String>> out = new TreeMap<>();
        new TreeMap<>(activationConfigByMdb).forEach((mdb, config) ->
                queueOf(config).ifPresent(q -> out.computeIfAbsent(q, k -> new ArrayList<>()).add(mdb)));
        return out;
    }

    private static String trimmed(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }
}
