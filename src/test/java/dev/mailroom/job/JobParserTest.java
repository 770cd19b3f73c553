package dev.mailroom.job;

import dev.mailroom.contract.RejectReason;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mailroom.job.ParseResult.Parsed;
import dev.mailroom.job.ParseResult.Rejected;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.InputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class JobParserTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final JobParser parser = new JobParser();

    // ------------------------------------------------------------------ helpers

    /** The smallest valid job, as a mutable map (insertion-ordered, so the bytes are stable). */
    private static Map<String, Object> minimal() {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("schema_version", 1);
        job.put("message_id", "msg-1");
        job.put("from", "noreply@example.com");
        job.put("to", List.of("ada@example.org"));
        job.put("subject", "Hello");
        job.put("text", "Hi there");
        return job;
    }

    private static Map<String, Object> minimal(Consumer<Map<String, Object>> change) {
        Map<String, Object> job = minimal();
        change.accept(job);
        return job;
    }

    private static byte[] bytes(Object json) {
        try {
            return JSON.writeValueAsBytes(json);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private SendJob parsed(byte[] body) {
        ParseResult r = parser.parse(body);
        assertThat(r).as("expected a valid job, got %s", r).isInstanceOf(Parsed.class);
        return ((Parsed) r).job();
    }

    private Rejected rejected(byte[] body) {
        ParseResult r = parser.parse(body);
        assertThat(r).as("expected a rejection, got %s", r).isInstanceOf(Rejected.class);
        return (Rejected) r;
    }

    // ------------------------------------------------------------------ valid jobs

    @Test
    void fullRenderedJobMapsEveryField() {
        String body = """
                {
                  "schema_version": 2,
                  "message_id": "m-42",
                  "idempotency_key": "order-7-confirmation",
                  "tenant": "acme",
                  "campaign_id": "spring-sale",
                  "category": "receipt",
                  "from": "Acme Shop <shop@acme.example>",
                  "to": ["ada@example.org", "Bob Smith <bob@example.org>"],
                  "cc": ["carol@example.org"],
                  "bcc": ["audit@acme.example", "archive@acme.example"],
                  "reply_to": "help@acme.example",
                  "subject": "Your order 7",
                  "text": "Thanks!",
                  "html": "<p>Thanks!</p>",
                  "headers": {"X-Order": "7", "List-Id": "<news.acme.example>"},
                  "unsubscribe": {"url": "https://acme.example/u/7", "mailto": "u@acme.example"},
                  "metadata": {"order": "7", "shard": "eu-1"},
                  "expires_at": "2030-01-31T14:00:00+02:00",
                  "send_at": "2030-01-31T09:00:00+01:00",
                  "priority": "high"
                }
                """;
        SendJob job = parsed(utf8(body));

        assertThat(job.schemaVersion()).isEqualTo(2);
        assertThat(job.messageId()).isEqualTo("m-42");
        assertThat(job.idempotencyKey()).isEqualTo("order-7-confirmation");
        assertThat(job.tenant()).isEqualTo("acme");
        assertThat(job.campaignId()).isEqualTo("spring-sale");
        assertThat(job.category()).isEqualTo("receipt");
        assertThat(job.from()).isEqualTo("Acme Shop <shop@acme.example>");
        assertThat(job.to()).containsExactly("ada@example.org", "Bob Smith <bob@example.org>");
        assertThat(job.cc()).containsExactly("carol@example.org");
        assertThat(job.bcc()).containsExactly("audit@acme.example", "archive@acme.example");
        assertThat(job.replyTo()).isEqualTo("help@acme.example");
        assertThat(job.subject()).isEqualTo("Your order 7");
        assertThat(job.text()).isEqualTo("Thanks!");
        assertThat(job.html()).isEqualTo("<p>Thanks!</p>");
        assertThat(job.templateId()).isNull();
        assertThat(job.variables()).isEmpty();
        assertThat(job.headers()).containsOnly(
                Map.entry("X-Order", "7"), Map.entry("List-Id", "<news.acme.example>"));
        assertThat(job.unsubscribe()).isEqualTo(
                new dev.mailroom.contract.Unsubscribe("https://acme.example/u/7", "u@acme.example"));
        assertThat(job.metadata()).containsOnly(Map.entry("order", "7"), Map.entry("shard", "eu-1"));
        assertThat(job.expiresAt()).isEqualTo(Instant.parse("2030-01-31T12:00:00Z"));
        assertThat(job.sendAt()).isEqualTo(Instant.parse("2030-01-31T08:00:00Z"));
        assertThat(job.priority()).isEqualTo(SendJob.Priority.high);
    }

    @Test
    void anOrderingKeyIsReadFromAVersionThreeJobAndAbsentOtherwise() {
        SendJob keyed = parsed(utf8("""
                {"schema_version": 3, "message_id": "m-1", "from": "a@example.org", "to": ["b@example.org"],
                 "subject": "s", "text": "t", "ordering_key": "order-7"}"""));
        assertThat(keyed.orderingKey()).isEqualTo("order-7");
        assertThat(keyed.schemaVersion()).isEqualTo(3);
        SendJob plain = parsed(utf8("""
                {"schema_version": 1, "message_id": "m-2", "from": "a@example.org", "to": ["b@example.org"],
                 "subject": "s", "text": "t"}"""));
        assertThat(plain.orderingKey()).isNull();
    }

    @Test
    void templateJobMapsVariablesToPlainJavaValues() {
        String body = """
                {"schema_version": 1, "message_id": "t-1", "from": "a@example.com", "to": ["b@example.com"],
                 "template_id": "password-reset",
                 "variables": {
                   "name": "Ada", "count": 3, "big": 12345678901, "huge": 123456789012345678901234567890,
                   "price": 12.50, "ok": true, "gone": null,
                   "user": {"name": "Ada L.", "tags": ["x", 1, null], "nothing": null}
                 }}
                """;
        SendJob job = parsed(utf8(body));

        assertThat(job.templateId()).isEqualTo("password-reset");
        assertThat(job.subject()).isNull();
        Map<String, Object> v = job.variables();
        assertThat(v).containsOnlyKeys("name", "count", "big", "huge", "price", "ok", "user"); // null dropped
        assertThat(v.get("name")).isEqualTo("Ada");
        assertThat(v.get("count")).isEqualTo(3);
        assertThat(v.get("big")).isEqualTo(12345678901L);
        assertThat(v.get("huge")).isEqualTo(new BigInteger("123456789012345678901234567890"));
        assertThat(v.get("price")).isInstanceOf(BigDecimal.class);
        assertThat(((BigDecimal) v.get("price")).toPlainString()).isEqualTo("12.50"); // as written
        assertThat(v.get("ok")).isEqualTo(true);
        @SuppressWarnings("unchecked")
        Map<String, Object> user = (Map<String, Object>) v.get("user");
        assertThat(user).containsOnlyKeys("name", "tags");
        assertThat(user.get("name")).isEqualTo("Ada L.");
        assertThat(user.get("tags")).asInstanceOf(InstanceOfAssertFactories.LIST).containsExactly("x", 1, null);
        assertThatThrownBy(() -> user.put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void minimalJobGetsDefaults() {
        SendJob job = parsed(bytes(minimal()));

        assertThat(job.messageId()).isEqualTo("msg-1");
        assertThat(job.idempotencyKey()).isEqualTo("msg-1");
        assertThat(job.priority()).isEqualTo(SendJob.Priority.normal);
        assertThat(job.to()).containsExactly("ada@example.org");
        assertThat(job.cc()).isEmpty();
        assertThat(job.bcc()).isEmpty();
        assertThat(job.headers()).isEmpty();
        assertThat(job.metadata()).isEmpty();
        assertThat(job.expiresAt()).isNull();
        assertThat(job.sendAt()).isNull();
        assertThat(job.html()).isNull();
        assertThat(job.tenant()).isNull();
        assertThat(job.unsubscribe()).isNull();
    }

    @Test
    void anUnsubscribeIsReadWithAndWithoutItsMailtoUnderSchemaVersionOne() {
        SendJob both = parsed(bytes(minimal(j -> j.put("unsubscribe",
                Map.of("url", "https://shop.example/u?t=abc%2C1", "mailto", "unsub+abc@shop.example")))));
        assertThat(both.schemaVersion()).isEqualTo(1);
        assertThat(both.unsubscribe()).isEqualTo(
                new dev.mailroom.contract.Unsubscribe("https://shop.example/u?t=abc%2C1", "unsub+abc@shop.example"));
        SendJob urlOnly = parsed(bytes(minimal(j -> j.put("unsubscribe", Map.of("url", "https://shop.example/u")))));
        assertThat(urlOnly.unsubscribe()).isEqualTo(new dev.mailroom.contract.Unsubscribe("https://shop.example/u", null));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "a@b.com",
            "user+tag@mail.example.co.uk",
            "root@localhost",
            "Bob Smith <bob@example.com>",
            "\"Smith, Bob\" <bob@example.com>",
            "<bob@example.com>",
            "Zoë Ünicode <zoe@exämple.de>"})
    void acceptsMailboxForms(String mailbox) {
        SendJob job = parsed(bytes(minimal(j -> {
            j.put("to", List.of(mailbox));
            j.put("reply_to", mailbox);
        })));
        assertThat(job.to()).containsExactly(mailbox);
        assertThat(job.replyTo()).isEqualTo(mailbox);
    }

    @Test
    void schemaVersionOneWrittenAsDecimalIsVersionOne() {
        assertThat(parsed(bytes(minimal(j -> j.put("schema_version", new BigDecimal("1.0"))))).schemaVersion())
                .isEqualTo(1);
    }

    @Test
    void aLeadingByteOrderMarkIsIgnored() {
        byte[] json = bytes(minimal());
        byte[] withBom = new byte[json.length + 3];
        withBom[0] = (byte) 0xEF;
        withBom[1] = (byte) 0xBB;
        withBom[2] = (byte) 0xBF;
        System.arraycopy(json, 0, withBom, 3, json.length);
        assertThat(parsed(withBom).messageId()).isEqualTo("msg-1");
    }

    // ------------------------------------------------------------------ not_json and too_large

    static Stream<Arguments> notJson() {
        return Stream.of(
                arguments("empty body", new byte[0]),
                arguments("whitespace only", utf8("  \n ")),
                arguments("plain text", utf8("hello")),
                arguments("truncated object", utf8("{\"schema_version\": 1, \"to\": [")),
                arguments("single quotes", utf8("{'schema_version': 1}")),
                arguments("comment", utf8("/* c */ {\"schema_version\": 1}")),
                arguments("trailing garbage", utf8("{\"schema_version\": 1} x")),
                arguments("two objects", utf8("{} {}")),
                arguments("array", utf8("[{\"schema_version\": 1}]")),
                arguments("string", utf8("\"{}\"")),
                arguments("number", utf8("1")),
                arguments("null", utf8("null")),
                arguments("true", utf8("true")),
                arguments("invalid UTF-8 (C3 28)", new byte[] {'{', '"', (byte) 0xC3, 0x28, '"', ':', '1', '}'}),
                arguments("lone continuation byte", new byte[] {'{', '"', 'a', (byte) 0x80, '"', ':', '1', '}'}),
                arguments("overlong encoding of '/'", new byte[] {'{', '"', (byte) 0xC0, (byte) 0xAF, '"', ':', '1', '}'}),
                arguments("UTF-16 bytes", "{\"schema_version\":1}".getBytes(StandardCharsets.UTF_16)),
                arguments("raw NUL in a string", utf8("{\"message_id\": \"a\u0000b\"}")),
                arguments("binary", new byte[] {0, 1, 2, 3, (byte) 0xFF, (byte) 0xFE}));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void notJson(String name, byte[] body) {
        Rejected r = rejected(body);
        assertThat(r.reason()).isEqualTo(RejectReason.not_json);
        assertThat(r.messageId()).isNull();
        assertThat(r.detail()).isNotBlank();
    }

    @Test
    void nullBodyIsNotJson() {
        assertThat(rejected(null).reason()).isEqualTo(RejectReason.not_json);
    }

    @Test
    void invalidUtf8DetailGivesTheByteOffset() {
        Rejected r = rejected(new byte[] {'{', '"', (byte) 0xC3, 0x28, '"', ':', '1', '}'});
        assertThat(r.detail()).contains("UTF-8").contains("offset 2");
    }

    @Test
    void nonObjectDetailNamesWhatWasFound() {
        assertThat(rejected(utf8("[1]")).detail()).contains("array");
        assertThat(rejected(utf8("42")).detail()).contains("number");
    }

    @Test
    void twentyMegabytesIsTooLargeWithoutBeingParsed() {
        // invalid UTF-8 and not JSON: if the parser looked at the bytes at all it would say not_json
        byte[] huge = new byte[20 * 1024 * 1024];
        Arrays.fill(huge, (byte) 0xFF);
        Rejected r = assertTimeoutPreemptively(Duration.ofSeconds(1), () -> rejected(huge));
        assertThat(r.reason()).isEqualTo(RejectReason.too_large);
        assertThat(r.detail()).contains(String.valueOf(huge.length)).contains(String.valueOf(1024 * 1024));
        assertThat(r.messageId()).isNull();
    }

    @Test
    void theLimitIsInclusive() {
        byte[] body = bytes(minimal());
        assertThat(new JobParser(body.length).parse(body)).isInstanceOf(Parsed.class);
        ParseResult over = new JobParser(body.length - 1).parse(body);
        assertThat(over).isInstanceOf(Rejected.class);
        assertThat(((Rejected) over).reason()).isEqualTo(RejectReason.too_large);
    }

    @Test
    void limitMustBePositive() {
        assertThatThrownBy(() -> new JobParser(0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new JobParser().maxBodyBytes()).isEqualTo(1024 * 1024);
    }

    @Test
    void deepNestingIsRejectedWithoutBlowingTheStack() {
        int depth = 100_000; // ~200 KB, well under the body limit
        String body = "{\"schema_version\":1,\"variables\":" + "[".repeat(depth) + "]".repeat(depth) + "}";
        Rejected r = rejected(utf8(body));
        assertThat(r.reason()).isEqualTo(RejectReason.not_json);
        assertThat(r.detail()).contains("nesting depth");
    }

    @Test
    void nestingUpToTheLimitIsAccepted() {
        // root object (1) + variables (2) + 60 nested objects = depth 62 <= 64
        String nested = "{\"a\":".repeat(60) + "\"deep\"" + "}".repeat(60);
        String body = new String(bytes(minimal(j -> {
            j.remove("subject");
            j.remove("text");
            j.put("template_id", "x");
            j.put("variables", Map.of());
        })), StandardCharsets.UTF_8).replace("\"variables\":{}", "\"variables\":" + nested);
        SendJob job = parsed(utf8(body));
        Object v = job.variables().get("a");
        for (int i = 1; i < 60; i++) {
            v = ((Map<?, ?>) v).get("a");
        }
        assertThat(v).isEqualTo("deep");
    }

    // ------------------------------------------------------------------ schema_version

    static Stream<Arguments> unsupportedVersions() {
        return Stream.of(
                arguments(4, "4"),
                arguments(0, "0"),
                arguments(-1, "-1"),
                arguments(new BigDecimal("1.5"), "1.5"),
                arguments("1", "\"1\""),
                arguments(true, "true"),
                arguments(List.of(1), "[1]"));
    }

    @ParameterizedTest(name = "schema_version {1}")
    @MethodSource
    void unsupportedVersions(Object version, String shown) {
        Rejected r = rejected(bytes(minimal(j -> j.put("schema_version", version))));
        assertThat(r.reason()).isEqualTo(RejectReason.unsupported_schema_version);
        assertThat(r.detail()).contains("schema_version " + shown + " is not supported");
        assertThat(r.messageId()).isEqualTo("msg-1");
    }

    @Test
    void nullSchemaVersionIsUnsupported() {
        Map<String, Object> job = minimal();
        job.put("schema_version", null);
        assertThat(rejected(bytes(job)).reason()).isEqualTo(RejectReason.unsupported_schema_version);
    }

    @Test
    void unsupportedVersionWinsOverOtherViolations() {
        // a job of a later version may well have other fields: we must not call them violations of ours
        Rejected r = rejected(bytes(minimal(j -> {
            j.put("schema_version", 4);
            j.put("recipients", List.of("x@example.com"));
            j.remove("to");
        })));
        assertThat(r.reason()).isEqualTo(RejectReason.unsupported_schema_version);
    }

    @Test
    void missingSchemaVersionIsASchemaViolation() {
        Rejected r = rejected(bytes(minimal(j -> j.remove("schema_version"))));
        assertThat(r.reason()).isEqualTo(RejectReason.schema_violation);
        assertThat(r.detail()).isEqualTo("/schema_version: is required");
        assertThat(r.messageId()).isEqualTo("msg-1");
    }

    // ------------------------------------------------------------------ schema violations

    private static Arguments violation(String name, Consumer<Map<String, Object>> change, String expectedDetailPart) {
        return arguments(name, change, expectedDetailPart);
    }

    /** The job declaring schema_version 3, for a field that version added. */
    private static Map<String, Object> v3(Map<String, Object> job) {
        job.put("schema_version", 3);
        return job;
    }

    /** The job declaring schema_version 2, for a field that version added. */
    private static Map<String, Object> v2(Map<String, Object> job) {
        job.put("schema_version", 2);
        return job;
    }

    static Stream<Arguments> schemaViolations() {
        String notMailbox = ": is not a mailbox";
        String control = ": contains a control character";
        return Stream.of(
                violation("missing to", j -> j.remove("to"), "/to: is required"),
                violation("missing from", j -> j.remove("from"), "/from: is required"),
                violation("missing message_id", j -> j.remove("message_id"), "/message_id: is required"),
                violation("empty to", j -> j.put("to", List.of()), "/to: must have at least 1 items"),
                violation("to not an array", j -> j.put("to", "ada@example.org"), "/to: string found, array expected"),
                violation("1001 recipients", j -> j.put("to", manyMailboxes(1001)), "/to: must have at most 1,000 items but found 1,001"),
                violation("CRLF header injection in to",
                        j -> j.put("to", List.of("ada@example.org\r\nBcc: victim@example.net")), "/to/0" + control),
                violation("trailing CRLF in to (passes a naive ^...$)",
                        j -> j.put("to", List.of("ok@example.org", "ada@example.org\r\n")), "/to/1" + control),
                violation("LF in display name", j -> j.put("from", "Evil\nBcc: x@y.z <a@b.com>"), "/from" + control),
                violation("no @", j -> j.put("to", List.of("ada.example.org")), "/to/0" + notMailbox),
                violation("space in address", j -> j.put("to", List.of("ada lovelace@example.org")), "/to/0" + notMailbox),
                violation("empty local part", j -> j.put("to", List.of("@example.org")), "/to/0" + notMailbox),
                violation("empty domain", j -> j.put("to", List.of("ada@")), "/to/0" + notMailbox),
                violation("empty domain label", j -> j.put("to", List.of("ada@example..org")), "/to/0" + notMailbox),
                violation("two @", j -> j.put("to", List.of("a@b@example.org")), "/to/0" + notMailbox),
                violation("two addresses in one", j -> j.put("to", List.of("a@x.org, b@y.org")), "/to/0" + notMailbox),
                violation("unclosed angle", j -> j.put("to", List.of("Ada <ada@example.org")), "/to/0" + notMailbox),
                violation("text after angle", j -> j.put("to", List.of("Ada <ada@example.org> x")), "/to/0" + notMailbox),
                violation("bad cc", j -> j.put("cc", List.of("ok@example.org", "nope")), "/cc/1" + notMailbox),
                violation("bad bcc", j -> j.put("bcc", List.of("nope")), "/bcc/0" + notMailbox),
                violation("bad reply_to", j -> j.put("reply_to", "nope"), "/reply_to" + notMailbox),
                violation("unknown top-level field", j -> j.put("recipient", "x"), "/recipient: is not a property of the job contract"),
                violation("empty message_id", j -> j.put("message_id", ""), "/message_id: must be at least 1 characters long"),
                violation("message_id with LF", j -> j.put("message_id", "a\nb"), "/message_id" + control),
                violation("message_id too long", j -> j.put("message_id", "m".repeat(201)), "/message_id: must be at most 200 characters long"),
                violation("idempotency_key too long", j -> j.put("idempotency_key", "k".repeat(201)), "/idempotency_key: must be at most 200"),
                violation("tenant too long", j -> j.put("tenant", "t".repeat(201)), "/tenant: must be at most 200"),
                violation("subject with CRLF", j -> j.put("subject", "Hi\r\nBcc: x@y.z"), "/subject" + control),
                violation("header value with CRLF", j -> j.put("headers", Map.of("X-Foo", "a\r\nBcc: x@y.z")), "/headers/X-Foo" + control),
                violation("header name with a space", j -> j.put("headers", Map.of("X Foo", "a")), "/headers: property 'X Foo' name is not valid"),
                violation("header value not a string", j -> j.put("headers", Map.of("X-N", 1)), "/headers/X-N: integer found, string expected"),
                violation("metadata value not a string", j -> j.put("metadata", Map.of("n", true)), "/metadata/n: boolean found, string expected"),
                violation("neither content shape", j -> {
                    j.remove("subject");
                    j.remove("text");
                }, "/: has no content"),
                violation("both content shapes", j -> {
                    j.put("template_id", "password-reset");
                    j.put("variables", Map.of());
                }, "/: has both rendered content (subject) and a template (template_id)"),
                violation("subject without a body", j -> j.remove("text"), "/: rendered content (subject) needs text or html"),
                violation("template with a text body", j -> {
                    j.remove("subject");
                    j.put("template_id", "password-reset");
                    j.put("variables", Map.of());
                }, "/: a template job (template_id) must not carry text or html"),
                violation("template without variables", j -> {
                    j.remove("subject");
                    j.remove("text");
                    j.put("template_id", "password-reset");
                }, "/: has a missing property 'variables'"),
                violation("variables not an object", j -> {
                    j.remove("subject");
                    j.remove("text");
                    j.put("template_id", "password-reset");
                    j.put("variables", List.of("a"));
                }, "/variables: array found, object expected"),
                violation("template id with a path", j -> {
                    j.remove("subject");
                    j.remove("text");
                    j.put("template_id", "../etc/passwd");
                    j.put("variables", Map.of());
                }, "/template_id: does not match the regex pattern"),
                violation("expires_at not a date", j -> j.put("expires_at", "tomorrow"), "/expires_at: is not an RFC 3339 date-time"),
                violation("expires_at without offset", j -> j.put("expires_at", "2030-01-31T12:00:00"), "/expires_at: is not an RFC 3339 date-time"),
                violation("expires_at impossible date", j -> j.put("expires_at", "2030-02-30T12:00:00Z"), "/expires_at: is not an RFC 3339 date-time"),
                violation("expires_at epoch number", j -> j.put("expires_at", 1893456000), "/expires_at: integer found, string expected"),
                violation("send_at not a date", j -> v2(j).put("send_at", "tomorrow at 9"), "/send_at: is not an RFC 3339 date-time"),
                violation("send_at without offset", j -> v2(j).put("send_at", "2030-01-31T09:00:00"), "/send_at: is not an RFC 3339 date-time"),
                violation("send_at epoch number", j -> v2(j).put("send_at", 1893456000), "/send_at: integer found, string expected"),
                violation("send_at after expires_at", j -> {
                    v2(j).put("send_at", "2030-01-31T12:00:01Z");
                    j.put("expires_at", "2030-01-31T14:00:00+02:00");
                }, "/send_at: is after expires_at (2030-01-31T12:00:00Z): the job would expire before its send time"),
                violation("ordering_key empty", j -> v3(j).put("ordering_key", ""), "/ordering_key: must be at least 1 characters long"),
                violation("ordering_key too long", j -> v3(j).put("ordering_key", "k".repeat(201)), "/ordering_key: must be at most 200"),
                violation("ordering_key with LF", j -> v3(j).put("ordering_key", "order\n7"), "/ordering_key" + control),
                violation("ordering_key a number", j -> v3(j).put("ordering_key", 7), "/ordering_key: integer found, string expected"),
                violation("ordering_key in a version-2 job", j -> v2(j).put("ordering_key", "order-7"),
                        "/ordering_key: needs schema_version 3 (this job declares schema_version 2)"),
                violation("send_at in a version-1 job", j -> j.put("send_at", "2030-01-31T09:00:00Z"),
                        "/send_at: needs schema_version 2 (this job declares schema_version 1)"),
                violation("unsubscribe over http", j -> j.put("unsubscribe", Map.of("url", "http://shop.example/u")),
                        "/unsubscribe/url: is not an https URL"),
                violation("unsubscribe url with a comma", j -> j.put("unsubscribe", Map.of("url", "https://shop.example/u?a=1,2")),
                        "/unsubscribe/url: is not an https URL"),
                violation("unsubscribe url with a space", j -> j.put("unsubscribe", Map.of("url", "https://shop.example/u x")),
                        "/unsubscribe/url: is not an https URL"),
                violation("unsubscribe url with a line break", j -> j.put("unsubscribe", Map.of("url", "https://shop.example/u\r\nBcc: x@evil.example")),
                        "/unsubscribe/url: "),
                violation("unsubscribe without url", j -> j.put("unsubscribe", Map.of("mailto", "u@shop.example")),
                        "/unsubscribe/url: is required"),
                violation("unsubscribe mailto as a URI", j -> j.put("unsubscribe", Map.of("url", "https://shop.example/u", "mailto", "mailto:u@shop.example")),
                        "/unsubscribe/mailto: is not an address"),
                violation("unsubscribe mailto with a display name", j -> j.put("unsubscribe", Map.of("url", "https://shop.example/u", "mailto", "Shop <u@shop.example>")),
                        "/unsubscribe/mailto: is not an address"),
                violation("unsubscribe with an unknown field", j -> j.put("unsubscribe", Map.of("url", "https://shop.example/u", "post", "yes")),
                        "/unsubscribe/post: is not a property of the job contract"),
                violation("unsubscribe as a string", j -> j.put("unsubscribe", "https://shop.example/u"),
                        "/unsubscribe: string found, object expected"),
                violation("unknown priority", j -> j.put("priority", "urgent"), "/priority: does not have a value in the enumeration [\"low\", \"normal\", \"high\"]"));
    }

    private static List<String> manyMailboxes(int n) {
        List<String> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add("r" + i + "@example.org");
        }
        return list;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void schemaViolations(String name, Consumer<Map<String, Object>> change, String expectedDetailPart) {
        Rejected r = rejected(bytes(minimal(change)));
        assertThat(r.reason()).isEqualTo(RejectReason.schema_violation);
        assertThat(r.detail()).contains(expectedDetailPart);
        assertThat(r.detail().length()).isLessThanOrEqualTo(ParseResult.MAX_DETAIL_CHARS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"Subject", "BCC", "bcc", "From", "to", "Cc", "Reply-To", "Sender", "Message-ID",
            "date", "MIME-Version", "Return-Path", "Content-Type", "content-transfer-encoding",
            "Content-Disposition", "X-Mailroom-Message-Id", "x-mailroom-idempotency-key", "List-Unsubscribe",
            "list-unsubscribe-post"})
    void aHeaderMailroomOwnsIsASchemaViolation(String name) {
        Rejected r = rejected(bytes(minimal(j -> j.put("headers", Map.of("X-Fine", "1", name, "v")))));
        assertThat(r.reason()).isEqualTo(RejectReason.schema_violation);
        assertThat(r.detail()).isEqualTo("/headers/" + name + ": is a header Mailroom sets itself (addressing and "
                + "subject come from the job's fields, Content-* and MIME-Version from its content, List-Unsubscribe* from "
                + "unsubscribe); remove it from headers");
        assertThat(r.messageId()).isEqualTo("msg-1");
    }

    @ParameterizedTest
    @ValueSource(strings = {"X-Order", "List-Id", "In-Reply-To", "References", "X-Subject", "Contents"})
    void headersMailroomDoesNotOwnPass(String name) {
        assertThat(parsed(bytes(minimal(j -> j.put("headers", Map.of(name, "v"))))).headers()).containsEntry(name, "v");
    }

    @Test
    void detailListsEveryViolationSortedByPath() {
        Rejected r = rejected(bytes(minimal(j -> {
            j.put("to", List.of("nope", "ok@example.org", "also nope"));
            j.put("priority", "urgent");
            j.put("zzz", 1);
            j.remove("from");
        })));
        assertThat(r.detail()).isEqualTo(String.join("; ",
                "/from: is required",
                "/priority: does not have a value in the enumeration [\"low\", \"normal\", \"high\"]",
                "/to/0: is not a mailbox (local@domain or Display Name <local@domain>)",
                "/to/2: is not a mailbox (local@domain or Display Name <local@domain>)",
                "/zzz: is not a property of the job contract"));
        // deterministic: same input, same detail
        assertThat(rejected(bytes(minimal(j -> {
            j.put("zzz", 1);
            j.remove("from");
            j.put("priority", "urgent");
            j.put("to", List.of("nope", "ok@example.org", "also nope"));
        }))).detail()).isEqualTo(r.detail());
    }

    @Test
    void detailIsBoundedAndSaysHowManyWereLeftOut() {
        List<String> bad = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            bad.add("bad-" + i);
        }
        Rejected r = rejected(bytes(minimal(j -> j.put("to", bad))));
        assertThat(r.detail().length()).isLessThanOrEqualTo(ParseResult.MAX_DETAIL_CHARS);
        assertThat(r.detail()).startsWith("/to/0: is not a mailbox").containsPattern("; \\.\\.\\. and \\d+ more$");
    }

    @Test
    void controlCharactersInTheDetailAreEscaped() {
        // property names are echoed in the detail; a NUL would break a PostgreSQL text column
        Rejected r = rejected(utf8("{\"schema_version\":1,\"message_id\":\"m\",\"from\":\"a@b.c\",\"to\":[\"a@b.c\"],"
                + "\"subject\":\"s\",\"text\":\"t\",\"x\\u0000\\r\\ny\":1}"));
        assertThat(r.detail()).isEqualTo("/x\\u0000\\u000d\\u000ay: is not a property of the job contract");
    }

    // ------------------------------------------------------------------ duplicate keys

    @Test
    void duplicateTopLevelKeyIsASchemaViolationNamingThePath() {
        Rejected r = rejected(utf8("""
                {"schema_version":1,"message_id":"m-dup","from":"a@example.com",
                 "to":["a@example.com"],"to":["attacker@example.net"],"subject":"s","text":"t"}"""));
        assertThat(r.reason()).isEqualTo(RejectReason.schema_violation);
        assertThat(r.detail()).isEqualTo("/to: duplicate key (the value is ambiguous)");
        assertThat(r.messageId()).isEqualTo("m-dup");
    }

    @Test
    void aDuplicateNestedKeyIsNamedByItsPath() {
        // Jackson's STRICT_DUPLICATE_DETECTION stops at the first duplicate, so the detail names that one
        Rejected r = rejected(utf8("""
                {"schema_version":1,"message_id":"m","from":"a@example.com","to":["a@example.com"],
                 "template_id":"t","variables":{"user":{"name":"a","name":"b"},"list":[{"k":1,"k":2}]}}"""));
        assertThat(r.reason()).isEqualTo(RejectReason.schema_violation);
        assertThat(r.detail()).isEqualTo("/variables/user/name: duplicate key (the value is ambiguous)");

        Rejected inArray = rejected(utf8("""
                {"schema_version":1,"message_id":"m","from":"a@example.com","to":["a@example.com"],
                 "template_id":"t","variables":{"list":[{"k":1},{"k":1,"k":2}]}}"""));
        assertThat(inArray.detail()).isEqualTo("/variables/list/1/k: duplicate key (the value is ambiguous)");
    }

    @Test
    void notJsonWinsOverADuplicateKey() {
        Rejected r = rejected(utf8("{\"schema_version\":1,\"a\":1,\"a\":2} trailing"));
        assertThat(r.reason()).isEqualTo(RejectReason.not_json);
        assertThat(rejected(utf8("[{\"a\":1,\"a\":2}]")).reason()).isEqualTo(RejectReason.not_json);
    }

    @Test
    void duplicateMessageIdReportsNoMessageId() {
        Rejected r = rejected(utf8("""
                {"schema_version":1,"message_id":"a","message_id":"b","from":"a@example.com",
                 "to":["a@example.com"],"subject":"s","text":"t"}"""));
        assertThat(r.reason()).isEqualTo(RejectReason.schema_violation);
        assertThat(r.messageId()).isNull();
    }

    // ------------------------------------------------------------------ message id on rejections

    static Stream<Arguments> messageIdOnRejection() {
        return Stream.of(
                arguments("string id", "\"m-7\"", "m-7"),
                arguments("numeric id", "7", null),
                arguments("empty id", "\"\"", null),
                arguments("id with a control character", "\"m\\n7\"", null),
                arguments("id longer than 200", "\"" + "m".repeat(201) + "\"", null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void messageIdOnRejection(String name, String idJson, String expected) {
        String body = "{\"schema_version\":1,\"message_id\":" + idJson + ",\"from\":\"a@example.com\",\"to\":[]}";
        Rejected r = rejected(utf8(body));
        assertThat(r.reason()).isEqualTo(RejectReason.schema_violation);
        assertThat(r.messageId()).isEqualTo(expected);
    }

    // ------------------------------------------------------------------ the schema file

    @Test
    void theSchemaIsValidJsonForDraft202012AndCoversExactlyTheJobFields() throws Exception {
        JsonNode schema;
        try (InputStream in = JobParser.class.getResourceAsStream(JobParser.SCHEMA_RESOURCE)) {
            assertThat(in).as(JobParser.SCHEMA_RESOURCE).isNotNull();
            schema = JSON.readTree(in);
        }
        assertThat(schema.path("$schema").asText()).isEqualTo("https://json-schema.org/draft/2020-12/schema");
        assertThat(schema.path("additionalProperties").asBoolean(true)).isFalse();
        assertThat(schema.path("properties").path("schema_version").path("enum"))
                .extracting(JsonNode::asInt).containsExactly(1, 2, 3);
        Set<String> properties = new HashSet<>();
        schema.path("properties").fieldNames().forEachRemaining(properties::add);
        assertThat(properties).containsExactlyInAnyOrder(
                "schema_version", "message_id", "idempotency_key", "tenant", "campaign_id", "category",
                "from", "to", "cc", "bcc", "reply_to", "subject", "text", "html", "template_id", "variables",
                "headers", "metadata", "expires_at", "send_at", "priority", "unsubscribe", "attachments", "ordering_key");
        Set<String> required = new HashSet<>();
        schema.path("required").forEach(n -> required.add(n.asText()));
        assertThat(required).containsExactlyInAnyOrder("schema_version", "message_id", "from", "to");
    }

    @Test
    void limitsThatOnlyTheSchemaFileStatesAreEnforced() {
        // 50 metadata entries at most and 1000 characters per value: written nowhere but in the schema
        Map<String, String> many = new LinkedHashMap<>();
        for (int i = 0; i < 51; i++) {
            many.put("k" + i, "v");
        }
        assertThat(rejected(bytes(minimal(j -> j.put("metadata", many)))).detail())
                .isEqualTo("/metadata: must have at most 50 properties");
        assertThat(rejected(bytes(minimal(j -> j.put("metadata", Map.of("k", "v".repeat(1001)))))).detail())
                .isEqualTo("/metadata/k: must be at most 1,000 characters long");
        assertThat(parsed(bytes(minimal(j -> j.put("metadata", Map.of("k", "v".repeat(1000)))))).metadata().get("k"))
                .hasSize(1000);
    }

    // ------------------------------------------------------------------ sharing

    @Test
    void oneParserServesManyThreads() throws Exception {
        byte[] good = bytes(minimal());
        byte[] bad = bytes(minimal(j -> j.put("to", List.of("nope"))));
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Boolean>> futures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < 200; i++) {
                        if (!(parser.parse(good) instanceof Parsed)) {
                            return false;
                        }
                        if (!(parser.parse(bad) instanceof Rejected r && r.detail().startsWith("/to/0: is not a mailbox"))) {
                            return false;
                        }
                    }
                    return true;
                }));
            }
            for (Future<Boolean> f : futures) {
                assertThat(f.get()).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
