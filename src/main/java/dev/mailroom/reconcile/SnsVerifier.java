package dev.mailroom.reconcile;

import static dev.mailroom.reconcile.Verdict.Reason.bad_certificate;
import static dev.mailroom.reconcile.Verdict.Reason.bad_signature;
import static dev.mailroom.reconcile.Verdict.Reason.malformed;
import static dev.mailroom.reconcile.Verdict.Reason.replayed;
import static dev.mailroom.reconcile.Verdict.Reason.stale;
import static dev.mailroom.reconcile.Verdict.Reason.topic_not_allowed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Amazon SNS messages carrying SES events. The signature ({@code SignatureVersion} 1: SHA1withRSA,
 * 2: SHA256withRSA) covers the canonical string of {@code key\nvalue\n} pairs in AWS's fixed order; the
 * certificate must come from an https URL on {@code sns.<region>.amazonaws.com}; the topic must be on the
 * allow-list — the signature alone proves only that <em>some</em> AWS account sent it.
 */
public final class SnsVerifier implements WebhookVerifier {

    /** SNS retries for up to an hour by default; older messages are refused as stale. */
    public static final Duration TOLERANCE = Duration.ofHours(1);
    private static final Pattern SNS_HOST = Pattern.compile("sns\\.[a-z0-9-]+\\.amazonaws\\.com(\\.cn)?");
    private static final List<String> NOTIFICATION_FIELDS = List.of("Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type");
    private static final List<String> SUBSCRIPTION_FIELDS = List.of("Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final CertificateSource certificates;
    private final Set<String> allowedTopics;
    private final ReplayMemory seen = new ReplayMemory(TOLERANCE.multipliedBy(2));

    public SnsVerifier(CertificateSource certificates, Set<String> allowedTopics) {
        this.certificates = certificates;
        this.allowedTopics = Set.copyOf(allowedTopics);
    }

    /** The signing-certificate URL rule: https, no port or user info, host {@code sns.<region>.amazonaws.com}, a .pem path. */
    public static boolean acceptableCertificateUrl(String url) {
        try {
            URI uri = new URI(url);
            return "https".equals(uri.getScheme()) && uri.getUserInfo() == null && uri.getPort() == -1
                    && uri.getHost() != null && SNS_HOST.matcher(uri.getHost()).matches()
                    && uri.getPath() != null && uri.getPath().endsWith(".pem") && uri.getQuery() == null;
        } catch (Exception e) {
            return false;
        }
    }

    @Override
    public Verdict verify(WebhookRequest request, Instant now) {
        JsonNode message;
        try {
            message = JSON.readTree(request.body());
        } catch (IOException e) {
            return Verdict.refused(malformed, "body is not JSON");
        }
        String type = text(message, "Type");
        String messageId = text(message, "MessageId");
        List<String> fields = switch (type) {
            case "Notification" -> NOTIFICATION_FIELDS;
            case "SubscriptionConfirmation", "UnsubscribeConfirmation" -> SUBSCRIPTION_FIELDS;
            default -> null;
        };
        if (fields == null || messageId.isEmpty()) {
            return Verdict.refused(malformed, "unknown SNS Type or no MessageId");
        }
        if (!allowedTopics.contains(text(message, "TopicArn"))) {
            return Verdict.refused(topic_not_allowed, "TopicArn not on the allow-list");
        }
        String algorithm = switch (text(message, "SignatureVersion")) {
            case "1" -> "SHA1withRSA";
            case "2" -> "SHA256withRSA";
            default -> null;
        };
        if (algorithm == null) {
            return Verdict.refused(malformed, "SignatureVersion must be 1 or 2");
        }
        Instant timestamp;
        try {
            timestamp = Instant.parse(text(message, "Timestamp"));
        } catch (DateTimeParseException e) {
            return Verdict.refused(malformed, "Timestamp is not ISO-8601");
        }
        if (!Signatures.fresh(timestamp, now, TOLERANCE)) {
            return Verdict.refused(stale, "Timestamp older than " + TOLERANCE.toMinutes() + " minutes");
        }
        String certUrl = text(message, "SigningCertURL");
        if (!acceptableCertificateUrl(certUrl)) {
            return Verdict.refused(bad_certificate, "SigningCertURL is not https on sns.<region>.amazonaws.com");
        }
        X509Certificate certificate;
        try {
            certificate = certificates.certificate(URI.create(certUrl));
            certificate.checkValidity(java.util.Date.from(now));
        } catch (Exception e) {
            return Verdict.refused(bad_certificate, "signing certificate unusable: " + e.getClass().getSimpleName());
        }
        if (!valid(algorithm, certificate, canonical(message, fields), text(message, "Signature"))) {
            return Verdict.refused(bad_signature, "RSA signature does not verify");
        }
        if (!seen.firstSighting(messageId, now)) {
            return Verdict.refused(replayed, "MessageId already accepted");
        }
        return new Verdict.Accepted(messageId);
    }

    /** AWS's string to sign: each present field as {@code name\nvalue\n}, in the fixed order. */
    static String canonical(JsonNode message, List<String> fields) {
        StringBuilder out = new StringBuilder();
        for (String field : fields) {
            if (message.hasNonNull(field)) {
                out.append(field).append('\n').append(message.get(field).asText()).append('\n');
            }
        }
        return out.toString();
    }

    private static boolean valid(String algorithm, X509Certificate certificate, String canonical, String signatureBase64) {
        try {
            Signature rsa = Signature.getInstance(algorithm);
            rsa.initVerify(certificate.getPublicKey());
            rsa.update(canonical.getBytes(StandardCharsets.UTF_8));
            return rsa.verify(java.util.Base64.getDecoder().decode(signatureBase64));
        } catch (Exception unreadable) {
            return false;
        }
    }

    private static String text(JsonNode node, String field) {
        return node.path(field).asText("");
    }
}
