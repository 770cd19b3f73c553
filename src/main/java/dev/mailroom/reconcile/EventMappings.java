package dev.mailroom.reconcile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The providers' webhook vocabularies as data ({@value #RESOURCE}): for each profile, where its events are in
 * a body, where each field of the {@link TrackingEvent} model is, and the rows that map a provider's
 * event type (and subtype) to an {@link EventType}. Rows are tried in order, the first match wins; an event
 * no row matches is {@link EventType#unknown}. Loaded and checked once; a bad file fails at start-up.
 *
 * <p>Profile format: {@code unwrap} (optional: a string field holding the JSON the events are in, as SNS's
 * {@code Message}), {@code only_when} (optional: path → value that must hold, else the body carries no
 * events, as an SNS {@code SubscriptionConfirmation}), {@code events} (path to the event objects: {@code ""}
 * the body, {@code "/*"} each element of an array), {@code type} and {@code subtype} (paths), {@code fields}
 * (paths per model field: {@code recipients}, {@code timestamp}, {@code description}, {@code mta_response},
 * {@code provider_message_id}, {@code message_id}, {@code tags}), {@code rows}
 * ({@code id}, {@code type}, optional {@code subtype}, {@code event_type}, optional {@code reject_reason}).
 *
 * <p>Paths: JSON-pointer segments; {@code *} is every element (or value); {@code name[key=V]} the elements of
 * array {@code name} whose {@code key} is {@code V}, case-insensitively (SES's header list, Resend's tags).
 * A field's first path that yields a value wins. Prefix {@code angle:} puts a message id in {@code <>} (the
 * form Mailroom records), {@code hex:} decodes hex UTF-8.
 */
public final class EventMappings {

    public static final String RESOURCE = "reconcile/event-mappings.json";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final EventMappings SHIPPED = load();

    /** One mapping row. */
    public record Row(String id, String type, String subtype, EventType eventType, String rejectReason) {
        boolean matches(String t, String s) {
            return type.equals(t) && (subtype == null || subtype.equals(s));
        }
    }

    /** One profile's mapping. */
    record Profile(String name, String unwrap, Map<String, String> onlyWhen, String events, List<String> type,
                   List<String> subtype, Map<String, List<String>> fields, List<Row> rows) {
    }

    private final Map<String, Profile> profiles;

    private EventMappings(Map<String, Profile> profiles) {
        this.profiles = profiles;
    }

    public static EventMappings shipped() {
        return SHIPPED;
    }

    public List<String> profileNames() {
        return List.copyOf(profiles.keySet());
    }

    /** Every row of every profile, as {@code profile/id}. */
    public List<String> rowIds() {
        List<String> ids = new ArrayList<>();
        profiles.values().forEach(p -> p.rows().forEach(r -> ids.add(p.name() + "/" + r.id())));
        return ids;
    }

    boolean has(String profile) {
        return profiles.containsKey(profile);
    }

    /**
     * The body's events in the model; {@code matched} hears the id of the row each event matched
     * ({@code profile/id}, or {@code profile/-} for none). An empty list: the body carries no events.
     */
    List<TrackingEvent> normalise(String profile, JsonNode root, Consumer<String> matched) throws EventNormaliser.Unreadable {
        Profile p = profiles.get(profile);
        JsonNode body = root;
        for (Map.Entry<String, String> cond : p.onlyWhen().entrySet()) {
            if (!cond.getValue().equals(first(body, List.of(cond.getKey())).orElse(null))) {
                return List.of();
            }
        }
        if (p.unwrap() != null) {
            String inner = first(body, List.of(p.unwrap())).orElseThrow(
                    () -> new EventNormaliser.Unreadable(profile + ": no " + p.unwrap() + " to unwrap"));
            try {
                body = JSON.readTree(inner);
            } catch (IOException e) {
                throw new EventNormaliser.Unreadable(profile + ": " + p.unwrap() + " is not JSON");
            }
        }
        List<TrackingEvent> out = new ArrayList<>();
        for (JsonNode e : select(body, p.events())) {
            String type = first(e, p.type()).orElse(null);
            if (type == null) {
                throw new EventNormaliser.Unreadable(profile + ": an event without a type");
            }
            String subtype = first(e, p.subtype()).orElse(null);
            Optional<Row> row = p.rows().stream().filter(r -> r.matches(type, subtype)).findFirst();
            matched.accept(profile + "/" + row.map(Row::id).orElse("-"));
            EventType eventType = row.map(Row::eventType).orElse(EventType.unknown);
            String providerMessageId = first(e, p.fields().get("provider_message_id")).orElse(null);
            String messageId = first(e, p.fields().get("message_id")).orElse(null);
            if (providerMessageId == null && messageId == null) {
                throw new EventNormaliser.Unreadable(profile + ": an event names neither the provider's message id nor Mailroom's");
            }
            Instant timestamp = timestamp(first(e, p.fields().get("timestamp")).orElse(null));
            String description = first(e, p.fields().get("description")).orElse(null);
            if (row.isEmpty()) {
                description = type + (subtype == null ? "" : "/" + subtype) + (description == null ? "" : ": " + description);
            }
            String mta = first(e, p.fields().get("mta_response")).orElse(null);
            List<String> tags = all(e, p.fields().get("tags"));
            List<String> recipients = all(e, p.fields().get("recipients"));
            if (recipients.isEmpty()) {
                recipients = java.util.Collections.singletonList(null);
            }
            for (String recipient : recipients) {
                out.add(new TrackingEvent(eventType, providerMessageId, messageId, EventNormaliser.recipient(recipient), timestamp,
                        description, mta, row.map(Row::rejectReason).orElse(null), tags, Map.of()));
            }
        }
        return out;
    }

    /** A provider's timestamp: epoch seconds (SendGrid, Mailgun: fractional) or ISO-8601 with any offset; else none. */
    static Instant timestamp(String value) {
        if (value == null) {
            return null;
        }
        try {
            double seconds = Double.parseDouble(value);
            return Instant.ofEpochMilli(Math.round(seconds * 1000));
        } catch (NumberFormatException notANumber) {
            // ISO-8601 below
        }
        try {
            return OffsetDateTime.parse(value).toInstant();
        } catch (DateTimeParseException e) {
            try {
                return Instant.parse(value);
            } catch (DateTimeParseException again) {
                return null;
            }
        }
    }

    private static Optional<String> first(JsonNode e, List<String> paths) {
        for (String path : paths) {
            for (JsonNode n : select(e, strip(path))) {
                String v = text(n);
                if (v != null) {
                    return Optional.of(convert(path, v));
                }
            }
        }
        return Optional.empty();
    }

    private static List<String> all(JsonNode e, List<String> paths) {
        for (String path : paths) {
            List<String> values = new ArrayList<>();
            for (JsonNode n : select(e, strip(path))) {
                String v = text(n);
                if (v != null) {
                    values.add(convert(path, v));
                }
            }
            if (!values.isEmpty()) {
                return values;
            }
        }
        return List.of();
    }

    private static String text(JsonNode n) {
        return n == null || n.isNull() || n.isContainerNode() || n.asText().isBlank() ? null : n.asText();
    }

    private static String strip(String path) {
        int colon = path.indexOf(':');
        return colon >= 0 && !path.startsWith("/") ? path.substring(colon + 1) : path;
    }

    private static String convert(String path, String value) {
        if (path.startsWith("angle:")) {
            return value.startsWith("<") ? value : "<" + value + ">";
        }
        if (path.startsWith("hex:")) {
            try {
                return new String(HexFormat.of().parseHex(value), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException notHex) {
                return value;
            }
        }
        return value;
    }

    /** The nodes a path selects ({@code ""}: the node itself). */
    static List<JsonNode> select(JsonNode node, String path) {
        List<JsonNode> current = new ArrayList<>(List.of(node));
        if (path.isEmpty()) {
            return current;
        }
        for (String segment : path.substring(1).split("/", -1)) {
            List<JsonNode> next = new ArrayList<>();
            for (JsonNode n : current) {
                step(n, segment, next);
            }
            current = next;
        }
        return current;
    }

    private static void step(JsonNode n, String segment, List<JsonNode> out) {
        if (segment.equals("*")) {
            if (n.isContainerNode()) {
                n.forEach(out::add);
            }
            return;
        }
        int open = segment.indexOf('[');
        if (open > 0 && segment.endsWith("]")) {
            String[] cond = segment.substring(open + 1, segment.length() - 1).split("=", 2);
            for (JsonNode element : n.path(segment.substring(0, open))) {
                if (element.path(cond[0]).asText().equalsIgnoreCase(cond[1])) {
                    out.add(element);
                }
            }
            return;
        }
        JsonNode child = n.isArray() && segment.chars().allMatch(Character::isDigit) ? n.get(Integer.parseInt(segment)) : n.get(segment);
        if (child != null && !child.isMissingNode()) {
            out.add(child);
        }
    }

    private static EventMappings load() {
        try (InputStream in = EventMappings.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the classpath");
            }
            return parse(JSON.readTree(in));
        } catch (IOException e) {
            throw new UncheckedIOException(RESOURCE + " cannot be read", e);
        }
    }

    static EventMappings parse(JsonNode root) {
        if (root.path("schema_version").asInt() != 1) {
            throw new IllegalStateException(RESOURCE + ": schema_version must be 1");
        }
        Map<String, Profile> profiles = new LinkedHashMap<>();
        root.path("profiles").fields().forEachRemaining(entry -> {
            String name = entry.getKey();
            JsonNode p = entry.getValue();
            Map<String, String> onlyWhen = new LinkedHashMap<>();
            p.path("only_when").fields().forEachRemaining(f -> onlyWhen.put(f.getKey(), f.getValue().asText()));
            Map<String, List<String>> fields = new LinkedHashMap<>();
            for (String field : List.of("recipients", "timestamp", "description", "mta_response", "provider_message_id",
                    "message_id", "tags")) {
                fields.put(field, strings(p.path("fields").path(field)));
            }
            List<Row> rows = new ArrayList<>();
            java.util.Set<String> ids = new java.util.HashSet<>();
            int i = 0;
            for (JsonNode r : p.path("rows")) {
                String where = RESOURCE + ": profiles." + name + ".rows[" + i++ + "]";
                String id = required(r, "id", where);
                if (!ids.add(id)) {
                    throw new IllegalStateException(where + ": duplicate id " + id);
                }
                EventType type;
                try {
                    type = EventType.valueOf(required(r, "event_type", where).toLowerCase(Locale.ROOT));
                } catch (IllegalArgumentException e) {
                    throw new IllegalStateException(where + " (id '" + id + "'): unknown event_type " + r.path("event_type").asText());
                }
                rows.add(new Row(id, required(r, "type", where), r.hasNonNull("subtype") ? r.get("subtype").asText() : null, type,
                        r.hasNonNull("reject_reason") ? r.get("reject_reason").asText() : null));
            }
            if (rows.isEmpty() || strings(p.path("type")).isEmpty()) {
                throw new IllegalStateException(RESOURCE + ": profile " + name + " needs type paths and rows");
            }
            profiles.put(name, new Profile(name, p.hasNonNull("unwrap") ? p.get("unwrap").asText() : null, onlyWhen,
                    p.path("events").asText(""), strings(p.path("type")), strings(p.path("subtype")), fields, rows));
        });
        return new EventMappings(profiles);
    }

    private static String required(JsonNode r, String field, String where) {
        if (!r.hasNonNull(field) || r.get(field).asText().isBlank()) {
            throw new IllegalStateException(where + ": " + field + " is required");
        }
        return r.get(field).asText();
    }

    private static List<String> strings(JsonNode n) {
        List<String> out = new ArrayList<>();
        if (n.isTextual()) {
            out.add(n.asText());
        }
        n.forEach(v -> out.add(v.asText()));
        return out;
    }
}
