package dev.mailroom.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Provider webhook calls as a provider makes them: Svix-signed calls to the {@code generic} profile of an IT server.
 * The methods without an {@link ApiClient} are for the WildFly executions' {@link ItEnvironment}.
 */
public final class Webhooks {

    private Webhooks() {
    }

    static final HttpClient HTTP = HttpClient.newHttpClient();

    public static HttpResponse<String> post(String profile, String id, Instant at, String body, String secret) throws Exception {
        return post(ItEnvironment.get().api(), profile, id, at, body, secret);
    }

    public static HttpResponse<String> post(ApiClient api, String profile, String id, Instant at, String body,
                                            String secret) throws Exception {
        String timestamp = Long.toString(at.getEpochSecond());
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(Base64.getDecoder().decode(secret.substring("whsec_".length())), "HmacSHA256"));
        String signature = Base64.getEncoder().encodeToString(mac.doFinal((id + "." + timestamp + "." + body).getBytes(StandardCharsets.UTF_8)));
        HttpRequest request = HttpRequest.newBuilder(api.uri("/api/v1/webhooks/" + profile))
                .header("Content-Type", "application/json").header("svix-id", id).header("svix-timestamp", timestamp)
                .header("svix-signature", "v1," + signature)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    public static Instant serverNow() {
        return serverNow(ItEnvironment.get().api());
    }

    /**
     * The server's clock, which signatures are judged by: an IT that ran before (TimeTravelRetentionIT) may have moved
     * it forward, and a webhook signed by the test JVM's clock would then be stale. The production WAR (Open Liberty's)
     * has no clock control (404): its clock is the machine's.
     */
    public static Instant serverNow(ApiClient api) {
        if (api.get("/api/v1/testing/clock").statusCode() == 404) {
            return Instant.now();
        }
        return Instant.parse(api.getJson("/api/v1/testing/clock").path("now").asText());
    }

    public static String event(String type, String messageId, String description, String recipient) {
        return "{\"event_type\":\"" + type + "\",\"message_id\":\"" + messageId
                + "\",\"recipient\":\"" + recipient + "\",\"description\":\"" + description + "\"}";
    }

    public static void deliver(String type, String messageId, String description) throws Exception {
        deliver(type, messageId, description, "Alice@Example.com");
    }

    public static void deliver(String type, String messageId, String description, String recipient) throws Exception {
        deliver(ItEnvironment.get().api(), type, messageId, description, recipient);
    }

    /** Posts a signed generic event about {@code recipient}; a bounce or complaint puts it on the suppression list. */
    public static void deliver(ApiClient api, String type, String messageId, String description, String recipient)
            throws Exception {
        HttpResponse<String> r = post(api, "generic", "msg_" + UUID.randomUUID(), serverNow(api),
                event(type, messageId, description, recipient), ItEnvironment.WEBHOOK_SECRET);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
    }

    public static JsonNode awaitState(String id, String state) {
        return awaitState(ItEnvironment.get().api(), id, state);
    }

    public static JsonNode awaitState(ApiClient api, String id, String state) {
        return api.awaitJson("/api/v1/jobs/" + id, j -> state.equals(j.path("state").asText()), Duration.ofSeconds(60));
    }

    /**
     * A job that ended {@code unknown} (the relay took the mail but answered after the read timeout) is settled by the
     * provider's signed delivered event, matched by its message_id: delivered, with the settling on its timeline; an
     * opened event before it is no delivery news, and an operator's "send again" is refused once it is settled.
     */
    public static void anUnknownSendIsSettledByItsSignedDeliveredEvent(Mailroom m) throws Exception {
        ApiClient api = m.api();
        String id = Jobs.runPrefix("settle") + "1";
        try {
            m.smtp().setDelayBeforeReply(ItEnvironment.SMTP_READ_TIMEOUT.plusMillis(1500));
            m.jms().sendText("mail.send", Jobs.job(id));
            awaitState(api, id, "unknown");
        } finally {
            m.smtp().setDelayBeforeReply(Duration.ZERO);
        }
        deliver(api, "opened", id, "pixel", "Alice@Example.com");
        api.awaitJson("/api/v1/jobs/" + id, j -> j.path("timeline").toString().contains("delivery_opened"),
                Duration.ofSeconds(60));
        assertThat(api.getJson("/api/v1/jobs/" + id).path("state").asText()).isEqualTo("unknown");

        deliver(api, "delivered", id, "250 2.0.0 OK settled by the relay's log", "Alice@Example.com");
        JsonNode job = awaitState(api, id, "delivered");
        assertThat(Jobs.types(job)).contains("ambiguous_not_resent", "delivery_delivered", "delivery_state");
        assertThat(job.path("timeline").toString()).contains("unknown -> delivered").contains("settles the unknown send")
                .contains("250 2.0.0 OK settled by the relay's log");
        assertThat(api.post("/api/v1/jobs/" + id + "/send-again", "{\"reason\": \"too late\"}").statusCode())
                .isEqualTo(409);
    }
}
