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
 * Turns a stored webhook body into {@link TrackingEvent}s. Today only the {@code generic} profile — Mailroom's
 * own JSON, one event object or {@code {"events": [...]}}, with anymail's field names in snake_case — is
 * normalised; the providers' own vocabularies are still to be mapped (issue 11), and their stored events
 * wait as {@code received} until then rather than being misread.
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

    /** The profiles whose bodies are normalised today. */
    public static final List<String> PROFILES = List.of("generic");

    public static boolean understands(String profile) {
        return PROFILES.contains(profile);
    }

    public static List<TrackingEvent> normalise(String profile, byte[] body) throws Unreadable {
        if (!understands(profile)) {
            throw new Unreadable("no mapping for profile " + profile + " yet");
        }
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (IOException e) {
            throw new Unreadable("body is not JSON");
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
        String recipient = text(e, "recipient");
        return new TrackingEvent(type, providerMessageId, messageId, recipient == null ? null : recipient.trim().toLowerCase(),
                timestamp, text(e, "description"), text(e, "mta_response"), text(e, "reject_reason"), tags, metadata);
    }

    private static String text(JsonNode e, String field) {
        JsonNode v = e.get(field);
        return v == null || v.isNull() || v.asText().isBlank() ? null : v.asText();
    }
}
