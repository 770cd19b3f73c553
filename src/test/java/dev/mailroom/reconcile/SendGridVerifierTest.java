package dev.mailroom.reconcile;

import static dev.mailroom.reconcile.SvixVerifierTest.reason;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** SendGrid: an EC P-256 key pair made here; signed as SendGrid does (SHA256withECDSA over timestamp + body). */
class SendGridVerifierTest {

    static final Instant NOW = Instant.parse("2026-12-01T01:00:00Z");
    static final String BODY = "[{\"email\":\"alice@example.com\",\"event\":\"delivered\",\"sg_event_id\":\"e1\",\"sg_message_id\":\"m1\"}]";
    static KeyPair keys;
    static KeyPair otherKeys;

    @BeforeAll
    static void keys() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        keys = generator.generateKeyPair();
        otherKeys = generator.generateKeyPair();
    }

    static WebhookRequest signed(PrivateKey key, Instant at, String body) throws Exception {
        String timestamp = Long.toString(at.getEpochSecond());
        Signature ecdsa = Signature.getInstance("SHA256withECDSA");
        ecdsa.initSign(key);
        ecdsa.update((timestamp + body).getBytes(StandardCharsets.UTF_8));
        return new WebhookRequest(Map.of(SendGridVerifier.SIGNATURE, Base64.getEncoder().encodeToString(ecdsa.sign()),
                SendGridVerifier.TIMESTAMP, timestamp), body.getBytes(StandardCharsets.UTF_8));
    }

    SendGridVerifier verifier() {
        return SendGridVerifier.fromBase64(Base64.getEncoder().encodeToString(keys.getPublic().getEncoded()));
    }

    @Test
    void a_call_signed_with_the_private_key_is_accepted() throws Exception {
        assertThat(verifier().verify(signed(keys.getPrivate(), NOW, BODY), NOW).accepted()).isTrue();
    }

    @Test
    void a_changed_byte_in_the_body_is_refused() throws Exception {
        WebhookRequest good = signed(keys.getPrivate(), NOW, BODY);
        byte[] body = good.body();
        body[body.length - 3] ^= 1;
        assertThat(reason(verifier().verify(new WebhookRequest(good.headers(), body), NOW))).isEqualTo(Verdict.Reason.bad_signature);
    }

    @Test
    void a_changed_timestamp_is_refused_because_it_is_signed() throws Exception {
        WebhookRequest good = signed(keys.getPrivate(), NOW, BODY);
        WebhookRequest moved = new WebhookRequest(Map.of(SendGridVerifier.SIGNATURE, good.header(SendGridVerifier.SIGNATURE).orElseThrow(),
                SendGridVerifier.TIMESTAMP, Long.toString(NOW.getEpochSecond() + 1)), good.body());
        assertThat(reason(verifier().verify(moved, NOW))).isEqualTo(Verdict.Reason.bad_signature);
    }

    @Test
    void a_call_signed_with_another_key_is_refused() throws Exception {
        assertThat(reason(verifier().verify(signed(otherKeys.getPrivate(), NOW, BODY), NOW))).isEqualTo(Verdict.Reason.bad_signature);
    }

    @Test
    void a_stale_timestamp_is_refused() throws Exception {
        assertThat(reason(verifier().verify(signed(keys.getPrivate(), NOW.minusSeconds(3600), BODY), NOW))).isEqualTo(Verdict.Reason.stale);
    }

    @Test
    void the_same_signed_call_twice_is_refused_as_replayed() throws Exception {
        SendGridVerifier verifier = verifier();
        WebhookRequest call = signed(keys.getPrivate(), NOW, BODY);
        assertThat(verifier.verify(call, NOW).accepted()).isTrue();
        assertThat(reason(verifier.verify(call, NOW.plusSeconds(5)))).isEqualTo(Verdict.Reason.replayed);
    }

    @Test
    void a_signature_that_is_not_base64_is_refused_not_thrown() {
        WebhookRequest garbage = new WebhookRequest(Map.of(SendGridVerifier.SIGNATURE, "%%%",
                SendGridVerifier.TIMESTAMP, Long.toString(NOW.getEpochSecond())), BODY.getBytes(StandardCharsets.UTF_8));
        assertThat(reason(verifier().verify(garbage, NOW))).isEqualTo(Verdict.Reason.bad_signature);
    }
}
