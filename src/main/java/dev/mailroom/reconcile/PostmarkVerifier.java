package dev.mailroom.reconcile;

import static dev.mailroom.reconcile.Verdict.Reason.bad_signature;
import static dev.mailroom.reconcile.Verdict.Reason.malformed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;

/**
 * Postmark signs nothing: the webhook URL carries HTTP Basic credentials, and those are what we check.
 * There is no signed timestamp, so no staleness test; a repeated record is a no-op through its
 * {@code RecordType:ID} dedupe key in {@code provider_event}.
 */
public final class PostmarkVerifier implements WebhookVerifier {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String expectedAuthorization;

    public PostmarkVerifier(String user, String password) {
        this.expectedAuthorization = "Basic " + Base64.getEncoder()
                .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public Verdict verify(WebhookRequest request, Instant now) {
        Optional<String> authorization = request.header("Authorization");
        if (authorization.isEmpty() || !Signatures.same(authorization.get(), expectedAuthorization)) {
            return Verdict.refused(bad_signature, "Basic credentials do not match");
        }
        try {
            JsonNode record = JSON.readTree(request.body());
            String type = record.path("RecordType").asText("");
            String id = record.path("ID").asText(record.path("MessageID").asText(""));
            if (type.isEmpty() || id.isEmpty()) {
                return Verdict.refused(malformed, "RecordType and ID are required");
            }
            return new Verdict.Accepted(type + ":" + id);
        } catch (IOException e) {
            return Verdict.refused(malformed, "body is not JSON");
        }
    }
}
