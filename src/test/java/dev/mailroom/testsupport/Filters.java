package dev.mailroom.testsupport;

import dev.mailroom.deadletter.DeadLetterFilter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Dead-letter filters for tests, by wire name: {@code Filters.of("queue", "mail.send", "from", instant)}. */
public final class Filters {

    private Filters() {
    }

    /** The filter of a JSON object as a plan's body and JMX read it (no checks beyond the JSON's own). */
    public static DeadLetterFilter json(String json) {
        try {
            return dev.mailroom.platform.Json.snakeCaseMapper().readValue(json, DeadLetterFilter.class);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /**
     * The filter of these (wire name, value) pairs, read as the REST query is ({@link DeadLetterFilter#of}); a null
     * value is no filter, an instant is its ISO text, a list of ids is comma-separated.
     */
    public static DeadLetterFilter of(Object... nameValues) {
        if (nameValues.length % 2 != 0) {
            throw new IllegalArgumentException("name, value pairs");
        }
        Map<String, String> text = new LinkedHashMap<>();
        for (int i = 0; i < nameValues.length; i += 2) {
            String name = (String) nameValues[i];
            if (!DeadLetterFilter.NAMES.contains(name)) {
                throw new IllegalArgumentException("not a filter: " + name);
            }
            Object v = nameValues[i + 1];
            if (v != null) {
                text.put(name, v instanceof List<?> l ? l.stream().map(String::valueOf).collect(Collectors.joining(","))
                        : v.toString());
            }
        }
        return DeadLetterFilter.of(text);
    }
}
