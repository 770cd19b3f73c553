package dev.mailroom.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** Provider webhook calls as a provider makes them: Svix-signed calls to the {@code generic} profile of the IT server. */
public final class Webhooks {

    private Webhooks() {
    }

    static final HttpClient HTTP = HttpClient.newHttpClient();

    public static HttpResponse<String> post(String profile, String id, Instant at, String body, String secret) throws Exception {
        String timestamp = Long.toString(at.getEpochSecond());
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(Base64.getDecoder().decode(secret.substring("whsec_".length())), "HmacSHA256"));
        String signature = Base64.getEncoder().encodeToString(mac.doFinal((id + "." + timestamp + "." + body).getBytes(StandardCharsets.UTF_8)));
        HttpRequest request = HttpRequest.newBuilder(ItEnvironment.get().api().uri("/api/v1/webhooks/" + profile))
                .header("Content-Type", "application/json").header("svix-id", id).header("svix-timestamp", timestamp)
                .header("svix-signature", "v1," + signature)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /**
     * The server's clock, which signatures are judged by: an IT that ran before (TimeTravelRetentionIT) may have moved
     * it forward, and a webhook signed by the test JVM's clock would then be stale.
     */
    public static Instant serverNow() {
        return Instant.parse(ItEnvironment.get().api().getJson("/api/v1/testing/clock").path("now").asText());
    }

    public static String event(String type, String messageId, String description, String recipient) {
        return "{\"event_type\":\"" + type + "\",\"message_id\":\"" + messageId
                + "\",\"recipient\":\"" + recipient + "\",\"description\":\"" + description + "\"}";
    }

    public static void deliver(String type, String messageId, String description) throws Exception {
        deliver(type, messageId, description, "Alice@Example.com");
    }

    /** Posts a signed generic event about {@code recipient}; a bounce or complaint puts it on the suppression list. */
    public static void deliver(String type, String messageId, String description, String recipient) throws Exception {
        HttpResponse<String> r = post("generic", "msg_" + UUID.randomUUID(), serverNow(),
                event(type, messageId, description, recipient), ItEnvironment.WEBHOOK_SECRET);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
    }

    public static JsonNode awaitState(String id, String state) {
        return ItEnvironment.get().api().awaitJson("/api/v1/jobs/" + id,
                j -> state.equals(j.path("state").asText()), java.time.Duration.ofSeconds(60));
    }

}
