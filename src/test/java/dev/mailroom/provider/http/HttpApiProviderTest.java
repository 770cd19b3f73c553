package dev.mailroom.provider.http;

import dev.mailroom.testsupport.CountingCheckpoint;
import dev.mailroom.testsupport.Ports;
import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.mailroom.provider.OutboundMail;
import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.provider.ProviderResponse.Status;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link HttpApiProvider} against WireMock on loopback, with both built-in profiles. */
class HttpApiProviderTest {

    private static final Instant NOW = Instant.parse("2025-03-01T12:00:00Z");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static WireMockServer api;

    private final CountingCheckpoint checkpoint = new CountingCheckpoint();

    @BeforeAll
    static void startApi() {
        api = new WireMockServer(options().bindAddress("127.0.0.1").dynamicPort());
        api.start();
    }

    @AfterAll
    static void stopApi() {
        api.stop();
    }

    @BeforeEach
    void resetApi() {
        api.resetAll();
    }

    // ------------------------------------------------------------------ requests

    @Test
    void genericProfilePostsOurOwnJsonWithAuthAndTheJobsIdempotencyKey() throws Exception {
        stub("/messages", aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                .withBody("{\"id\":\"gw-123\",\"status\":\"queued\"}"));

        ProviderResponse r = provider(HttpApiProfile.GENERIC).send(mail(), checkpoint);

        assertThat(r.status()).isEqualTo(Status.ACCEPTED);
        assertThat(r.provider()).isEqualTo("http");
        assertThat(r.code()).isEqualTo("200");
        assertThat(r.providerMessageId()).isEqualTo("gw-123");
        assertThat(r.text()).isEqualTo("{\"id\":\"gw-123\",\"status\":\"queued\"}");
        assertThat(checkpoint.calls()).isEqualTo(1);

        LoggedRequest req = onlyRequest("/messages");
        assertThat(req.getHeader("Authorization")).isEqualTo("Bearer test-key");
        assertThat(req.getHeader("Idempotency-Key")).isEqualTo("effect-7");
        assertThat(req.getHeader("Content-Type")).startsWith("application/json");
        JsonNode body = JSON.readTree(req.getBodyAsString());
        assertThat(body.path("message_id").asText()).isEqualTo("msg-7");
        assertThat(body.path("idempotency_key").asText()).isEqualTo("effect-7");
        assertThat(body.path("from").asText()).isEqualTo("Zoë <sender@example.com>");
        assertThat(texts(body.path("to"))).containsExactly("to@example.com", "to2@example.com");
        assertThat(texts(body.path("cc"))).containsExactly("cc@example.com");
        assertThat(texts(body.path("bcc"))).containsExactly("hidden@example.com");
        assertThat(body.path("reply_to").asText()).isEqualTo("reply@example.com");
        assertThat(body.path("subject").asText()).isEqualTo("Grüße");
        assertThat(body.path("text").asText()).isEqualTo("plain");
        assertThat(body.path("html").asText()).isEqualTo("<p>rich</p>");
        assertThat(body.path("headers").path("X-Campaign").asText()).isEqualTo("spring");
        assertThat(body.path("metadata").path("order").asText()).isEqualTo("o-1");
        assertThat(body.path("metadata").path("shop").asText()).isEqualTo("berlin");
        assertThat(body.path("tenant").asText()).isEqualTo("acme");
        assertThat(body.path("campaign_id").asText()).isEqualTo("camp-1");
        assertThat(body.path("category").asText()).isEqualTo("receipt");
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"generic", "resend"})
    void everyProfileCarriesTheOneClickUnsubscribeInItsHeaders(String name) throws Exception {
        HttpApiProfile profile = "resend".equals(name) ? HttpApiProfile.RESEND : HttpApiProfile.GENERIC;
        String path = profile.defaultPath();
        stub(path, aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                .withBody("{\"id\":\"x-1\"}"));
        OutboundMail m = mail();
        OutboundMail withUnsubscribe = new OutboundMail(m.messageId(), m.idempotencyKey(), m.from(), m.to(), m.cc(),
                m.bcc(), m.replyTo(), m.subject(), m.text(), m.html(), m.headers(), m.metadata(), m.tenant(),
                m.campaignId(), m.category(),
                new dev.mailroom.contract.Unsubscribe("https://shop.example/u", "u@shop.example"));

        provider(profile).send(withUnsubscribe, checkpoint);

        JsonNode headers = JSON.readTree(onlyRequest(path).getBodyAsString()).path("headers");
        assertThat(headers.path("List-Unsubscribe").asText())
                .isEqualTo("<https://shop.example/u>, <mailto:u@shop.example>");
        assertThat(headers.path("List-Unsubscribe-Post").asText()).isEqualTo("List-Unsubscribe=One-Click");
        assertThat(headers.path("X-Campaign").asText()).isEqualTo("spring");
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"generic", "resend"})
    void everyProfileCarriesTheAttachmentsInItsApisForm(String name) throws Exception {
        HttpApiProfile profile = "resend".equals(name) ? HttpApiProfile.RESEND : HttpApiProfile.GENERIC;
        stub(profile.defaultPath(), aResponse().withStatus(200).withBody("{\"id\":\"x-1\"}"));
        byte[] pdf = {'%', 'P', 'D', 'F', 0, (byte) 0xFF};
        byte[] ics = "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);

        provider(profile).send(mail().withAttachments(List.of(
                new dev.mailroom.provider.MailAttachment("invoice.pdf", "application/pdf", pdf),
                new dev.mailroom.provider.MailAttachment("ticket.ics", "text/calendar; method=REQUEST", ics))), checkpoint);

        JsonNode files = JSON.readTree(onlyRequest(profile.defaultPath()).getBodyAsString()).path("attachments");
        assertThat(files).hasSize(2);
        // Resend: {filename, content (base64), content_type}; generic: the job contract's inline form
        String content = "resend".equals(name) ? "content" : "content_base64";
        assertThat(fieldNames(files.get(0))).containsExactlyInAnyOrder("filename", "content_type", content);
        assertThat(files.get(0).path("filename").asText()).isEqualTo("invoice.pdf");
        assertThat(files.get(0).path("content_type").asText()).isEqualTo("application/pdf");
        assertThat(java.util.Base64.getDecoder().decode(files.get(0).path(content).asText())).isEqualTo(pdf);
        assertThat(files.get(1).path("content_type").asText()).isEqualTo("text/calendar; method=REQUEST");
        assertThat(java.util.Base64.getDecoder().decode(files.get(1).path(content).asText())).isEqualTo(ics);
    }

    @Test
    void resendProfilePostsResendsBodyToEmails() throws Exception {
        stub("/emails", aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                .withBody("{\"id\":\"49a3999c-0ce1-4ea6-ab68-afcd6dc2e794\"}"));

        ProviderResponse r = provider(HttpApiProfile.RESEND).send(mail(), checkpoint);

        assertThat(r.status()).isEqualTo(Status.ACCEPTED);
        assertThat(r.providerMessageId()).isEqualTo("49a3999c-0ce1-4ea6-ab68-afcd6dc2e794");
        LoggedRequest req = onlyRequest("/emails");
        assertThat(req.getHeader("Authorization")).isEqualTo("Bearer test-key");
        assertThat(req.getHeader("Idempotency-Key")).isEqualTo("effect-7");
        JsonNode body = JSON.readTree(req.getBodyAsString());
        assertThat(fieldNames(body)).containsExactlyInAnyOrder(
                "from", "to", "cc", "bcc", "reply_to", "subject", "html", "text", "headers", "tags");
        assertThat(body.path("from").asText()).isEqualTo("Zoë <sender@example.com>");
        assertThat(texts(body.path("to"))).containsExactly("to@example.com", "to2@example.com");
        assertThat(texts(body.path("bcc"))).containsExactly("hidden@example.com");
        assertThat(body.path("reply_to").asText()).isEqualTo("reply@example.com");
        assertThat(body.path("headers").path("X-Campaign").asText()).isEqualTo("spring");
        assertThat(body.path("tags").toString())
                .isEqualTo("[{\"name\":\"order\",\"value\":\"o-1\"},{\"name\":\"shop\",\"value\":\"berlin\"},"
                        + "{\"name\":\"mailroom_message_id\",\"value\":\"msg-7\"}]");
    }

    @Test
    void resendCarriesAMessageIdATagCannotHoldAsHex() throws Exception {
        stub("/emails", aResponse().withStatus(200).withBody("{\"id\":\"x\"}"));
        OutboundMail dotted = new OutboundMail("order.12@acp", "k", "a@example.com", List.of("b@example.com"), null, null, null,
                "s", "t", null, null, null, null, null, null);

        provider(HttpApiProfile.RESEND).send(dotted, checkpoint);

        JsonNode body = JSON.readTree(onlyRequest("/emails").getBodyAsString());
        assertThat(body.path("tags").toString())
                .isEqualTo("[{\"name\":\"mailroom_message_id_hex\",\"value\":\"6f726465722e313240616370\"}]");
    }

    @Test
    void resendLeavesOutWhatTheJobDoesNotHave() throws Exception {
        stub("/emails", aResponse().withStatus(200).withBody("{\"id\":\"x\"}"));
        OutboundMail bare = new OutboundMail("m", "k", "a@example.com", List.of("b@example.com"), null, null, null,
                "s", "t", null, null, null, null, null, null);

        provider(HttpApiProfile.RESEND).send(bare, checkpoint);

        JsonNode body = JSON.readTree(onlyRequest("/emails").getBodyAsString());
        assertThat(fieldNames(body)).containsExactlyInAnyOrder("from", "to", "subject", "text", "tags");
    }

    @Test
    void theIdempotencyKeyFallsBackToTheMessageId() {
        stub("/messages", aResponse().withStatus(202));
        OutboundMail noKey = new OutboundMail("msg-only", null, "a@example.com", List.of("b@example.com"), null, null,
                null, "s", "t", null, null, null, null, null, null);

        provider(HttpApiProfile.GENERIC).send(noKey, checkpoint);

        assertThat(onlyRequest("/messages").getHeader("Idempotency-Key")).isEqualTo("msg-only");
    }

    @Test
    void anIdempotencyKeyWithCrLfIsRefusedBeforeTheCheckpoint() {
        OutboundMail evil = new OutboundMail("m", "k\r\nX-Evil: 1", "a@example.com", List.of("b@example.com"), null,
                null, null, "s", "t", null, null, null, null, null, null);

        assertThatThrownBy(() -> provider(HttpApiProfile.GENERIC).send(evil, checkpoint))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(checkpoint.calls()).isZero();
        assertThat(api.getAllServeEvents()).isEmpty();
    }

    @Test
    void aCheckpointThatThrowsMeansNoRequestIsSent() {
        IllegalStateException refused = new IllegalStateException("attempt could not be recorded");

        assertThatThrownBy(() -> provider(HttpApiProfile.GENERIC).send(mail(), () -> {
            throw refused;
        })).isSameAs(refused);
        assertThat(api.getAllServeEvents()).isEmpty();
    }

    // ------------------------------------------------------------------ answers

    @Test
    void a202WithoutBodyIsAcceptedWithoutAnId() {
        stub("/messages", aResponse().withStatus(202));

        ProviderResponse r = provider(HttpApiProfile.GENERIC).send(mail(), checkpoint);

        assertThat(r.status()).isEqualTo(Status.ACCEPTED);
        assertThat(r.code()).isEqualTo("202");
        assertThat(r.providerMessageId()).isNull();
        assertThat(r.text()).isNull();
    }

    @Test
    void the400ErrorCodeComesFromTheBody() {
        String body = "{\"error\":{\"code\":\"invalid_recipient\",\"message\":\"to[1] is not a mailbox\"}}";
        stub("/messages", aResponse().withStatus(400).withHeader("Content-Type", "application/json").withBody(body));

        ProviderResponse r = provider(HttpApiProfile.GENERIC).send(mail(), checkpoint);

        assertThat(r.status()).isEqualTo(Status.REJECTED);
        assertThat(r.code()).isEqualTo("400");
        assertThat(r.enhancedCode()).isEqualTo("invalid_recipient");
        assertThat(r.text()).isEqualTo(body);
        assertThat(r.retryAfter()).isNull();
        assertThat(r.errorType()).isNull();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "401 | {\"statusCode\":401,\"name\":\"missing_api_key\",\"message\":\"Missing API key\"} | missing_api_key",
        "413 | {\"statusCode\":413,\"name\":\"payload_too_large\",\"message\":\"too big\"}     | payload_too_large",
        "422 | {\"statusCode\":422,\"name\":\"validation_error\",\"message\":\"bad from\"}      | validation_error",
        "500 | {\"statusCode\":500,\"name\":\"internal_server_error\",\"message\":\"oops\"}    | internal_server_error",
        "418 | short and stout                                                              | ",
    })
    void otherStatusesAreRejectedWithStatusCodeAndBody(int status, String body, String errorCode) {
        stub("/emails", aResponse().withStatus(status).withBody(body));

        ProviderResponse r = provider(HttpApiProfile.RESEND).send(mail(), checkpoint);

        assertThat(r.status()).isEqualTo(Status.REJECTED);
        assertThat(r.code()).isEqualTo(String.valueOf(status));
        assertThat(r.enhancedCode()).isEqualTo(errorCode);
        assertThat(r.text()).isEqualTo(body);
        assertThat(r.providerMessageId()).isNull();
    }

    @Test
    void a429RetryAfterInSeconds() {
        stub("/messages", aResponse().withStatus(429).withHeader("Retry-After", "30")
                .withBody("{\"error\":{\"code\":\"rate_limited\"}}"));

        ProviderResponse r = provider(HttpApiProfile.GENERIC).send(mail(), checkpoint);

        assertThat(r.status()).isEqualTo(Status.REJECTED);
        assertThat(r.code()).isEqualTo("429");
        assertThat(r.enhancedCode()).isEqualTo("rate_limited");
        assertThat(r.retryAfter()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void a429RetryAfterAsAnHttpDateIsMeasuredFromTheClock() {
        stub("/messages", aResponse().withStatus(429).withHeader("Retry-After", "Sat, 01 Mar 2025 12:02:30 GMT"));

        ProviderResponse r = provider(HttpApiProfile.GENERIC).send(mail(), checkpoint);

        assertThat(r.retryAfter()).isEqualTo(Duration.ofSeconds(150));
    }

    @Test
    void aRetryAfterDateInThePastIsZero() {
        stub("/messages", aResponse().withStatus(503).withHeader("Retry-After", "Sat, 01 Mar 2025 11:59:00 GMT"));

        ProviderResponse r = provider(HttpApiProfile.GENERIC).send(mail(), checkpoint);

        assertThat(r.code()).isEqualTo("503");
        assertThat(r.retryAfter()).isEqualTo(Duration.ZERO);
    }

    @Test
    void retryAfterParsing() {
        Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
        assertThat(HttpApiProvider.retryAfter(" 120 ", clock)).isEqualTo(Duration.ofSeconds(120));
        assertThat(HttpApiProvider.retryAfter("0", clock)).isEqualTo(Duration.ZERO);
        assertThat(HttpApiProvider.retryAfter("-5", clock)).isEqualTo(Duration.ZERO);
        assertThat(HttpApiProvider.retryAfter("Sat, 1 Mar 2025 13:00:00 GMT", clock)).isEqualTo(Duration.ofHours(1));
        assertThat(HttpApiProvider.retryAfter("soon", clock)).isNull();
    }

    @Test
    void theBodyTextIsBoundedTo2000Chars() {
        String body = "<html>" + "x".repeat(5000) + "</html>";
        stub("/messages", aResponse().withStatus(500).withHeader("Content-Type", "text/html").withBody(body));

        ProviderResponse r = provider(HttpApiProfile.GENERIC).send(mail(), checkpoint);

        assertThat(r.code()).isEqualTo("500");
        assertThat(r.enhancedCode()).isNull();
        assertThat(r.text()).hasSize(ProviderResponse.MAX_TEXT).isEqualTo(body.substring(0, 2000));
    }

    // ------------------------------------------------------------------ no answer

    @Test
    void aResponseSlowerThanTheRequestTimeoutIsAmbiguous() {
        stub("/messages", aResponse().withStatus(200).withBody("{\"id\":\"late\"}").withFixedDelay(1500));
        HttpApiProvider impatient = new HttpApiProvider(HttpApiSettings.forProfile(HttpApiProfile.GENERIC, baseUrl(),
                "test-key", Duration.ofSeconds(1), Duration.ofMillis(300)), Clock.fixed(NOW, ZoneOffset.UTC));

        ProviderResponse r = impatient.send(mail(), checkpoint);

        assertThat(r.status()).isEqualTo(Status.AMBIGUOUS);
        assertThat(r.errorType()).isEqualTo("java.net.http.HttpTimeoutException");
        assertThat(r.code()).isNull();
        assertThat(checkpoint.calls()).isEqualTo(1);
        assertThat(api.findAll(postRequestedFor(urlEqualTo("/messages")))).hasSize(1); // the API did get it
    }

    /**
     * The checkpoint runs before {@code client.send}, and the client connects inside that call: so a
     * refused connect has passed the checkpoint, yet nothing was written, and it is NOT_CONNECTED.
     */
    @Test
    void aRefusedConnectionIsNotConnectedAfterTheCheckpoint() throws IOException {
        URI nowhere = URI.create("http://127.0.0.1:" + Ports.unusedLoopbackPort());
        HttpApiProvider p = new HttpApiProvider(HttpApiSettings.forProfile(HttpApiProfile.GENERIC, nowhere,
                "test-key", Duration.ofSeconds(1), Duration.ofSeconds(2)));

        ProviderResponse r = p.send(mail(), checkpoint);

        assertThat(r.status()).isEqualTo(Status.NOT_CONNECTED);
        assertThat(r.errorType()).isEqualTo("java.net.ConnectException");
        assertThat(r.code()).isNull();
        assertThat(checkpoint.calls()).isEqualTo(1);
    }

    // ------------------------------------------------------------------ configuration

    @Test
    void profilesAreSelectedByName() {
        assertThat(HttpApiProfile.named("resend")).isSameAs(HttpApiProfile.RESEND);
        assertThat(HttpApiProfile.named(" Generic ")).isSameAs(HttpApiProfile.GENERIC);
        assertThatThrownBy(() -> HttpApiProfile.named("sendgrid")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("generic").hasMessageContaining("resend");
    }

    @Test
    void settingsJoinBaseAndPathAndHideTheCredential() {
        HttpApiSettings s = HttpApiSettings.forProfile("resend", URI.create("https://api.example.com/v1/"),
                "re_secret", Duration.ofSeconds(1), Duration.ofSeconds(5));

        assertThat(s.endpoint()).isEqualTo(URI.create("https://api.example.com/v1/emails"));
        assertThat(s.authValue()).isEqualTo("Bearer re_secret");
        assertThat(s.idempotencyHeaderName()).isEqualTo("Idempotency-Key");
        assertThat(s.toString()).doesNotContain("re_secret");
        assertThat(new HttpApiProvider(s).dedupesByIdempotencyKey()).isTrue();
        assertThat(new HttpApiProvider(s).name()).isEqualTo("http");
    }

    // ------------------------------------------------------------------ helpers

    private static URI baseUrl() {
        return URI.create("http://127.0.0.1:" + api.port());
    }

    private static HttpApiProvider provider(HttpApiProfile profile) {
        return new HttpApiProvider(HttpApiSettings.forProfile(profile, baseUrl(), "test-key",
                Duration.ofSeconds(1), Duration.ofSeconds(5)), Clock.fixed(NOW, ZoneOffset.UTC));
    }

    private static void stub(String path, ResponseDefinitionBuilder response) {
        api.stubFor(post(urlEqualTo(path)).willReturn(response));
    }

    private static LoggedRequest onlyRequest(String path) {
        List<LoggedRequest> requests = api.findAll(postRequestedFor(urlEqualTo(path)));
        assertThat(requests).hasSize(1);
        return requests.get(0);
    }

    private static OutboundMail mail() {
        return new OutboundMail("msg-7", "effect-7", "Zoë <sender@example.com>",
                List.of("to@example.com", "to2@example.com"), List.of("cc@example.com"), List.of("hidden@example.com"),
                "reply@example.com", "Grüße", "plain", "<p>rich</p>", Map.of("X-Campaign", "spring"),
                Map.of("shop", "berlin", "order", "o-1"), "acme", "camp-1", "receipt");
    }

    private static List<String> texts(JsonNode array) {
        assertThat(array.isArray()).as("is an array: %s", array).isTrue();
        return java.util.stream.StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText).toList();
    }

    private static List<String> fieldNames(JsonNode object) {
        List<String> names = new java.util.ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }


}
