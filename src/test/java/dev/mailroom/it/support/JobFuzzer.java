package dev.mailroom.it.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mailroom.job.JobParser;
import dev.mailroom.job.ParseResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Malformed jobs made from the job schema ({@link JobParser#SCHEMA_RESOURCE}) by a seeded generator: for every
 * property the schema declares (in turn, so every field gets its share) one mutation of a valid job — a wrong
 * type, an empty or oversized string, deep nesting, invalid UTF-8, control characters, a header-injection attempt
 * (CR/LF plus a header), an unknown property or a missing required one. Each case is checked against Mailroom's own
 * parser before it is used: a mutation the contract happens to accept (CR/LF in a text body is legal) is replaced
 * by another one, so every case must end dead-lettered. The same seed gives the same cases.
 */
public final class JobFuzzer {

    /** The mutation kinds; each case names its kind and field. */
    public enum Kind { wrong_type, empty, huge, deep_nesting, invalid_utf8, control_chars, header_injection, unknown_property,
        missing_required }

    /** {@code messageId}: the job's, when the parser reads it (the dead letter is then attached to a job row). */
    public record Case(int index, Kind kind, String field, byte[] body, boolean text, String messageId) { }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** Stands for the invalid bytes in a serialised document until they are swapped in. */
    private static final String UTF8_MARK = "\uE000MARK\uE000";
    private static final byte[][] INVALID_UTF8 = {
            {(byte) 0xC3, (byte) 0x28}, {(byte) 0xFF}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
            {(byte) 0xC0, (byte) 0xAF}, {(byte) 0xE2, (byte) 0x82}, {(byte) 0x80}};
    private static final String[] INJECTIONS = {
            "\r\nBcc: victim@evil.example", "\nSubject: injected", "\r\n\r\nbody takeover", "%0d%0aBcc: x@evil.example\r\n",
            "\u2028Bcc: victim@evil.example", "\u0085To: victim@evil.example"};

    private final Random random;
    private final JsonNode properties;
    private final List<String> required = new ArrayList<>();
    private final JobParser parser = new JobParser();

    public JobFuzzer(long seed) {
        this.random = new Random(seed);
        try (InputStream in = JobParser.class.getResourceAsStream(JobParser.SCHEMA_RESOURCE)) {
            JsonNode schema = JSON.readTree(in);
            this.properties = schema.path("properties");
            schema.path("required").forEach(r -> required.add(r.asText()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code n} cases; message ids (where a case keeps one) are {@code prefix + index}. */
    public List<Case> cases(String prefix, int n) {
        List<String> fields = new ArrayList<>();
        properties.fieldNames().forEachRemaining(fields::add);
        fields.add("(document)");
        List<Case> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String field = fields.get(i % fields.size());
            out.add(oneCase(i, prefix + i, field));
        }
        return out;
    }

    /** How many cases of each kind, and per field, for the log. */
    public static Map<String, Integer> summary(List<Case> cases) {
        Map<String, Integer> m = new TreeMap<>();
        cases.forEach(c -> m.merge(c.kind().name(), 1, Integer::sum));
        return m;
    }

    private Case oneCase(int index, String messageId, String field) {
        for (int attempt = 0; attempt < 30; attempt++) {
            Kind kind = attempt < 25 ? Kind.values()[random.nextInt(Kind.values().length)] : Kind.wrong_type;
            ObjectNode job = validJob(messageId, field);
            byte[] body = mutate(job, field, kind);
            if (body != null && parser.parse(body) instanceof ParseResult.Rejected rejected) {
                boolean text = kind != Kind.invalid_utf8;
                // the rejection is attached to a job row only when the parser could read the message id
                return new Case(index, kind, field, body, text,
                        messageId.equals(rejected.messageId()) ? messageId : null);
            }
        }
        throw new IllegalStateException("no mutation of " + field + " was rejected by the parser");
    }

    /** A valid job that carries the field to mutate (rendered content, or a template job for those fields). */
    private static ObjectNode validJob(String messageId, String field) {
        ObjectNode job = NODES.objectNode();
        job.put("schema_version", 3).put("message_id", messageId).put("idempotency_key", messageId)
                .put("tenant", "chaos").put("campaign_id", "fuzz").put("category", "fuzz")
                .put("from", "Chaos <noreply@example.com>");
        job.putArray("to").add("alice@example.com");
        job.putArray("cc").add("carol@example.com");
        job.putArray("bcc").add("bob@example.com");
        job.put("reply_to", "help@example.com");
        if (field.equals("template_id") || field.equals("variables")) {
            job.put("template_id", "password-reset");
            job.putObject("variables").put("product", "Mailroom");
        } else {
            job.put("subject", "Fuzz " + messageId).put("text", "text").put("html", "<p>html</p>");
        }
        job.putObject("headers").put("X-Order", "7");
        job.putObject("metadata").put("order", "7");
        job.put("expires_at", "2099-01-01T00:00:00Z").put("send_at", "2020-01-01T00:00:00Z").put("priority", "normal")
                .put("ordering_key", messageId);
        job.putObject("unsubscribe").put("url", "https://example.com/unsubscribe").put("mailto", "u@example.com");
        job.putArray("attachments").addObject().put("filename", "fuzz.txt").put("content_type", "text/plain")
                .put("content_base64", "ZnV6eg==");
        return job;
    }

    private byte[] mutate(ObjectNode job, String field, Kind kind) {
        boolean document = field.equals("(document)");
        JsonNode current = document ? job : job.get(field);
        switch (kind) {
            case wrong_type -> {
                JsonNode wrong = wrongType(current);
                if (document) {
                    return bytes(wrong);
                }
                job.set(field, wrong);
            }
            case empty -> {
                if (document) {
                    return "{}".getBytes(StandardCharsets.UTF_8);
                }
                job.set(field, current.isArray() ? NODES.arrayNode() : current.isObject() ? NODES.objectNode()
                        : NODES.textNode(""));
            }
            case huge -> {
                // past any maxLength; past the 1 MiB body limit now and then (too_large)
                int length = random.nextInt(10) == 0 ? JobParser.DEFAULT_MAX_BODY_BYTES + 10 : 999 + random.nextInt(4000);
                String big = "x".repeat(length);
                if (document) {
                    job.put("padding", big);
                } else {
                    job.set(field, replaceStrings(current, big));
                }
            }
            case deep_nesting -> {
                int depth = JobParser.MAX_NESTING_DEPTH + 1 + random.nextInt(3000);
                String nested = "[".repeat(depth) + "1" + "]".repeat(depth);
                String target = document ? "padding" : field;
                job.put(target, UTF8_MARK);
                return bytes(job, UTF8_MARK, nested.getBytes(StandardCharsets.UTF_8));
            }
            case invalid_utf8 -> {
                byte[] bad = INVALID_UTF8[random.nextInt(INVALID_UTF8.length)];
                if (document) {
                    job.put("subject", UTF8_MARK);
                } else {
                    job.set(field, replaceStrings(current, UTF8_MARK));
                }
                return bytes(job, "\"" + UTF8_MARK + "\"", concat("\"a".getBytes(StandardCharsets.UTF_8), bad,
                        "b\"".getBytes(StandardCharsets.UTF_8)));
            }
            case control_chars -> {
                char c = (char) (random.nextBoolean() ? random.nextInt(0x20) : 0x7F + random.nextInt(0x21));
                String value = "ok" + c + "ok";
                if (document) {
                    job.put("message_id", value);
                } else {
                    job.set(field, replaceStrings(current, value));
                }
            }
            case header_injection -> {
                String injection = INJECTIONS[random.nextInt(INJECTIONS.length)];
                if (document || field.equals("headers")) {
                    ObjectNode headers = job.putObject("headers");
                    if (random.nextBoolean()) {
                        headers.put("X-Order" + injection, "7");
                    } else {
                        headers.put("X-Order", "7" + injection);
                    }
                } else {
                    job.set(field, replaceStrings(current, textOf(current) + injection));
                }
            }
            case unknown_property -> {
                if (document || current.isObject()) {
                    (document ? job : (ObjectNode) current).put("x_" + Integer.toHexString(random.nextInt()), "?");
                    if (!document && !field.equals("variables")) {
                        // headers and metadata take any name: make the value the violation
                        ((ObjectNode) current).putArray("x_list").add(1);
                    }
                } else {
                    job.put("unknown_" + field, textOf(current));
                }
            }
            case missing_required -> job.remove(document ? required.get(random.nextInt(required.size())) : field);
        }
        return bytes(job);
    }

    private JsonNode wrongType(JsonNode current) {
        List<JsonNode> choices = new ArrayList<>(List.of(NODES.numberNode(42), NODES.booleanNode(true),
                NODES.nullNode(), NODES.numberNode(1.5), NODES.arrayNode().add("a"), NODES.objectNode().put("a", 1),
                NODES.textNode("1")));
        choices.removeIf(c -> c.getNodeType() == current.getNodeType());
        return choices.get(random.nextInt(choices.size()));
    }

    /** The node with every string in it replaced by {@code value} (arrays and objects keep their shape). */
    private static JsonNode replaceStrings(JsonNode node, String value) {
        if (node.isArray()) {
            ArrayNode a = NODES.arrayNode();
            node.forEach(e -> a.add(replaceStrings(e, value)));
            return a;
        }
        if (node.isObject()) {
            ObjectNode o = NODES.objectNode();
            Iterator<Map.Entry<String, JsonNode>> it = node.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                o.set(e.getKey(), replaceStrings(e.getValue(), value));
            }
            return o;
        }
        return NODES.textNode(value);
    }

    private static String textOf(JsonNode node) {
        if (node.isArray() || node.isObject()) {
            Iterator<JsonNode> it = node.elements();
            return it.hasNext() ? textOf(it.next()) : "";
        }
        return node.asText();
    }

    private static byte[] bytes(JsonNode node) {
        try {
            return JSON.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The document with the first occurrence of {@code mark} (as JSON-escaped text) replaced by raw bytes. */
    private static byte[] bytes(JsonNode node, String mark, byte[] replacement) {
        String text = new String(bytes(node), StandardCharsets.UTF_8);
        String quoted = mark.startsWith("\"") ? mark : "\"" + mark + "\"";
        int at = text.indexOf(quoted);
        if (at < 0) {
            throw new IllegalStateException("mark not found");
        }
        return concat(text.substring(0, at).getBytes(StandardCharsets.UTF_8), replacement,
                text.substring(at + quoted.length()).getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }
}
