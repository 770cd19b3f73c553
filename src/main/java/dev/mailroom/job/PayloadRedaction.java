package dev.mailroom.job;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a viewer may see of a job payload: the same JSON with the value of every member named in {@code fields}
 * (at any depth) replaced by {@value #MASK}. An object value keeps its keys and loses its values (a viewer sees
 * which template variables or metadata keys a job had, never what they were); anything else is masked whole.
 * A payload that is not a JSON object (a malformed job, a truncated copy) cannot be redacted field by field and
 * is withheld whole ({@code null}). Pure: no configuration, no I/O; {@link #of(String)} reads the configured list.
 */
public record PayloadRedaction(Set<String> fields) {

    /** What stands in for a redacted value. */
    public static final String MASK = "[redacted]";
    /** The default of {@code mailroom.redact.fields}: template variables, the bodies, the metadata values and inline attachments. */
    public static final String DEFAULT_FIELDS = "variables,text,html,metadata,content_base64";

    private static final ObjectMapper PRETTY = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    public PayloadRedaction {
        fields = Set.copyOf(fields);
    }

    /** From a comma-separated list of member names (blank entries ignored; names are matched exactly). */
    public static PayloadRedaction of(String commaSeparated) {
        return new PayloadRedaction(Arrays.stream(commaSeparated == null ? new String[0] : commaSeparated.split(","))
                .map(String::trim).filter(s -> !s.isEmpty()).collect(Collectors.toSet()));
    }

    /** The payload as JSON text, redacted and pretty-printed; null when it is not a JSON object. */
    public String json(String payload) {
        if (payload == null) {
            return null;
        }
        try {
            JsonNode root = PRETTY.readTree(payload);
            if (root == null || !root.isObject()) {
                return null;
            }
            mask(root);
            return PRETTY.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    /** The payload's bytes (UTF-8 JSON), redacted; null when they are not a JSON object. */
    public byte[] bytes(byte[] payload) {
        String redacted = payload == null ? null : json(new String(payload, StandardCharsets.UTF_8));
        return redacted == null ? null : redacted.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * A job recipient's address as a viewer sees it: masked when its kind ({@code to}, {@code cc}, {@code bcc})
     * is one of the fields, as that member of the payload would be.
     */
    public String recipient(String kind, String address) {
        return member(kind, address);
    }

    /** A member of the payload kept apart from it (a job's subject): masked when it is one of the fields. */
    public String member(String name, String value) {
        return value != null && fields.contains(name) ? MASK : value;
    }

    /** Whether any field would be masked: nothing to redact when the list is empty. */
    public boolean isEmpty() {
        return fields.isEmpty();
    }

    private void mask(JsonNode node) {
        if (node instanceof ObjectNode object) {
            for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> member = it.next();
                if (fields.contains(member.getKey())) {
                    member.setValue(masked(member.getValue()));
                } else {
                    mask(member.getValue());
                }
            }
        } else if (node instanceof ArrayNode array) {
            array.forEach(this::mask);
        }
    }

    private static JsonNode masked(JsonNode value) {
        if (value instanceof ObjectNode object) {
            ObjectNode keysOnly = object.objectNode();
            object.fieldNames().forEachRemaining(k -> keysOnly.put(k, MASK));
            return keysOnly;
        }
        return value == null || value.isNull() ? value : TextNode.valueOf(MASK);
    }

    /** The names, sorted, for logs and docs. */
    @Override
    public String toString() {
        return fields.stream().sorted().collect(Collectors.joining(",", "PayloadRedaction[", "]"));
    }
}
