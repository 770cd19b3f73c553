package dev.mailroom.provider.http;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mailroom.provider.OutboundMail;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * What differs between one HTTP mail API and another, as data: how the JSON body is built from an
 * {@link OutboundMail}, where the API puts the id of an accepted mail and the code of a refusal, and the
 * defaults for path and headers that {@link HttpApiSettings#forProfile} starts from. Adding an API means
 * adding a profile, not a provider.
 *
 * @param name                         the name a configuration selects it by ({@code generic}, {@code resend})
 * @param bodyFormat                   how the request body is built
 * @param defaultPath                  the path appended to the base URL
 * @param defaultAuthHeaderName        the header that carries the credential
 * @param authValuePrefix              what goes before the API key in that header ({@code "Bearer "})
 * @param defaultIdempotencyHeaderName the header that carries the job's idempotency key
 * @param messageIdPointer             JSON pointer to the provider's message id in a 2xx body, or null
 * @param messageIdHeader              response header holding the provider's message id (checked before
 *                                     the body), or null
 * @param errorCodePointer             JSON pointer to the API's error code in a non-2xx body, or null
 */
public record HttpApiProfile(
        String name,
        BodyFormat bodyFormat,
        String defaultPath,
        String defaultAuthHeaderName,
        String authValuePrefix,
        String defaultIdempotencyHeaderName,
        String messageIdPointer,
        String messageIdHeader,
        String errorCodePointer) {

    /** Mailroom's own JSON, for an in-house gateway or a test double. */
    public static final HttpApiProfile GENERIC = new HttpApiProfile("generic", BodyFormat.GENERIC,
            "/messages", "Authorization", "Bearer ", "Idempotency-Key", "/id", null, "/error/code");

    /** Resend ({@code POST /emails}); errors look like {@code {"statusCode":422,"name":"validation_error",...}}. */
    public static final HttpApiProfile RESEND = new HttpApiProfile("resend", BodyFormat.RESEND,
            "/emails", "Authorization", "Bearer ", "Idempotency-Key", "/id", null, "/name");

    private static final Map<String, HttpApiProfile> BUILT_IN = Map.of(GENERIC.name(), GENERIC, RESEND.name(), RESEND);

    public HttpApiProfile {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(bodyFormat, "bodyFormat");
        Objects.requireNonNull(defaultPath, "defaultPath");
        authValuePrefix = authValuePrefix == null ? "" : authValuePrefix;
        compileIfPresent(messageIdPointer);
        compileIfPresent(errorCodePointer);
    }

    /** The built-in profile of that name (case-insensitive). */
    public static HttpApiProfile named(String name) {
        HttpApiProfile p = name == null ? null : BUILT_IN.get(name.trim().toLowerCase(Locale.ROOT));
        if (p == null) {
            throw new IllegalArgumentException("unknown HTTP API profile '" + name + "', known: " + names());
        }
        return p;
    }

    /** Names of the built-in profiles. */
    public static Set<String> names() {
        return BUILT_IN.keySet();
    }

    private static void compileIfPresent(String pointer) {
        if (pointer != null) {
            JsonPointer.compile(pointer); // fails fast on a malformed pointer
        }
    }

    /** How a request body is built. */
    public enum BodyFormat {
        /** Every job field under its JSON-contract name; nulls left out, lists and maps always present. */
        GENERIC {
            @Override
            public ObjectNode render(OutboundMail mail, String idempotencyKey, ObjectMapper json) {
                ObjectNode n = json.createObjectNode();
                putIfPresent(n, "message_id", mail.messageId());
                putIfPresent(n, "idempotency_key", idempotencyKey);
                putIfPresent(n, "from", mail.from());
                n.set("to", array(json, mail.to()));
                n.set("cc", array(json, mail.cc()));
                n.set("bcc", array(json, mail.bcc()));
                putIfPresent(n, "reply_to", mail.replyTo());
                putIfPresent(n, "subject", mail.subject());
                putIfPresent(n, "text", mail.text());
                putIfPresent(n, "html", mail.html());
                n.set("headers", object(json, mail.allHeaders()));
                n.set("metadata", object(json, mail.metadata()));
                putIfPresent(n, "tenant", mail.tenant());
                putIfPresent(n, "campaign_id", mail.campaignId());
                putIfPresent(n, "category", mail.category());
                if (!mail.attachments().isEmpty()) {
                    // as the job contract writes an inline attachment
                    ArrayNode files = n.putArray("attachments");
                    mail.attachments().forEach(a -> files.addObject().put("filename", a.filename())
                            .put("content_type", a.contentType()).put("content_base64", base64(a)));
                }
                return n;
            }
        },
        /** Resend's send-email body; metadata and Mailroom's message_id become {@code tags}. Empty lists are left out. */
        RESEND {
            @Override
            public ObjectNode render(OutboundMail mail, String idempotencyKey, ObjectMapper json) {
                ObjectNode n = json.createObjectNode();
                putIfPresent(n, "from", mail.from());
                n.set("to", array(json, mail.to()));
                if (!mail.cc().isEmpty()) {
                    n.set("cc", array(json, mail.cc()));
                }
                if (!mail.bcc().isEmpty()) {
                    n.set("bcc", array(json, mail.bcc()));
                }
                putIfPresent(n, "reply_to", mail.replyTo());
                putIfPresent(n, "subject", mail.subject());
                putIfPresent(n, "html", mail.html());
                putIfPresent(n, "text", mail.text());
                if (!mail.allHeaders().isEmpty()) {
                    n.set("headers", object(json, mail.allHeaders()));
                }
                if (!mail.attachments().isEmpty()) {
                    // Resend's form: content is the file's base64; a text/calendar one keeps its method parameter
                    ArrayNode files = n.putArray("attachments");
                    mail.attachments().forEach(a -> files.addObject().put("filename", a.filename())
                            .put("content", base64(a)).put("content_type", a.contentType()));
                }
                if (!mail.metadata().isEmpty() || mail.messageId() != null) {
                    ArrayNode tags = n.putArray("tags");
                    new TreeMap<>(mail.metadata()).forEach((k, v) -> tags.addObject().put("name", k).put("value", v));
                    if (mail.messageId() != null) {
                        tags.add(messageIdTag(mail.messageId(), json));
                    }
                }
                return n;
            }
        };

        /** What a Resend tag value may hold (Resend refuses anything else). */
        private static final java.util.regex.Pattern RESEND_TAG_VALUE = java.util.regex.Pattern.compile("[A-Za-z0-9_-]{1,256}");

        /**
         * Mailroom's message_id as a Resend tag, which Resend's webhooks carry back (reconciliation matches events
         * by it when the provider's id was never recorded, as for an {@code unknown} send): {@code mailroom_message_id}
         * as it is when a tag can hold it, else {@code mailroom_message_id_hex} (hex of its UTF-8).
         */
        static ObjectNode messageIdTag(String messageId, ObjectMapper json) {
            if (RESEND_TAG_VALUE.matcher(messageId).matches()) {
                return json.createObjectNode().put("name", "mailroom_message_id").put("value", messageId);
            }
            String hex = java.util.HexFormat.of().formatHex(messageId.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return json.createObjectNode().put("name", "mailroom_message_id_hex").put("value", hex);
        }

        /** Builds the JSON body for one mail; {@code idempotencyKey} is the job's effect identity. */
        public abstract ObjectNode render(OutboundMail mail, String idempotencyKey, ObjectMapper json);

        private static String base64(dev.mailroom.provider.MailAttachment a) {
            return java.util.Base64.getEncoder().encodeToString(a.content());
        }

        private static void putIfPresent(ObjectNode n, String field, String value) {
            if (value != null) {
                n.put(field, value);
            }
        }

        private static ArrayNode array(ObjectMapper json, List<String> values) {
            ArrayNode a = json.createArrayNode();
            values.forEach(a::add);
            return a;
        }

        private static ObjectNode object(ObjectMapper json, Map<String, String> values) {
            ObjectNode o = json.createObjectNode();
            new TreeMap<>(values).forEach(o::put); // sorted: the same job gives the same bytes
            return o;
        }
    }
}
