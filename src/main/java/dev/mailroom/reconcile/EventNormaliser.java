package dev.mailroom.reconcile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a stored webhook body into {@link TrackingEvent}s. The {@code generic} profile is Mailroom's own JSON
 * (one event object or {@code {"events": [...]}}, anymail's field names in snake_case) and is read here; the
 * providers' vocabularies (ses, sendgrid, mailgun, postmark, resend) are data, {@link EventMappings}.
 */
public final class EventNormaliser {

    private static final ObjectMapper JSON = new ObjectMapper();

    private EventNormaliser() {
    }

    /** Thrown for a body the profile's mapping cannot read: the event is kept as {@code unreadable}. */
    public static final class Unreadable extends Exception {
        public Unreadable(String why) {
            super(why);
        }
    }

    /** The profiles whose bodies are normalised: {@code generic} and every profile of the mapping tables. */
    public static final List<String> PROFILES = profiles();

    private static List<String> profiles() {
        List<String> all = new ArrayList<>(List.of("generic"));
        all.addAll(EventMappings.shipped().profileNames());
        return List.copyOf(all);
    }

    public static boolean understands(String profile) {
        return PROFILES.contains(profile);
    }

    /**
     * The events of one stored call; an empty list when the call carries none (an SNS subscription
     * confirmation).
     */
    public static List<TrackingEvent> normalise(String profile, byte[] body) throws Unreadable {
        return normalise(profile, body, row -> { });
    }

    /** As {@link #normalise(String, byte[])}; {@code matched} hears each event's mapping row (coverage test). */
    static List<TrackingEvent> normalise(String profile, byte[] body, java.util.function.Consumer<String> matched) throws Unreadable {
        if (!understands(profile)) {
            throw new Unreadable("no mapping for profile " + profile);
        }
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (IOException e) {
            throw new Unreadable("body is not JSON");
        }
        if (root == null) {
            throw new Unreadable("no events in body");
        }
        if (EventMappings.shipped().has(profile)) {
            return EventMappings.shipped().normalise(profile, root, matched);
        }
        List<TrackingEvent> out = new ArrayList<>();
        if (root != null && root.has("events")) {
            for (JsonNode event : root.path("events")) {
                out.add(generic(event));
            }
        } else if (root != null && root.isObject()) {
            out.add(generic(root));
        }
        if (out.isEmpty()) {
            throw new Unreadable("no events in body");
        }
        return out;
    }

    private static TrackingEvent generic(JsonNode e) throws Unreadable {
        EventType type;
        try {
            type = EventType.valueOf(e.path("event_type").asText("unknown"));
        } catch (IllegalArgumentException unknownName) {
            type = EventType.unknown;
        }
        String messageId = text(e, "message_id");
        String providerMessageId = text(e, "provider_message_id");
        if (messageId == null && providerMessageId == null) {
            throw new Unreadable("an event names neither message_id nor provider_message_id");
        }
        Instant timestamp = null;
        if (text(e, "timestamp") != null) {
            try {
                timestamp = Instant.parse(text(e, "timestamp"));
            } catch (DateTimeParseException bad) {
                throw new Unreadable("timestamp is not ISO-8601");
            }
        }
        List<String> tags = new ArrayList<>();
        e.path("tags").forEach(t -> tags.add(t.asText()));
        Map<String, String> metadata = new LinkedHashMap<>();
        e.path("metadata").fields().forEachRemaining(f -> metadata.put(f.getKey(), f.getValue().asText()));
        return new TrackingEvent(type, providerMessageId, messageId, recipient(text(e, "recipient")),
                timestamp, text(e, "description"), text(e, "mta_response"), text(e, "reject_reason"), tags, metadata);
    }

    /** A recipient as job recipients are stored (the addr-spec, lower-cased), or null. */
    static String recipient(String address) {
        return address == null || address.isBlank() ? null : dev.mailroom.job.JobRecipient.normalise(address);
    }

    private static String text(JsonNode e, String field) {
        JsonNode v = e.get(field);
        return v == null || v.isNull() || v.asText().isBlank() ? null : v.asText();
    }
}
