package dev.mailroom.reconcile;

import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The webhook profiles this installation answers, built from MicroProfile Config. A profile exists only when
 * its secret (or, for {@code ses}, its topic allow-list) is configured; every other name is unknown and the
 * endpoint answers 404 for it.
 * <pre>
 * mailroom.webhooks.max-bytes           = 1048576 (every profile)
 * mailroom.webhooks.ses.topic-arns      = arn:aws:sns:eu-west-1:123456789012:ses-events,...
 * mailroom.webhooks.sendgrid.public-key = base64 X.509 EC key from SendGrid's settings
 * mailroom.webhooks.mailgun.signing-key = the HTTP webhook signing key
 * mailroom.webhooks.postmark.user / .password = the Basic credentials put in Postmark's webhook URL
 * mailroom.webhooks.resend.secret       = whsec_…
 * mailroom.webhooks.generic.secret      = whsec_…
 * </pre>
 */
public final class WebhookProfiles {

    public static final int DEFAULT_MAX_BYTES = 1_048_576;

    private final Map<String, WebhookVerifier> verifiers;

    private WebhookProfiles(Map<String, WebhookVerifier> verifiers) {
        this.verifiers = Map.copyOf(verifiers);
    }

    public static WebhookProfiles from(Function<String, Optional<String>> config, CertificateSource certificates) {
        int maxBytes = config.apply("mailroom.webhooks.max-bytes").map(String::trim).map(Integer::parseInt).orElse(DEFAULT_MAX_BYTES);
        Map<String, WebhookVerifier> built = new LinkedHashMap<>();
        value(config, "ses.topic-arns").ifPresent(arns -> built.put("ses", new SnsVerifier(certificates, list(arns))));
        value(config, "sendgrid.public-key").ifPresent(key -> built.put("sendgrid", SendGridVerifier.fromBase64(key)));
        value(config, "mailgun.signing-key").ifPresent(key -> built.put("mailgun", new MailgunVerifier(key)));
        value(config, "postmark.password").ifPresent(password -> built.put("postmark",
                new PostmarkVerifier(value(config, "postmark.user").orElse("postmark"), password)));
        value(config, "resend.secret").ifPresent(secret -> built.put("resend", new SvixVerifier(secret)));
        value(config, "generic.secret").ifPresent(secret -> built.put("generic", new SvixVerifier(secret)));
        built.replaceAll((profile, verifier) -> new SizeLimited(maxBytes, verifier));
        return new WebhookProfiles(built);
    }

    /** The configured profile names, e.g. for the access rules that let exactly these paths through. */
    public Set<String> names() {
        return verifiers.keySet();
    }

    public Optional<WebhookVerifier> verifier(String profile) {
        return Optional.ofNullable(verifiers.get(profile));
    }

    /** Verifies a call for {@code profile}; empty when the profile is not configured. */
    public Optional<Verdict> verify(String profile, WebhookRequest request, Instant now) {
        return verifier(profile).map(v -> v.verify(request, now));
    }

    private static Optional<String> value(Function<String, Optional<String>> config, String key) {
        return config.apply("mailroom.webhooks." + key).map(String::trim).filter(v -> !v.isEmpty());
    }

    private static Set<String> list(String commaSeparated) {
        return Arrays.stream(commaSeparated.split(",")).map(String::trim).filter(s -> !s.isEmpty()).collect(Collectors.toSet());
    }
}
