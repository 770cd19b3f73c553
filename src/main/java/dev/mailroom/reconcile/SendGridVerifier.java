package dev.mailroom.reconcile;

import static dev.mailroom.reconcile.Verdict.Reason.bad_signature;
import static dev.mailroom.reconcile.Verdict.Reason.malformed;
import static dev.mailroom.reconcile.Verdict.Reason.replayed;
import static dev.mailroom.reconcile.Verdict.Reason.stale;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * SendGrid Event Webhook: ECDSA P-256 ({@code SHA256withECDSA}, DER signature in base64) over the
 * timestamp header followed by the raw body; the verification key is the base64 X.509 public key SendGrid
 * shows. SendGrid signs no delivery id, so the signature itself is the replay key (each call is signed anew).
 */
public final class SendGridVerifier implements WebhookVerifier {

    public static final String SIGNATURE = "X-Twilio-Email-Event-Webhook-Signature";
    public static final String TIMESTAMP = "X-Twilio-Email-Event-Webhook-Timestamp";
    public static final Duration TOLERANCE = Duration.ofMinutes(5);

    private final PublicKey key;
    private final ReplayMemory seen = new ReplayMemory(TOLERANCE.multipliedBy(2));

    public SendGridVerifier(PublicKey key) {
        this.key = key;
    }

    /** From the base64 X.509 (SubjectPublicKeyInfo) text SendGrid's settings page shows. */
    public static SendGridVerifier fromBase64(String publicKey) {
        try {
            return new SendGridVerifier(KeyFactory.getInstance("EC")
                    .generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(publicKey.trim()))));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalArgumentException("not a base64 X.509 EC public key", e);
        }
    }

    @Override
    public Verdict verify(WebhookRequest request, Instant now) {
        Optional<String> signature = request.header(SIGNATURE);
        Optional<String> timestamp = request.header(TIMESTAMP);
        if (signature.isEmpty() || timestamp.isEmpty()) {
            return Verdict.refused(malformed, SIGNATURE + " and " + TIMESTAMP + " are required");
        }
        OptionalLong seconds = Signatures.epochSeconds(timestamp.get());
        if (seconds.isEmpty()) {
            return Verdict.refused(malformed, TIMESTAMP + " is not epoch seconds");
        }
        if (!Signatures.fresh(Instant.ofEpochSecond(seconds.getAsLong()), now, TOLERANCE)) {
            return Verdict.refused(stale, "timestamp outside ±" + TOLERANCE.toMinutes() + " minutes");
        }
        if (!valid(timestamp.get(), request.body(), signature.get())) {
            return Verdict.refused(bad_signature, "ECDSA signature does not verify");
        }
        if (!seen.firstSighting(signature.get(), now)) {
            return Verdict.refused(replayed, "signature already accepted");
        }
        return new Verdict.Accepted("sendgrid:" + timestamp.get() + ":" + signature.get());
    }

    private boolean valid(String timestamp, byte[] body, String signatureBase64) {
        try {
            Signature ecdsa = Signature.getInstance("SHA256withECDSA");
            ecdsa.initVerify(key);
            ecdsa.update(timestamp.getBytes(StandardCharsets.UTF_8));
            ecdsa.update(body);
            return ecdsa.verify(Base64.getDecoder().decode(signatureBase64));
        } catch (GeneralSecurityException | IllegalArgumentException unreadable) {
            return false;
        }
    }
}
