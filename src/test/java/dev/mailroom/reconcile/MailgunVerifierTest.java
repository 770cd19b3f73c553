package dev.mailroom.reconcile;

import static dev.mailroom.reconcile.SvixVerifierTest.reason;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Mailgun: hex HMAC-SHA256(signing key, timestamp + token), signed here the way Mailgun's docs show. */
class MailgunVerifierTest {

    static final String KEY = "key-mailgun-signing-0123";
    static final Instant NOW = Instant.parse("2026-12-01T01:00:00Z");

    static WebhookRequest signed(String key, Instant at, String token) {
        String timestamp = Long.toString(at.getEpochSecond());
        String hex = Signatures.hmacSha256Hex(key, timestamp + token);
        return body(timestamp, token, hex);
    }

    static WebhookRequest body(String timestamp, String token, String hex) {
        String json = "{\"signature\":{\"timestamp\":\"" + timestamp + "\",\"token\":\"" + token + "\",\"signature\":\"" + hex
                + "\"},\"event-data\":{\"event\":\"delivered\",\"recipient\":\"alice@example.com\"}}";
        return new WebhookRequest(Map.of("Content-Type", "application/json"), json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void a_signed_call_is_accepted_with_its_token_as_dedupe_key() {
        assertThat(new MailgunVerifier(KEY).verify(signed(KEY, NOW, "tok-1"), NOW)).isEqualTo(new Verdict.Accepted("tok-1"));
    }

    @Test
    void a_changed_byte_in_the_signed_fields_is_refused() {
        String timestamp = Long.toString(NOW.getEpochSecond());
        String hex = Signatures.hmacSha256Hex(KEY, timestamp + "tok-1");
        assertThat(reason(new MailgunVerifier(KEY).verify(body(timestamp, "tok-2", hex), NOW))).isEqualTo(Verdict.Reason.bad_signature);
        char flipped = hex.charAt(0) == 'a' ? 'b' : 'a';
        assertThat(reason(new MailgunVerifier(KEY).verify(body(timestamp, "tok-1", flipped + hex.substring(1)), NOW)))
                .isEqualTo(Verdict.Reason.bad_signature);
    }

    @Test
    void a_call_signed_with_another_key_is_refused() {
        assertThat(reason(new MailgunVerifier(KEY).verify(signed("key-other", NOW, "tok-1"), NOW))).isEqualTo(Verdict.Reason.bad_signature);
    }

    @Test
    void a_stale_timestamp_is_refused() {
        assertThat(reason(new MailgunVerifier(KEY).verify(signed(KEY, NOW.minusSeconds(600), "tok-1"), NOW))).isEqualTo(Verdict.Reason.stale);
    }

    @Test
    void a_remembered_token_is_refused_as_replayed() {
        MailgunVerifier verifier = new MailgunVerifier(KEY);
        assertThat(verifier.verify(signed(KEY, NOW, "tok-1"), NOW).accepted()).isTrue();
        assertThat(reason(verifier.verify(signed(KEY, NOW, "tok-1"), NOW.plusSeconds(1)))).isEqualTo(Verdict.Reason.replayed);
    }

    @Test
    void a_body_that_is_not_json_is_malformed() {
        assertThat(reason(new MailgunVerifier(KEY).verify(new WebhookRequest(Map.of(), "x=1".getBytes(StandardCharsets.UTF_8)), NOW)))
                .isEqualTo(Verdict.Reason.malformed);
    }
}
