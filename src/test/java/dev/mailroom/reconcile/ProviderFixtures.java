package dev.mailroom.reconcile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The webhook fixtures of {@code src/test/resources/webhooks/<profile>.json}, shaped after each provider's
 * public documentation: a body (for SES the SES event, wrapped here into an SNS Notification as SNS
 * delivers it) and the events it must normalise to.
 */
final class ProviderFixtures {

    static final List<String> PROFILES = List.of("ses", "sendgrid", "mailgun", "postmark", "resend");
    private static final ObjectMapper JSON = new ObjectMapper();

    record Fixture(String profile, String name, byte[] body, JsonNode expect) {
        @Override
        public String toString() {
            return profile + ": " + name;
        }
    }

    private ProviderFixtures() {
    }

    static List<Fixture> all() {
        List<Fixture> out = new ArrayList<>();
        for (String profile : PROFILES) {
            out.addAll(of(profile));
        }
        return out;
    }

    static List<Fixture> of(String profile) {
        try (InputStream in = ProviderFixtures.class.getResourceAsStream("/webhooks/" + profile + ".json")) {
            List<Fixture> out = new ArrayList<>();
            for (JsonNode f : JSON.readTree(in)) {
                byte[] body = f.has("message") ? sns(JSON.writeValueAsString(f.get("message")))
                        : JSON.writeValueAsBytes(f.get("body"));
                out.add(new Fixture(profile, f.path("name").asText(), body, f.get("expect")));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An SNS Notification carrying {@code message}, as SNS posts it to an HTTPS subscription. */
    static byte[] sns(String message) throws IOException {
        return JSON.writeValueAsBytes(JSON.createObjectNode().put("Type", "Notification")
                .put("MessageId", "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324")
                .put("TopicArn", "arn:aws:sns:us-west-2:123456789012:MyTopic").put("Message", message)
                .put("Timestamp", "2012-05-02T00:54:06.655Z").put("SignatureVersion", "1")
                .put("SigningCertURL", "https://sns.us-west-2.amazonaws.com/SimpleNotificationService-f3ecfb7224c7233fe7bb5f59f96de52f.pem"));
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
