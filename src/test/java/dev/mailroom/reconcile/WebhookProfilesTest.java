package dev.mailroom.reconcile;

import static dev.mailroom.reconcile.SvixVerifierTest.reason;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Only configured profiles exist; every profile refuses an oversized body before looking at it. */
class WebhookProfilesTest {

    static final Instant NOW = Instant.parse("2026-12-01T01:00:00Z");

    static WebhookProfiles profiles(Map<String, String> config) {
        return WebhookProfiles.from(key -> Optional.ofNullable(config.get(key)), url -> {
            throw new AssertionError("no certificate fetch expected");
        });
    }

    @Test
    void nothing_configured_means_no_profile_answers() {
        WebhookProfiles none = profiles(Map.of());
        assertThat(none.names()).isEmpty();
        assertThat(none.verify("resend", new WebhookRequest(Map.of(), new byte[0]), NOW)).isEmpty();
    }

    @Test
    void each_profile_exists_exactly_when_its_secret_is_configured() {
        WebhookProfiles some = profiles(Map.of(
                "mailroom.webhooks.ses.topic-arns", "arn:aws:sns:eu-west-1:1:a, arn:aws:sns:eu-west-1:1:b",
                "mailroom.webhooks.mailgun.signing-key", "k",
                "mailroom.webhooks.postmark.password", "p",
                "mailroom.webhooks.generic.secret", SvixVerifierTest.SECRET,
                "mailroom.webhooks.resend.secret", " "));
        assertThat(some.names()).containsExactlyInAnyOrder("ses", "mailgun", "postmark", "generic");
        assertThat(some.verifier("sendgrid")).isEmpty();
        assertThat(some.verifier("resend")).as("a blank secret is no secret").isEmpty();
    }

    @Test
    void an_oversized_body_is_refused_before_verification_and_a_signed_one_just_under_passes() {
        WebhookProfiles generic = profiles(Map.of("mailroom.webhooks.generic.secret", SvixVerifierTest.SECRET,
                "mailroom.webhooks.max-bytes", "100"));
        String big = "{\"pad\":\"" + "x".repeat(100) + "\"}";
        Verdict verdict = generic.verify("generic", SvixVerifierTest.signed(SvixVerifierTest.SECRET, "msg_big", NOW, big), NOW).orElseThrow();
        assertThat(reason(verdict)).isEqualTo(Verdict.Reason.oversized);
        String small = "{\"pad\":\"" + "x".repeat(80) + "\"}";
        assertThat(generic.verify("generic", SvixVerifierTest.signed(SvixVerifierTest.SECRET, "msg_small", NOW, small), NOW)
                .orElseThrow().accepted()).isTrue();
    }
}
