package dev.mailroom.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.contract.RejectReason;
import dev.mailroom.job.JobParser;
import dev.mailroom.job.ParseResult;
import dev.mailroom.job.ParseResult.Parsed;
import dev.mailroom.job.ParseResult.Rejected;
import dev.mailroom.job.SendJob;
import java.time.Instant;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The client refuses, at {@code build()}, every job the server would dead-letter as poison for a contract reason, with
 * the server's reason code and the server's own words: each row is a producer's mistake made through the builder,
 * and the same bytes are handed to the server's {@link JobParser}.
 */
class MailJobContractTest {

    private static final JobParser SERVER = new JobParser();

    /** Reasons no builder call can produce, and why; every other reason of the catalogue has a row below. */
    private static final Map<RejectReason, String> OUT_OF_REACH = Map.of(
            RejectReason.unsupported_schema_version, "the builder writes the oldest version that has the fields used "
                    + "(theBuilderWritesTheOldestVersionItsFieldsNeed), always one the server reads",
            RejectReason.missing_template, "templates live on the server; decided when the job is rendered",
            RejectReason.missing_template_variable, "decided when the server renders the template",
            RejectReason.attachment_too_large, "the limits are the server's settings, applied after parsing; the builder's "
                    + "check with the default limits is attachmentsOverTheServersLimitsAreRefusedByTheBuilderAsTheServerWould",
            RejectReason.attachment_not_allowed, "the allowed prefixes are the server's setting; decided when the job "
                    + "arrives",
            RejectReason.missing_unsubscribe, "decided by the queue the job goes to, not by its bytes (the server's "
                    + "per-queue setting); the builder's check is aBulkJobWithoutAnUnsubscribeIsRefusedByTheBuilder",
            RejectReason.send_at_beyond_horizon, "decided by the server's horizon and the time the job arrives, not by "
                    + "its bytes; the builder's check is aSendAtBeyondTheDefaultHorizonIsRefusedByTheBuilder");

    private static final String SHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    @Test
    void attachmentsOverTheServersLimitsAreRefusedByTheBuilderAsTheServerWould() {
        assertThatThrownBy(() -> good().attachmentByReference("big.pdf", "application/pdf",
                "https://files.shop.example/big.pdf", SHA, dev.mailroom.contract.AttachmentRule.DEFAULT_MAX_BYTES + 1).build())
                .isInstanceOfSatisfying(InvalidJobException.class, e -> {
                    assertThat(e.reason()).isEqualTo(RejectReason.attachment_too_large);
                    assertThat(e.violations()).singleElement().asString()
                            .startsWith("/attachments/0: " + (dev.mailroom.contract.AttachmentRule.DEFAULT_MAX_BYTES + 1)
                                    + " bytes; the limit of one attachment is");
                });
        assertThatThrownBy(() -> good().attachment("a.bin", "application/octet-stream", new byte[60])
                .attachment("b.bin", "application/octet-stream", new byte[60]).attachmentLimits(100, 100).build())
                .isInstanceOfSatisfying(InvalidJobException.class, e -> assertThat(e.violations()).singleElement()
                        .asString().startsWith("/attachments: 120 bytes together"));
        assertThat(good().attachment("a.bin", "application/octet-stream", new byte[60]).attachmentLimits(100, 100)
                .build().document()).containsKey("attachments");
    }

    private static MailJobBuilder good() {
        return MailJob.to("alice@example.com").from("Shop <noreply@example.com>").subject("Hello").text("Hi");
    }

    private static Arguments row(String mistake, RejectReason reason, String path, UnaryOperator<MailJobBuilder> make) {
        return Arguments.of(mistake, reason, path, make);
    }

    static Stream<Arguments> mistakes() {
        Map<String, Object> deep = new HashMap<>();
        Map<String, Object> level = deep;
        for (int i = 0; i < JobParser.MAX_NESTING_DEPTH + 5; i++) {
            Map<String, Object> next = new HashMap<>();
            level.put("n", next);
            level = next;
        }
        return Stream.of(
                row("a body over the limit", RejectReason.too_large, null, b -> b.text("x".repeat(2_000)).bodyLimit(1_000)),
                row("variables nested deeper than the parser reads", RejectReason.not_json, null,
                        b -> MailJob.to("alice@example.com").from("noreply@example.com").template("t").variable("deep", deep)),
                row("no recipient", RejectReason.schema_violation, "/to", b -> MailJob.builder().from("a@example.com").subject("s").text("t")),
                row("a recipient that is no address", RejectReason.schema_violation, "/to/0",
                        b -> MailJob.to("alice.example.com").from("noreply@example.com").subject("s").text("t")),
                row("a null recipient", RejectReason.schema_violation, "/to/0",
                        b -> MailJob.to((String) null).from("noreply@example.com").subject("s").text("t")),
                row("an address with a space", RejectReason.schema_violation, "/cc/0", b -> b.cc("bob smith@example.com")),
                row("an empty domain label", RejectReason.schema_violation, "/bcc/0", b -> b.bcc("bob@example..com")),
                row("no sender", RejectReason.schema_violation, "/from", b -> b.from(null)),
                row("a bad reply-to", RejectReason.schema_violation, "/reply_to", b -> b.replyTo("<>")),
                row("no content", RejectReason.schema_violation, "/", b -> b.subject(null).text(null)),
                row("a subject without a body", RejectReason.schema_violation, "/", b -> b.text(null)),
                row("rendered content and a template", RejectReason.schema_violation, "/", b -> b.template("welcome")),
                row("a template with a body", RejectReason.schema_violation, "/",
                        b -> b.subject(null).template("welcome")),
                row("variables without a template", RejectReason.schema_violation, "/", b -> b.variable("name", "Alice")),
                row("a template id that is no file name", RejectReason.schema_violation, "/template_id",
                        b -> b.subject(null).text(null).template("../etc/passwd")),
                row("CR LF in the subject (header injection)", RejectReason.schema_violation, "/subject",
                        b -> b.subject("Hi\r\nBcc: victim@evil.example")),
                row("a reserved header", RejectReason.schema_violation, "/headers/Reply-To",
                        b -> b.header("Reply-To", "x@example.com")),
                row("a Content-* header", RejectReason.schema_violation, "/headers/Content-Type",
                        b -> b.header("Content-Type", "text/plain")),
                row("one of Mailroom's own headers", RejectReason.schema_violation, "/headers/X-Mailroom-Job",
                        b -> b.header("X-Mailroom-Job", "1")),
                row("a header name with a space", RejectReason.schema_violation, "/headers",
                        b -> b.header("X Order", "1")),
                row("a header value with a line break", RejectReason.schema_violation, "/headers/X-Order",
                        b -> b.header("X-Order", "1\nBcc: x@evil.example")),
                row("an unsubscribe over http", RejectReason.schema_violation, "/unsubscribe/url",
                        b -> b.unsubscribe("http://shop.example/u", null)),
                row("an unsubscribe URL with a comma", RejectReason.schema_violation, "/unsubscribe/url",
                        b -> b.unsubscribe("https://shop.example/u?a=1,2", null)),
                row("an unsubscribe with only a mailto", RejectReason.schema_violation, "/unsubscribe/url",
                        b -> b.unsubscribe(null, "u@shop.example")),
                row("an unsubscribe mailto that is a URI", RejectReason.schema_violation, "/unsubscribe/mailto",
                        b -> b.unsubscribe("https://shop.example/u", "mailto:u@shop.example")),
                row("a List-Unsubscribe header of its own", RejectReason.schema_violation, "/headers/List-Unsubscribe",
                        b -> b.header("List-Unsubscribe", "<https://shop.example/u>")),
                row("an empty message id", RejectReason.schema_violation, "/message_id", b -> b.messageId("")),
                row("a message id over 200 characters", RejectReason.schema_violation, "/message_id",
                        b -> b.messageId("m".repeat(201))),
                row("an idempotency key with a control character", RejectReason.schema_violation, "/idempotency_key",
                        b -> b.idempotencyKey("key\u0000")),
                row("a category over 200 characters", RejectReason.schema_violation, "/category",
                        b -> b.category("c".repeat(201))),
                row("a tenant with a line separator", RejectReason.schema_violation, "/tenant", b -> b.tenant("a\u2028b")),
                row("a campaign id with a tab", RejectReason.schema_violation, "/campaign_id", b -> b.campaignId("a\tb")),
                row("metadata with a newline", RejectReason.schema_violation, "/metadata/k", b -> b.metadata("k", "a\nb")),
                row("more than 50 metadata entries", RejectReason.schema_violation, "/metadata", b -> {
                    for (int i = 0; i < 51; i++) {
                        b.metadata("k" + i, "v");
                    }
                    return b;
                }),
                row("an attachment without content", RejectReason.schema_violation, "/attachments/0/content_base64",
                        b -> b.attachment("invoice.pdf", "application/pdf", null)),
                row("an attachment without a file name", RejectReason.schema_violation, "/attachments/0/filename",
                        b -> b.attachment(null, "application/pdf", new byte[] {1})),
                row("an attachment whose name is a path", RejectReason.schema_violation, "/attachments/0/filename",
                        b -> b.attachment("../invoice.pdf", "application/pdf", new byte[] {1})),
                row("an attachment whose type is no MIME type", RejectReason.schema_violation,
                        "/attachments/0/content_type", b -> b.attachment("invoice.pdf", "pdf", new byte[] {1})),
                row("an attachment by reference over ftp", RejectReason.schema_violation, "/attachments/0/url",
                        b -> b.attachmentByReference("t.ics", "text/calendar", "ftp://files.example/t.ics", SHA, 4)),
                row("an attachment by reference with a short checksum", RejectReason.schema_violation,
                        "/attachments/0/sha256",
                        b -> b.attachmentByReference("t.ics", "text/calendar", "https://files.example/t.ics", "abc", 4)),
                row("an attachment by reference with a negative size", RejectReason.schema_violation,
                        "/attachments/0/size",
                        b -> b.attachmentByReference("t.ics", "text/calendar", "https://files.example/t.ics", SHA, -1)),
                row("more than 20 attachments", RejectReason.schema_violation, "/attachments", b -> {
                    for (int i = 0; i < 21; i++) {
                        b.attachment("f" + i + ".txt", "text/plain", new byte[] {1});
                    }
                    return b;
                }),
                row("an attachment over the body limit", RejectReason.too_large, null,
                        b -> b.attachment("big.bin", "application/octet-stream", new byte[2_000]).bodyLimit(2_000)),
                row("an expiry past year 9999", RejectReason.schema_violation, "/expires_at",
                        b -> b.expiresAt(Instant.parse("+10000-01-01T00:00:00Z"))),
                row("a send time after the expiry", RejectReason.schema_violation, "/send_at",
                        b -> b.sendAt(Instant.parse("2030-01-31T12:00:01Z")).expiresAt(Instant.parse("2030-01-31T12:00:00Z"))),
                row("a send time past year 9999", RejectReason.schema_violation, "/send_at",
                        b -> b.sendAt(Instant.parse("+10000-01-01T00:00:00Z"))),
                row("an empty ordering key", RejectReason.schema_violation, "/ordering_key", b -> b.orderingKey("")),
                row("an ordering key over 200 characters", RejectReason.schema_violation, "/ordering_key",
                        b -> b.orderingKey("k".repeat(201))),
                row("an ordering key with a line break", RejectReason.schema_violation, "/ordering_key",
                        b -> b.orderingKey("order\r\n7")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mistakes")
    void theClientRefusesWhatTheServerWouldDeadLetterWithTheSameReasonAndWords(String mistake, RejectReason reason,
            String path, UnaryOperator<MailJobBuilder> make) {
        MailJobBuilder builder = make.apply(good());

        ParseResult server = new JobParser(builder.bodyLimit()).parse(builder.body());
        assertThat(server).as("the server refuses it").isInstanceOf(Rejected.class);
        Rejected rejected = (Rejected) server;
        assertThat(rejected.reason()).isEqualTo(reason);

        assertThatThrownBy(builder::build).isInstanceOfSatisfying(InvalidJobException.class, e -> {
            assertThat(e.reason()).isEqualTo(rejected.reason());
            assertThat(String.join("; ", e.violations())).isEqualTo(rejected.detail());
            if (path != null) {
                assertThat(e.violations()).as("names the field").anyMatch(v -> v.startsWith(path + ":"));
            }
        });
    }

    @Test
    void everyReasonOfTheCatalogueIsInTheTableOrOutOfTheClientsReach() {
        Set<RejectReason> inTable = mistakes().map(a -> (RejectReason) a.get()[1])
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(RejectReason.class)));
        assertThat(inTable).doesNotContainAnyElementsOf(OUT_OF_REACH.keySet());
        Set<RejectReason> all = EnumSet.copyOf(inTable);
        all.addAll(OUT_OF_REACH.keySet());
        assertThat(all).containsExactlyInAnyOrder(RejectReason.values());
    }

    @Test
    void everyWrongFieldIsNamedAtOnce() {
        assertThatThrownBy(() -> MailJob.to("not-an-address").from("also wrong").subject("s").text("t")
                .header("Subject", "x").build())
                .isInstanceOfSatisfying(InvalidJobException.class, e -> assertThat(e.violations())
                        .extracting(v -> v.substring(0, v.indexOf(':')))
                        .containsExactly("/from", "/headers/Subject", "/to/0"))
                .hasMessageStartingWith("schema_violation: ");
    }

    @Test
    void aBuiltJobIsWhatTheServerReads() {
        MailJob job = MailJob.to("alice@example.com", "Bob <bob@example.com>").cc("carol@example.com")
                .from("Shop <noreply@example.com>").replyTo("help@example.com")
                .template("password-reset").variable("name", "Alice").variable("expires", Instant.parse("2030-01-01T00:00:00Z"))
                .variables(Map.of("order", Map.of("id", 7, "total", new java.math.BigDecimal("12.50"))))
                .category("password_reset").tenant("acme").campaignId("c-1").idempotencyKey("reset/42")
                .header("X-Order", "7").metadata("order", "7").expiresAt(Instant.parse("2030-01-31T12:00:00Z"))
                .priority(MailJob.Priority.high).messageId("m-1").build();

        SendJob read = ((Parsed) SERVER.parse(job.json().getBytes(java.nio.charset.StandardCharsets.UTF_8))).job();
        assertThat(read.messageId()).isEqualTo("m-1").isEqualTo(job.messageId());
        assertThat(read.idempotencyKey()).isEqualTo("reset/42").isEqualTo(job.idempotencyKey());
        assertThat(read.to()).containsExactly("alice@example.com", "Bob <bob@example.com>").isEqualTo(job.recipients());
        assertThat(read.cc()).containsExactly("carol@example.com");
        assertThat(read.templateId()).isEqualTo("password-reset").isEqualTo(job.templateId().orElseThrow());
        assertThat(read.variables()).containsEntry("name", "Alice").containsEntry("expires", "2030-01-01T00:00:00Z")
                .containsEntry("order", Map.of("id", 7, "total", new java.math.BigDecimal("12.50")));
        assertThat(read.category()).isEqualTo("password_reset").isEqualTo(job.category().orElseThrow());
        assertThat(read.headers()).containsOnly(Map.entry("X-Order", "7"));
        assertThat(read.expiresAt()).isEqualTo(Instant.parse("2030-01-31T12:00:00Z"));
        assertThat(read.priority()).isEqualTo(SendJob.Priority.high);
    }

    @Test
    void aBulkJobWithoutAnUnsubscribeIsRefusedByTheBuilder() {
        assertThatThrownBy(() -> good().queue("mail.send.bulk").build())
                .isInstanceOfSatisfying(InvalidJobException.class, e -> {
                    assertThat(e.reason()).isEqualTo(RejectReason.missing_unsubscribe);
                    assertThat(e.violations()).singleElement().asString()
                            .startsWith("/unsubscribe: is required on the bulk queue mail.send.bulk");
                });
        MailJob bulk = good().queue("mail.send.bulk").unsubscribe("https://shop.example/u", "u@shop.example").build();
        assertThat(bulk.document()).containsEntry("unsubscribe",
                Map.of("url", "https://shop.example/u", "mailto", "u@shop.example"));
        SendJob read = ((Parsed) SERVER.parse(bulk.json().getBytes(java.nio.charset.StandardCharsets.UTF_8))).job();
        assertThat(read.unsubscribe()).isEqualTo(
                new dev.mailroom.contract.Unsubscribe("https://shop.example/u", "u@shop.example"));
        // a transactional queue does not ask for one
        assertThat(good().queue("mail.send").build().document()).doesNotContainKey("unsubscribe");
        assertThat(good().unsubscribe("https://shop.example/u", null).unsubscribe(null, null).build().document())
                .doesNotContainKey("unsubscribe");
    }

    @Test
    void aSendAtBeyondTheDefaultHorizonIsRefusedByTheBuilder() {
        Instant farOut = Instant.now().plus(java.time.Duration.ofDays(365));
        assertThatThrownBy(() -> good().sendAt(farOut).build())
                .isInstanceOfSatisfying(InvalidJobException.class, e -> {
                    assertThat(e.reason()).isEqualTo(RejectReason.send_at_beyond_horizon);
                    assertThat(e.violations()).singleElement().asString()
                            .startsWith("/send_at: " + farOut + " is further ahead than mailroom.send-at.horizon");
                });
        Instant tomorrow = Instant.now().plus(java.time.Duration.ofDays(1));
        MailJob job = good().sendAt(tomorrow).build();
        assertThat(job.document()).containsEntry("send_at", tomorrow.toString());
        assertThat(((Parsed) SERVER.parse(job.json().getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .job().sendAt()).isEqualTo(tomorrow);
        assertThat(good().sendAt(tomorrow).sendAt(null).build().document()).doesNotContainKey("send_at");
    }

    @Test
    void theBuilderWritesTheOldestVersionItsFieldsNeed() {
        assertThat(good().build().document()).containsEntry("schema_version", 1);
        MailJob withFiles = good().attachment("invoice.pdf", "application/pdf", "%PDF-1.4".getBytes())
                .attachmentByReference("ticket.ics", "text/calendar; method=REQUEST", "https://files.shop.example/t.ics",
                        SHA, 4)
                .build();
        assertThat(withFiles.document()).containsEntry("schema_version", 2);
        SendJob read = ((Parsed) SERVER.parse(withFiles.json().getBytes(java.nio.charset.StandardCharsets.UTF_8))).job();
        assertThat(read.schemaVersion()).isEqualTo(2);
        assertThat(read.attachments()).containsExactly(
                new dev.mailroom.contract.Attachment("invoice.pdf", "application/pdf",
                        java.util.Base64.getEncoder().encodeToString("%PDF-1.4".getBytes()), null, null, null),
                new dev.mailroom.contract.Attachment("ticket.ics", "text/calendar; method=REQUEST", null,
                        "https://files.shop.example/t.ics", SHA, 4L));
    }

    @Test
    void anOrderingKeyMakesTheJobVersionThreeAndTheServerReadsIt() {
        MailJob job = good().orderingKey("order-7").build();
        assertThat(job.document()).containsEntry("schema_version", 3).containsEntry("ordering_key", "order-7");
        assertThat(job.orderingKey()).contains("order-7");
        assertThat(((Parsed) SERVER.parse(job.json().getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .job().orderingKey()).isEqualTo("order-7");
        assertThat(good().orderingKey("order-7").orderingKey(null).build().document())
                .doesNotContainKey("ordering_key").containsEntry("schema_version", 1);
    }

    @Test
    void aJobWithoutIdsGetsARandomMessageIdThatIsAlsoItsKey() {
        MailJob a = good().build();
        MailJob b = good().build();
        assertThat(a.messageId()).isNotEqualTo(b.messageId());
        assertThat(a.idempotencyKey()).isEqualTo(a.messageId());
        assertThat(a.document()).doesNotContainKey("idempotency_key");
    }

    @Test
    void aTemplateWithoutVariablesGetsAnEmptyObject() {
        MailJob job = MailJob.to("alice@example.com").from("noreply@example.com").template("welcome").build();
        assertThat(job.document()).containsEntry("variables", Map.of());
    }

    @Test
    void aTraceparentMustBeOne() {
        assertThat(good().traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").build().traceparent())
                .contains("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        assertThatThrownBy(() -> good().traceparent("trace-me"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("traceparent");
    }

    @Test
    void aVariableJacksonCannotWriteIsRefusedNotThrownAsSomethingElse() {
        Object unwritable = new Object();
        assertThatThrownBy(() -> good().subject(null).text(null).template("t").variable("x", unwritable).build())
                .isInstanceOfSatisfying(InvalidJobException.class, e -> {
                    assertThat(e.reason()).isEqualTo(RejectReason.not_json);
                    assertThat(e.violations()).singleElement().asString().startsWith("/variables: ");
                });
    }
}
