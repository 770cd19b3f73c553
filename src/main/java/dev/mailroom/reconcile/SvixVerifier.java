package dev.mailroom.reconcile;

import static dev.mailroom.reconcile.Verdict.Reason.bad_signature;
import static dev.mailroom.reconcile.Verdict.Reason.malformed;
import static dev.mailroom.reconcile.Verdict.Reason.replayed;
import static dev.mailroom.reconcile.Verdict.Reason.stale;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Svix webhook signatures (Resend, and Mailroom's own {@code generic} profile): HMAC-SHA256 over
 * {@code svix-id.svix-timestamp.body} with the base64 secret after {@code whsec_}; {@code svix-signature}
 * is a space-separated list of {@code v1,<base64>} (several during a secret rotation); ±5 minutes.
 */
public final class SvixVerifier implements WebhookVerifier {

    public static final Duration TOLERANCE = Duration.ofMinutes(5);

    private final byte[] key;
    private final ReplayMemory seen = new ReplayMemory(TOLERANCE.multipliedBy(2));

    public SvixVerifier(String secret) {
        String encoded = secret.startsWith("whsec_") ? secret.substring("whsec_".length()) : secret;
        this.key = Base64.getDecoder().decode(encoded);
    }

    @Override
    public Verdict verify(WebhookRequest request, Instant now) {
        Optional<String> id = request.header("svix-id");
        Optional<String> timestamp = request.header("svix-timestamp");
        Optional<String> signatures = request.header("svix-signature");
        if (id.isEmpty() || timestamp.isEmpty() || signatures.isEmpty()) {
            return Verdict.refused(malformed, "svix-id, svix-timestamp and svix-signature are required");
        }
        OptionalLong seconds = Signatures.epochSeconds(timestamp.get());
        if (seconds.isEmpty()) {
            return Verdict.refused(malformed, "svix-timestamp is not epoch seconds");
        }
        if (!Signatures.fresh(Instant.ofEpochSecond(seconds.getAsLong()), now, TOLERANCE)) {
            return Verdict.refused(stale, "svix-timestamp outside ±" + TOLERANCE.toMinutes() + " minutes");
        }
        byte[] signed = Signatures.concat((id.get() + "." + timestamp.get() + ".").getBytes(StandardCharsets.UTF_8), request.body());
        byte[] expected = Signatures.hmacSha256(key, signed);
        if (!anyMatches(signatures.get(), expected)) {
            return Verdict.refused(bad_signature, "no v1 signature matches");
        }
        if (!seen.firstSighting(id.get(), now)) {
            return Verdict.refused(replayed, "svix-id already accepted");
        }
        return new Verdict.Accepted(id.get());
    }

    private static boolean anyMatches(String header, byte[] expected) {
        for (String entry : header.split(" ")) {
            int comma = entry.indexOf(',');
            if (comma > 0 && entry.substring(0, comma).equals("v1")) {
                try {
                    if (Signatures.same(Base64.getDecoder().decode(entry.substring(comma + 1)), expected)) {
                        return true;
                    }
                } catch (IllegalArgumentException notBase64) {
                    // one unreadable entry does not spoil the others (rotation lists several)
                }
            }
        }
        return false;
    }
}
