package dev.mailroom.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Resend and the generic profile: signed here exactly as Svix signs (id.timestamp.body, HMAC-SHA256, v1,<b64>). */
class SvixVerifierTest {

    static final String SECRET = "whsec_" + Base64.getEncoder().encodeToString("test-secret-0123456789abcdef".getBytes(StandardCharsets.UTF_8));
    static final String OTHER_SECRET = "whsec_" + Base64.getEncoder().encodeToString("another-secret-zyxwvutsrq".getBytes(StandardCharsets.UTF_8));
    static final Instant NOW = Instant.parse("2026-12-01T01:00:00Z");
    static final String BODY = "{\"type\":\"email.delivered\",\"data\":{\"email_id\":\"re_1\",\"to\":[\"alice@example.com\"]}}";

    static WebhookRequest signed(String secret, String id, Instant at, String body) {
        String timestamp = Long.toString(at.getEpochSecond());
        byte[] key = Base64.getDecoder().decode(secret.substring("whsec_".length()));
        String signature = Base64.getEncoder().encodeToString(
                Signatures.hmacSha256(key, (id + "." + timestamp + "." + body).getBytes(StandardCharsets.UTF_8)));
        return new WebhookRequest(Map.of("Svix-Id", id, "Svix-Timestamp", timestamp, "Svix-Signature", "v1," + signature),
                body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void a_call_signed_with_the_secret_is_accepted_with_its_svix_id_as_dedupe_key() {
        assertThat(new SvixVerifier(SECRET).verify(signed(SECRET, "msg_1", NOW, BODY), NOW))
                .isEqualTo(new Verdict.Accepted("msg_1"));
    }

    @Test
    void a_rotation_list_passes_when_any_v1_entry_matches() {
        WebhookRequest good = signed(SECRET, "msg_1", NOW, BODY);
        String header = "v1,AAAA v1a,zzz " + good.header("svix-signature").orElseThrow();
        WebhookRequest listed = new WebhookRequest(Map.of("svix-id", "msg_1", "svix-timestamp", good.header("svix-timestamp").orElseThrow(),
                "svix-signature", header), good.body());
        assertThat(new SvixVerifier(SECRET).verify(listed, NOW).accepted()).isTrue();
    }

    @Test
    void a_changed_byte_in_the_body_is_refused() {
        WebhookRequest good = signed(SECRET, "msg_1", NOW, BODY);
        byte[] body = good.body();
        body[10] ^= 1;
        assertThat(new SvixVerifier(SECRET).verify(new WebhookRequest(good.headers(), body), NOW))
                .isEqualTo(new Verdict.Refused(Verdict.Reason.bad_signature, "no v1 signature matches"));
    }

    @Test
    void a_changed_id_is_refused_because_the_id_is_signed() {
        WebhookRequest good = signed(SECRET, "msg_1", NOW, BODY);
        WebhookRequest moved = new WebhookRequest(Map.of("svix-id", "msg_2", "svix-timestamp", good.header("svix-timestamp").orElseThrow(),
                "svix-signature", good.header("svix-signature").orElseThrow()), good.body());
        assertThat(reason(new SvixVerifier(SECRET).verify(moved, NOW))).isEqualTo(Verdict.Reason.bad_signature);
    }

    @Test
    void a_call_signed_with_another_secret_is_refused() {
        assertThat(reason(new SvixVerifier(SECRET).verify(signed(OTHER_SECRET, "msg_1", NOW, BODY), NOW)))
                .isEqualTo(Verdict.Reason.bad_signature);
    }

    @Test
    void a_timestamp_older_or_newer_than_five_minutes_is_refused_as_stale() {
        SvixVerifier verifier = new SvixVerifier(SECRET);
        assertThat(reason(verifier.verify(signed(SECRET, "msg_1", NOW.minusSeconds(301), BODY), NOW))).isEqualTo(Verdict.Reason.stale);
        assertThat(reason(verifier.verify(signed(SECRET, "msg_2", NOW.plusSeconds(301), BODY), NOW))).isEqualTo(Verdict.Reason.stale);
        assertThat(verifier.verify(signed(SECRET, "msg_3", NOW.minusSeconds(299), BODY), NOW).accepted()).isTrue();
    }

    @Test
    void the_same_svix_id_a_second_time_is_refused_as_replayed() {
        SvixVerifier verifier = new SvixVerifier(SECRET);
        WebhookRequest call = signed(SECRET, "msg_1", NOW, BODY);
        assertThat(verifier.verify(call, NOW).accepted()).isTrue();
        assertThat(reason(verifier.verify(call, NOW.plusSeconds(30)))).isEqualTo(Verdict.Reason.replayed);
    }

    @Test
    void missing_headers_are_malformed() {
        assertThat(reason(new SvixVerifier(SECRET).verify(new WebhookRequest(Map.of(), BODY.getBytes(StandardCharsets.UTF_8)), NOW)))
                .isEqualTo(Verdict.Reason.malformed);
    }

    static Verdict.Reason reason(Verdict verdict) {
        assertThat(verdict).isInstanceOf(Verdict.Refused.class);
        return ((Verdict.Refused) verdict).reason();
    }
}
