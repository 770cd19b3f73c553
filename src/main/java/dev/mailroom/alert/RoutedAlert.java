package dev.mailroom.alert;

import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One occurrence on its way into a group: the routing decided its alert name and severity, and split
 * its labels into those that identify the group and those that only describe this occurrence.
 *
 * @param name        the alert name ({@code DeadLetterArrived}, ...)
 * @param severity    page or ticket
 * @param groupLabels the labels that identify the group besides name and severity ({@code queue},
 *                    {@code reason}, ...): occurrences with equal ones are counted in one alert
 * @param details     the other labels ({@code failure_class}, {@code error_type}, ...), reported as
 *                    the distinct values seen, never grouped on: a message id in a label would make
 *                    every dead letter its own alert
 * @param example     the message id the occurrence is about, or null
 * @param title       one sentence about the group, the same for every occurrence in it
 * @param description one sentence about this occurrence
 * @param at          when it happened
 * @param count       how many occurrences this stands for (1, or more for a summary such as dropped events)
 */
public record RoutedAlert(String name, Severity severity, Map<String, String> groupLabels, Map<String, String> details,
        String example, String title, String description, Instant at, long count) {

    public RoutedAlert {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(severity, "severity");
        groupLabels = Collections.unmodifiableMap(new TreeMap<>(groupLabels));
        details = Collections.unmodifiableMap(new TreeMap<>(details));
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(at, "at");
        if (count < 1) {
            throw new IllegalArgumentException("count must be >= 1: " + count);
        }
    }

    /** The Alertmanager label set of the alert this occurrence is counted in: alertname, severity, group labels. */
    public Map<String, String> alertLabels() {
        Map<String, String> l = new TreeMap<>(groupLabels);
        l.put(Alert.ALERTNAME, name);
        l.put(Alert.SEVERITY, severity.wire());
        return Collections.unmodifiableMap(l);
    }
}
