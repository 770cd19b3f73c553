package dev.mailroom.alert;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * One alert as sinks deliver it: a group of occurrences with the same labels, with how many there were,
 * when the first and the last happened, and a few of the messages concerned.
 *
 * @param name        alert name: {@code DeadLetterArrived}, {@code DeadLetterBurst}, ...
 * @param severity    page or ticket
 * @param labels      the Alertmanager label set: {@code alertname}, {@code severity} and the grouping
 *                    labels ({@code queue}, {@code reason}, ...); equal labels mean the same alert
 * @param summary     one sentence about the group, without the count
 * @param description the latest occurrence, and the distinct values of labels not grouped on
 * @param count       how many occurrences
 * @param firstAt     when the first happened
 * @param lastAt      when the last happened
 * @param examples    up to {@value #MAX_EXAMPLES} message ids, the first seen
 */
public record Alert(String name, Severity severity, Map<String, String> labels, String summary, String description,
        long count, Instant firstAt, Instant lastAt, List<String> examples) {

    public static final String ALERTNAME = "alertname";
    public static final String SEVERITY = "severity";
    public static final int MAX_EXAMPLES = 5;
    /**
     * How long after its last occurrence (or after being sent, when that is later) Alertmanager keeps an
     * alert firing. Without {@code endsAt} Alertmanager resolves it after its own resolve_timeout (5m by
     * default), possibly before a ticket is read.
     */
    public static final Duration DEFAULT_RESOLVE_AFTER = Duration.ofHours(1);
    /** Where an operator sees the dead letters behind an alert on the embedded default. */
    public static final URI DEFAULT_GENERATOR_URL = URI.create("http://127.0.0.1:8080/mailroom/api/v1/dead-letters");

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Labels that are also filters of {@code GET /api/v1/dead-letters}, so the generator URL lands on them. */
    private static final List<String> LINK_FILTERS = List.of(AlertEvent.QUEUE, AlertEvent.REASON, AlertEvent.PROVIDER);

    public Alert {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(severity, "severity");
        Map<String, String> l = new TreeMap<>(labels);
        if (!name.equals(l.get(ALERTNAME)) || !severity.wire().equals(l.get(SEVERITY))) {
            throw new IllegalArgumentException("labels must carry alertname=" + name + " and severity="
                    + severity.wire() + ": " + labels);
        }
        labels = Collections.unmodifiableMap(l);
        Objects.requireNonNull(summary, "summary");
        Objects.requireNonNull(description, "description");
        if (count < 1) {
            throw new IllegalArgumentException("count must be >= 1: " + count);
        }
        Objects.requireNonNull(firstAt, "firstAt");
        Objects.requireNonNull(lastAt, "lastAt");
        if (examples.size() > MAX_EXAMPLES) {
            throw new IllegalArgumentException("at most " + MAX_EXAMPLES + " examples: " + examples);
        }
        examples = List.copyOf(examples);
    }

    /** The summary with the count, as a person reads it first: {@code Dead letter on mail.send with reason handler_error (5000 times)}. */
    public String headline() {
        return count == 1 ? summary : summary + " (" + count + " times)";
    }

    /**
     * This alert and a later one with the same labels as one: counts added, the wider time span, the
     * first examples, the later description. Used when alerts wait for a sink that is down, so a
     * receiver that comes back after an hour gets one alert per label set with the whole count instead
     * of sixty that Alertmanager would fold into the last one's count.
     */
    public Alert mergedWith(Alert later) {
        if (!labels.equals(later.labels)) {
            throw new IllegalArgumentException("cannot merge alerts with different labels: " + labels + " / " + later.labels);
        }
        Set<String> ex = new LinkedHashSet<>(examples);
        for (String e : later.examples) {
            if (ex.size() >= MAX_EXAMPLES) {
                break;
            }
            ex.add(e);
        }
        return new Alert(name, severity, labels, summary, later.description, Math.addExact(count, later.count),
                firstAt.isBefore(later.firstAt) ? firstAt : later.firstAt,
                lastAt.isAfter(later.lastAt) ? lastAt : later.lastAt, new ArrayList<>(ex));
    }

    /** This alert as one item of an Alertmanager v2 {@code POST /api/v2/alerts} body, with the defaults. */
    public String toAlertmanagerJson() {
        return write(toAlertmanagerNode(lastAt, DEFAULT_RESOLVE_AFTER, DEFAULT_GENERATOR_URL));
    }

    /**
     * This alert as one item of an Alertmanager v2 {@code POST /api/v2/alerts} body:
     * <pre>
     * {"labels": {"alertname": "DeadLetterArrived", "severity": "page", "queue": "mail.send", "reason": "handler_error"},
     *  "annotations": {"summary": "... (5000 times)", "description": "...", "count": "5000", "examples": "a, b",
     *                  "first_at": "...", "last_at": "..."},
     *  "startsAt": "2030-01-01T00:00:00Z", "endsAt": "2030-01-01T01:00:10Z",
     *  "generatorURL": "http://127.0.0.1:8080/mailroom/api/v1/dead-letters?queue=mail.send&amp;reason=handler_error"}
     * </pre>
     *
     * @param sentAt        now: {@code endsAt} is counted from the later of it and {@code lastAt}, so an
     *                      alert delivered late after a receiver outage does not arrive already resolved
     * @param resolveAfter  how long it stays firing
     * @param generatorBase the dead-letter listing URL; the alert's queue, reason and provider are added
     *                      as query parameters
     */
    public String toAlertmanagerJson(Instant sentAt, Duration resolveAfter, URI generatorBase) {
        return write(toAlertmanagerNode(sentAt, resolveAfter, generatorBase));
    }

    /** A whole {@code POST /api/v2/alerts} body: the JSON array of the alerts' items, in order. */
    public static String alertmanagerBody(List<Alert> alerts, Instant sentAt, Duration resolveAfter, URI generatorBase) {
        ArrayNode array = JSON.createArrayNode();
        for (Alert a : alerts) {
            array.add(a.toAlertmanagerNode(sentAt, resolveAfter, generatorBase));
        }
        return write(array);
    }

    ObjectNode toAlertmanagerNode(Instant sentAt, Duration resolveAfter, URI generatorBase) {
        ObjectNode item = JSON.createObjectNode();
        ObjectNode l = item.putObject("labels");
        labels.forEach(l::put);
        ObjectNode a = item.putObject("annotations");
        a.put("summary", headline());
        a.put("description", description);
        // Alertmanager annotations are strings only
        a.put("count", Long.toString(count));
        if (!examples.isEmpty()) {
            a.put("examples", String.join(", ", examples));
        }
        a.put("first_at", rfc3339(firstAt));
        a.put("last_at", rfc3339(lastAt));
        item.put("startsAt", rfc3339(firstAt));
        Instant from = sentAt.isAfter(lastAt) ? sentAt : lastAt;
        item.put("endsAt", rfc3339(from.plus(resolveAfter)));
        if (generatorBase != null) {
            item.put("generatorURL", generatorUrl(generatorBase));
        }
        return item;
    }

    private String generatorUrl(URI base) {
        StringBuilder q = new StringBuilder();
        for (String f : LINK_FILTERS) {
            String v = labels.get(f);
            if (v != null) {
                q.append(q.length() == 0 ? "" : "&").append(f).append('=')
                        .append(URLEncoder.encode(v, StandardCharsets.UTF_8));
            }
        }
        String b = base.toString();
        if (q.length() == 0) {
            return b;
        }
        return b + (base.getRawQuery() == null ? "?" : "&") + q;
    }

    /** RFC 3339 in UTC with at most millisecond precision, as Alertmanager parses it. */
    static String rfc3339(Instant t) {
        return t.truncatedTo(ChronoUnit.MILLIS).toString();
    }

    private static String write(Object node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an alert could not be written as JSON", e);
        }
    }
}
