package dev.mailroom.redrive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mailroom.job.PayloadRedaction;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Redacts an answer as the API and JMX write it (a JSON tree, snake_case), wherever a payload or something made
 * of one goes out, whatever the answer's shape: a member {@code payload_base64} (a dead letter's stored bytes),
 * {@code payload} (a revision's JSON text) and {@code diff} (a revision's or a redrive entry's diff) is replaced
 * by its redacted form, or by null when it cannot be redacted (not JSON: withheld whole). Every object that had
 * such a member gets {@code "payload_redacted": true}, so a reader knows what was left out. Pure.
 */
public record ViewRedaction(PayloadRedaction redaction) {

    /** The flag set beside a redacted member. */
    public static final String FLAG = "payload_redacted";

    /** Redacts {@code tree} in place (and returns it). */
    public JsonNode apply(JsonNode tree) {
        if (tree instanceof ObjectNode object) {
            boolean redacted = false;
            List<String> names = new ArrayList<>();
            object.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                JsonNode value = object.get(name);
                if (value != null && value.isTextual() && isPayload(name)) {
                    String replaced = redact(name, value.asText());
                    if (replaced == null) {
                        object.putNull(name);
                    } else {
                        object.put(name, replaced);
                    }
                    redacted = true;
                } else {
                    apply(value);
                }
            }
            if (redacted) {
                object.put(FLAG, true);
            }
        } else if (tree != null && tree.isArray()) {
            for (Iterator<JsonNode> it = tree.elements(); it.hasNext(); ) {
                apply(it.next());
            }
        }
        return tree;
    }

    private static boolean isPayload(String name) {
        return name.equals("payload_base64") || name.equals("payload") || name.equals("diff");
    }

    private String redact(String name, String value) {
        return switch (name) {
            case "payload_base64" -> {
                byte[] bytes;
                try {
                    bytes = Base64.getDecoder().decode(value);
                } catch (IllegalArgumentException e) {
                    yield null;
                }
                byte[] redacted = redaction.bytes(bytes);
                yield redacted == null ? null : Base64.getEncoder().encodeToString(redacted);
            }
            case "payload" -> redaction.json(value);
            default -> PayloadDiff.redact(value, redaction::json);
        };
    }

    /** For the ids of what a reveal showed: the dead letters whose payload-derived members the tree holds. */
    public static List<Long> deadLetterIds(JsonNode tree) {
        List<Long> ids = new ArrayList<>();
        collect(tree, ids);
        return ids.stream().distinct().toList();
    }

    private static void collect(JsonNode node, List<Long> ids) {
        if (node instanceof ObjectNode object) {
            boolean payload = false;
            for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> m = it.next();
                if (isPayload(m.getKey()) && m.getValue().isTextual()) {
                    payload = true;
                } else {
                    collect(m.getValue(), ids);
                }
            }
            JsonNode id = object.has("dead_letter_id") ? object.get("dead_letter_id") : object.get("id");
            if (payload && id != null && id.canConvertToLong()) {
                ids.add(id.asLong());
            }
        } else if (node != null && node.isArray()) {
            node.forEach(n -> collect(n, ids));
        }
    }

}
