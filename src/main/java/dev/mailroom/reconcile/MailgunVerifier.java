package dev.mailroom.reconcile;

import static dev.mailroom.reconcile.Verdict.Reason.bad_signature;
import static dev.mailroom.reconcile.Verdict.Reason.malformed;
import static dev.mailroom.reconcile.Verdict.Reason.replayed;
import static dev.mailroom.reconcile.Verdict.Reason.stale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;

/**
 * Mailgun webhooks: the JSON body carries {@code signature: {timestamp, token, signature}}, the hex
 * HMAC-SHA256 of {@code timestamp + token} with the webhook signing key. Mailgun asks receivers to
 * remember tokens to refuse replays, and to refuse old timestamps.
 */
public final class MailgunVerifier implements WebhookVerifier {

    public static final Duration TOLERANCE = Duration.ofMinutes(5);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String signingKey;
    private final ReplayMemory tokens = new ReplayMemory(TOLERANCE.multipliedBy(2));

    public MailgunVerifier(String signingKey) {
        this.signingKey = signingKey;
    }

    @Override
    public Verdict verify(WebhookRequest request, Instant now) {
        JsonNode signature;
        try {
            signature = JSON.readTree(request.body()).path("signature");
        } catch (IOException e) {
            return Verdict.refused(malformed, "body is not JSON");
        }
        String timestamp = signature.path("timestamp").asText("");
        String token = signature.path("token").asText("");
        String hex = signature.path("signature").asText("");
        OptionalLong seconds = Signatures.epochSeconds(timestamp);
        if (seconds.isEmpty() || token.isEmpty() || hex.isEmpty()) {
            return Verdict.refused(malformed, "signature.timestamp, .token and .signature are required");
        }
        if (!Signatures.fresh(Instant.ofEpochSecond(seconds.getAsLong()), now, TOLERANCE)) {
            return Verdict.refused(stale, "timestamp outside ±" + TOLERANCE.toMinutes() + " minutes");
        }
        if (!Signatures.same(Signatures.hmacSha256Hex(signingKey, timestamp + token), hex.toLowerCase())) {
            return Verdict.refused(bad_signature, "HMAC does not match");
        }
        if (!tokens.firstSighting(token, now)) {
            return Verdict.refused(replayed, "token already accepted");
        }
        return new Verdict.Accepted(token);
    }
}
