package dev.mailroom.reconcile;

import static dev.mailroom.reconcile.SvixVerifierTest.reason;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Postmark signs nothing: Basic credentials in the webhook URL are the whole check. */
class PostmarkVerifierTest {

    static final Instant NOW = Instant.parse("2026-12-01T01:00:00Z");
    static final byte[] BOUNCE = "{\"RecordType\":\"Bounce\",\"ID\":4323372036854775807,\"Type\":\"HardBounce\",\"Email\":\"alice@example.com\"}"
            .getBytes(StandardCharsets.UTF_8);

    static Map<String, String> basic(String user, String password) {
        return Map.of("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void the_configured_credentials_are_accepted_with_record_type_and_id_as_dedupe_key() {
        assertThat(new PostmarkVerifier("pm", "s3cret").verify(new WebhookRequest(basic("pm", "s3cret"), BOUNCE), NOW))
                .isEqualTo(new Verdict.Accepted("Bounce:4323372036854775807"));
    }

    @Test
    void wrong_or_missing_credentials_are_refused() {
        PostmarkVerifier verifier = new PostmarkVerifier("pm", "s3cret");
        assertThat(reason(verifier.verify(new WebhookRequest(basic("pm", "s3creT"), BOUNCE), NOW))).isEqualTo(Verdict.Reason.bad_signature);
        assertThat(reason(verifier.verify(new WebhookRequest(Map.of(), BOUNCE), NOW))).isEqualTo(Verdict.Reason.bad_signature);
    }

    @Test
    void a_record_without_type_or_id_is_malformed() {
        assertThat(reason(new PostmarkVerifier("pm", "s3cret").verify(
                new WebhookRequest(basic("pm", "s3cret"), "{}".getBytes(StandardCharsets.UTF_8)), NOW))).isEqualTo(Verdict.Reason.malformed);
    }
}
