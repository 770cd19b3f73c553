package dev.mailroom.reconcile;

import static dev.mailroom.reconcile.SvixVerifierTest.reason;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.FileInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * SES through SNS: an RSA certificate made here with the JDK's keytool, served to the verifier by an
 * injectable certificate source; messages signed as SNS signs them (canonical key\nvalue\n string).
 */
class SnsVerifierTest {

    static final Instant NOW = Instant.now();
    static final String TOPIC = "arn:aws:sns:eu-west-1:123456789012:ses-events";
    static final String CERT_URL = "https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-abc.pem";
    static final ObjectMapper JSON = new ObjectMapper();
    static PrivateKey key;
    static X509Certificate certificate;
    static PrivateKey otherKey;

    @BeforeAll
    static void certificates(@TempDir Path dir) throws Exception {
        Object[] one = keytool(dir, "sns");
        key = (PrivateKey) one[0];
        certificate = (X509Certificate) one[1];
        otherKey = (PrivateKey) keytool(dir, "other")[0];
    }

    /** A self-signed RSA certificate from the JDK's own keytool: no test-only crypto library needed. */
    static Object[] keytool(Path dir, String alias) throws Exception {
        Path store = dir.resolve(alias + ".p12");
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", alias, "-keyalg", "RSA", "-keysize", "2048", "-startdate", "-1d", "-validity", "3",
                "-dname", "CN=sns.amazonaws.com", "-storetype", "PKCS12", "-keystore", store.toString(),
                "-storepass", "changeit", "-keypass", "changeit").redirectErrorStream(true).start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isZero();
        KeyStore keyStore = KeyStore.getInstance("PKCS12");
        try (FileInputStream in = new FileInputStream(store.toFile())) {
            keyStore.load(in, "changeit".toCharArray());
        }
        return new Object[] {keyStore.getKey(alias, "changeit".toCharArray()), keyStore.getCertificate(alias)};
    }

    static ObjectNode notification(String messageId, Instant at, String topic) {
        ObjectNode message = JSON.createObjectNode();
        message.put("Type", "Notification");
        message.put("MessageId", messageId);
        message.put("TopicArn", topic);
        message.put("Message", "{\"notificationType\":\"Delivery\",\"mail\":{\"messageId\":\"ses-1\"}}");
        message.put("Timestamp", at.toString());
        message.put("SigningCertURL", CERT_URL);
        return message;
    }

    static WebhookRequest signed(ObjectNode message, String version, PrivateKey with) throws Exception {
        List<String> fields = message.path("Type").asText().equals("Notification")
                ? List.of("Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type")
                : List.of("Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type");
        StringBuilder canonical = new StringBuilder();
        for (String field : fields) {
            if (message.hasNonNull(field)) {
                canonical.append(field).append('\n').append(message.get(field).asText()).append('\n');
            }
        }
        Signature rsa = Signature.getInstance(version.equals("1") ? "SHA1withRSA" : "SHA256withRSA");
        rsa.initSign(with);
        rsa.update(canonical.toString().getBytes(StandardCharsets.UTF_8));
        message.put("SignatureVersion", version);
        message.put("Signature", Base64.getEncoder().encodeToString(rsa.sign()));
        return new WebhookRequest(Map.of("x-amz-sns-message-type", message.path("Type").asText()), JSON.writeValueAsBytes(message));
    }

    static SnsVerifier verifier() {
        return new SnsVerifier(url -> {
            assertThat(url.toString()).isEqualTo(CERT_URL);
            return certificate;
        }, Set.of(TOPIC));
    }

    @ParameterizedTest
    @CsvSource({"1", "2"})
    void a_notification_signed_with_either_version_is_accepted_with_its_message_id(String version) throws Exception {
        assertThat(verifier().verify(signed(notification("m-" + version, NOW, TOPIC), version, key), NOW))
                .isEqualTo(new Verdict.Accepted("m-" + version));
    }

    @Test
    void a_subscription_confirmation_for_an_allowed_topic_is_accepted_and_for_another_refused() throws Exception {
        ObjectNode confirmation = notification("sub-1", NOW, TOPIC);
        confirmation.put("Type", "SubscriptionConfirmation");
        confirmation.put("Token", "token-1");
        confirmation.put("SubscribeURL", "https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&Token=token-1");
        assertThat(verifier().verify(signed(confirmation, "2", key), NOW).accepted()).isTrue();

        ObjectNode foreign = confirmation.deepCopy();
        foreign.put("MessageId", "sub-2");
        foreign.put("TopicArn", "arn:aws:sns:eu-west-1:999999999999:someone-else");
        assertThat(reason(verifier().verify(signed(foreign, "2", key), NOW))).isEqualTo(Verdict.Reason.topic_not_allowed);
    }

    @Test
    void a_changed_byte_in_a_signed_field_is_refused() throws Exception {
        WebhookRequest good = signed(notification("m-1", NOW, TOPIC), "2", key);
        String tampered = good.bodyText().replace("ses-1", "ses-2");
        assertThat(tampered).isNotEqualTo(good.bodyText());
        assertThat(reason(verifier().verify(new WebhookRequest(good.headers(), tampered.getBytes(StandardCharsets.UTF_8)), NOW)))
                .isEqualTo(Verdict.Reason.bad_signature);
    }

    @Test
    void a_message_signed_with_another_key_is_refused() throws Exception {
        assertThat(reason(verifier().verify(signed(notification("m-1", NOW, TOPIC), "2", otherKey), NOW)))
                .isEqualTo(Verdict.Reason.bad_signature);
    }

    @Test
    void a_topic_not_on_the_allow_list_is_refused_even_when_correctly_signed() throws Exception {
        assertThat(reason(verifier().verify(signed(notification("m-1", NOW, "arn:aws:sns:eu-west-1:999999999999:x"), "2", key), NOW)))
                .isEqualTo(Verdict.Reason.topic_not_allowed);
    }

    @Test
    void a_message_older_than_an_hour_is_refused_as_stale() throws Exception {
        assertThat(reason(verifier().verify(signed(notification("m-1", NOW.minusSeconds(3601), TOPIC), "2", key), NOW)))
                .isEqualTo(Verdict.Reason.stale);
    }

    @Test
    void the_same_message_id_twice_is_refused_as_replayed() throws Exception {
        SnsVerifier verifier = verifier();
        WebhookRequest call = signed(notification("m-1", NOW, TOPIC), "2", key);
        assertThat(verifier.verify(call, NOW).accepted()).isTrue();
        assertThat(reason(verifier.verify(call, NOW.plusSeconds(2)))).isEqualTo(Verdict.Reason.replayed);
    }

    @Test
    void a_certificate_url_off_the_sns_hosts_is_refused_before_anything_is_fetched() throws Exception {
        ObjectNode message = notification("m-1", NOW, TOPIC);
        message.put("SigningCertURL", "https://attacker.example.com/cert.pem");
        SnsVerifier verifier = new SnsVerifier(url -> {
            throw new AssertionError("must not fetch " + url);
        }, Set.of(TOPIC));
        assertThat(reason(verifier.verify(signed(message, "2", key), NOW))).isEqualTo(Verdict.Reason.bad_certificate);
    }

    @ParameterizedTest
    @CsvSource({
            "https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-1.pem, true",
            "https://sns.cn-north-1.amazonaws.com.cn/SimpleNotificationService-1.pem, true",
            "http://sns.eu-west-1.amazonaws.com/SimpleNotificationService-1.pem, false",
            "https://sns.eu-west-1.amazonaws.com.evil.com/x.pem, false",
            "https://evilsns.eu-west-1.amazonaws.com/x.pem, false",
            "https://sns.eu-west-1.amazonaws.com:8443/x.pem, false",
            "https://user@sns.eu-west-1.amazonaws.com/x.pem, false",
            "https://sns.eu-west-1.amazonaws.com/x.txt, false",
            "https://s3.amazonaws.com/x.pem, false",
            "not a url, false"})
    void the_certificate_url_rule(String url, boolean acceptable) {
        assertThat(SnsVerifier.acceptableCertificateUrl(url)).isEqualTo(acceptable);
    }

    @Test
    void an_unknown_signature_version_and_non_json_are_malformed() throws Exception {
        WebhookRequest good = signed(notification("m-1", NOW, TOPIC), "2", key);
        String version3 = good.bodyText().replace("\"SignatureVersion\":\"2\"", "\"SignatureVersion\":\"3\"");
        assertThat(reason(verifier().verify(new WebhookRequest(Map.of(), version3.getBytes(StandardCharsets.UTF_8)), NOW)))
                .isEqualTo(Verdict.Reason.malformed);
        assertThat(reason(verifier().verify(new WebhookRequest(Map.of(), "<xml/>".getBytes(StandardCharsets.UTF_8)), NOW)))
                .isEqualTo(Verdict.Reason.malformed);
    }
}
