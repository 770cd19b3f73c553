package dev.mailroom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.alert.AlertRouting;
import dev.mailroom.attachment.AttachmentSettings;
import dev.mailroom.deadletter.DeadLetterRetention;
import dev.mailroom.job.JobRetentionPolicy;
import dev.mailroom.job.SendAtHorizon;
import dev.mailroom.job.UnsubscribeRequirement;
import dev.mailroom.job.ValidityWindow;
import dev.mailroom.platform.settings.CheckedAtBoot;
import dev.mailroom.platform.settings.SettingsGate;
import dev.mailroom.platform.settings.SettingsReader;
import dev.mailroom.provider.registry.ProviderProducer;
import dev.mailroom.provider.registry.ProviderRegistry;
import dev.mailroom.reconcile.WatchSettings;
import dev.mailroom.recoverability.AimdRateLimiter;
import dev.mailroom.recoverability.CircuitBreaker;
import dev.mailroom.recoverability.RetryPolicy;
import dev.mailroom.redrive.RedriveSettings;
import dev.mailroom.stopline.StopLineSettings;
import jakarta.enterprise.inject.spi.DeploymentException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A bad value of each representative setting is refused by the concern that owns it, through the same reader its
 * {@link CheckedAtBoot} runs at deployment, with a message that names the key, the value and the accepted syntax —
 * and the same concern accepts a good value of the key (so no row passes by refusing everything).
 */
class SettingsRefusedAtBootTest {

    private static final List<String> QUEUES = List.of("mail.send", "mail.send.bulk");

    /** What one concern reads at deployment, over a map of settings. */
    private static Consumer<Map<String, String>> concern(Consumer<SettingsReader> read) {
        return values -> read.accept(SettingsReader.of(values));
    }

    static final Consumer<Map<String, String>> RETRY_POLICY =
            concern(r -> QUEUES.forEach(q -> RetryPolicy.forQueue(q, r.lookup())));
    static final Consumer<Map<String, String>> STOP_THE_LINE = concern(r -> StopLineSettings.read(r, QUEUES));
    static final Consumer<Map<String, String>> RETENTION =
            concern(r -> QUEUES.forEach(new DeadLetterRetention(r.lookup())::forQueue));
    static final Consumer<Map<String, String>> VALIDITY =
            values -> new ValidityWindow(SettingsReader.of(values).lookup()).check(values.keySet());
    static final Consumer<Map<String, String>> JOB_RETENTION =
            values -> JobRetentionPolicy.Settings.read(SettingsReader.of(values), values.keySet());
    static final Consumer<Map<String, String>> BREAKER =
            concern(r -> CircuitBreaker.Settings.forProvider("relay-a", r.lookup()));
    static final Consumer<Map<String, String>> RATE_LIMIT =
            concern(r -> AimdRateLimiter.Settings.forProvider("smtp", r.lookup()));
    static final Consumer<Map<String, String>> SMTP =
            concern(r -> ProviderProducer.smtpSettings(key -> r.find("mailroom.smtp." + key)));
    static final Consumer<Map<String, String>> CHAIN_MEMBER =
            concern(r -> ProviderRegistry.instance("relay-a", r, Clock.systemUTC()));
    static final Consumer<Map<String, String>> WATCH =
            values -> WatchSettings.read(SettingsReader.of(values), values.keySet());
    static final Consumer<Map<String, String>> ALERTS = concern(r -> AlertRouting.fromConfig(r.lookup()));
    static final Consumer<Map<String, String>> REDRIVE = concern(RedriveSettings::read);
    static final Consumer<Map<String, String>> ATTACHMENTS = concern(AttachmentSettings::read);
    static final Consumer<Map<String, String>> UNSUBSCRIBE = concern(r -> UnsubscribeRequirement.read(r, QUEUES));
    static final Consumer<Map<String, String>> SEND_AT = concern(SendAtHorizon::read);

    /** The SMTP keys that have no default in code (they come from microprofile-config.properties). */
    private static final Map<String, String> SMTP_BASE = Map.of("mailroom.smtp.host", "127.0.0.1",
            "mailroom.smtp.port", "25", "mailroom.smtp.starttls", "optional", "mailroom.smtp.connect-timeout-ms", "10000",
            "mailroom.smtp.read-timeout-ms", "30000", "mailroom.smtp.message-id-domain", "mailroom.local");

    static Stream<Arguments> settings() {
        return Stream.of(
                // a retry policy: a duration list, a number, an enum
                row(RETRY_POLICY, "mailroom.policy.default.transient.delays", "soon", "1s,2s", "comma-separated list of"),
                row(RETRY_POLICY, "mailroom.policy.mail.send.soft_bounce.max-retries", "-1", "2", "whole number of at least 0"),
                row(RETRY_POLICY, "mailroom.policy.default.transient.jitter", "wobbly", "equal", "none, full or equal"),
                // stop the line: durations in the one syntax (1m used to be refused here), a share
                row(STOP_THE_LINE, "mailroom.stop-the-line.dead-letter-rate.default.window", "soon", "1m", "500ms, 5s"),
                row(STOP_THE_LINE, "mailroom.stop-the-line.dead-letter-rate.mail.send.trip-threshold", "1.5", "0.5",
                        "a share above 0"),
                row(STOP_THE_LINE, "mailroom.stop-the-line.dead-letter-rate.default.enabled", "yes", "false",
                        "true or false"),
                // retention: a duration with a floor
                row(RETENTION, "mailroom.deadletter.retention.default", "P1D", "P5D", "at least 4 days"),
                row(RETENTION, "mailroom.deadletter.retention.mail.send.bulk", "forever", "30d", "500ms, 5s"),
                row(VALIDITY, "mailroom.validity.ttl.password_reset", "30 minutes", "30m", "positive duration"),
                // retention of finished jobs: the general one, a category's, the claim window, the pass interval
                row(JOB_RETENTION, "mailroom.jobs.retention", "a month", "30d", "positive duration"),
                row(JOB_RETENTION, "mailroom.jobs.retention.password_reset", "0s", "1d", "positive duration"),
                row(JOB_RETENTION, "mailroom.jobs.claim-window", "forever", "P7D", "positive duration"),
                row(JOB_RETENTION, "mailroom.jobs.retention-interval", "often", "1m", "positive duration"),
                // providers: the breaker, the rate limit, SMTP's port and TLS mode, a chain member without a kind
                row(BREAKER, "mailroom.breaker.delay", "fast", "30s", "500ms, 5s"),
                row(BREAKER, "mailroom.breaker.relay-a.request-volume", "0", "4", "whole number of at least 1"),
                row(RATE_LIMIT, "mailroom.rate-limit.smtp.max-per-second", "lots", "50", "is not a number"),
                withBase(row(SMTP, "mailroom.smtp.port", "smtp", "2525", "whole number from 1 to 65535")),
                withBase(row(SMTP, "mailroom.smtp.starttls", "sometimes", "required", "none, optional or required")),
                withBase(row(CHAIN_MEMBER, "mailroom.provider.relay-a.kind", "pigeon", "smtp", "one of http, smtp")),
                // the delivery watch and alerts
                row(WATCH, "mailroom.reconcile.bounce-rate-threshold", "5%", "0.05", "a number from 0.0 to 1.0"),
                row(WATCH, "mailroom.reconcile.silence-limit.relay-a", "2 hours", "2h", "positive duration"),
                row(ALERTS, "mailroom.alerts.burst.window", "soon", "5m", "500ms"),
                row(ALERTS, "mailroom.alerts.unrecorded-after", "0s", "10m", "positive duration"),
                // a redrive's defaults: held to the bounds a plan's own options are
                row(REDRIVE, "mailroom.redrive.sample-size", "5000", "20", "whole number from 0 to 1000"),
                row(REDRIVE, "mailroom.redrive.rate-per-second", "0", "5", "above 0 and at most 100"),
                row(REDRIVE, "mailroom.redrive.sample-timeout", "2h", "5m", "at most 1h"),
                row(REDRIVE, "mailroom.redrive.max-laps", "0", "2", "whole number from 1"),
                // the bulk queue's one-click unsubscribe: a boolean, bare or per queue
                row(UNSUBSCRIBE, "mailroom.bulk.require-unsubscribe", "yes", "false", "true or false"),
                row(UNSUBSCRIBE, "mailroom.bulk.require-unsubscribe.mail.send", "on", "true", "true or false"),
                // how far ahead a send_at may be: a positive duration
                row(SEND_AT, "mailroom.send-at.horizon", "a month", "P30D", "positive duration"),
                row(SEND_AT, "mailroom.send-at.horizon", "0s", "12h", "positive duration"),
                // attachments: the sources a fetch may reach, the sizes, the fetch's bounds
                row(ATTACHMENTS, "mailroom.attachments.allowed-prefixes", "files.shop.example/mail/",
                        "https://files.shop.example/mail/, http://127.0.0.1:8089/files/", "http:// or https:// URL prefixes"),
                row(ATTACHMENTS, "mailroom.attachments.allowed-prefixes", "https://user@files.shop.example/",
                        "https://files.shop.example/", "with a host"),
                row(ATTACHMENTS, "mailroom.attachments.max-bytes", "10MB", "1048576", "whole number of at least 1"),
                row(ATTACHMENTS, "mailroom.attachments.max-job-bytes", "0", "20971520", "whole number of at least 1"),
                row(ATTACHMENTS, "mailroom.attachments.connect-timeout", "0s", "2s", "positive"),
                row(ATTACHMENTS, "mailroom.attachments.timeout", "soon", "10s", "positive"),
                row(ATTACHMENTS, "mailroom.attachments.max-redirects", "20", "0", "whole number from 0 to 10"),
                row(ATTACHMENTS, "mailroom.attachments.cache-bytes", "-1", "0", "whole number of at least 0"));
    }

    @ParameterizedTest(name = "{1}={2}")
    @MethodSource("settings")
    void aBadValueIsRefusedNamingItsKeyAndAGoodOneIsTaken(Consumer<Map<String, String>> concern, String key, String bad,
                                                          String good, String accepted, Map<String, String> base) {
        Map<String, String> withBad = with(base, key, bad);
        CheckedAtBoot atBoot = () -> concern.accept(withBad);
        assertThatThrownBy(() -> SettingsGate.check(List.of(atBoot)))
                .isInstanceOf(DeploymentException.class)
                .hasMessageContaining(key)
                .hasMessageContaining(bad)
                .hasMessageContaining(accepted);
        assertThatCode(() -> concern.accept(with(base, key, good))).doesNotThrowAnyException();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("chains")
    void aChainMemberNobodyConfiguredIsRefusedNamingTheKeyToSet(String name) {
        assertThatThrownBy(() -> ProviderRegistry.instance(name, SettingsReader.of(SMTP_BASE), Clock.systemUTC()))
                .hasMessageContaining("mailroom.provider." + name + ".kind");
    }

    static Stream<String> chains() {
        return Stream.of("relay-b", "resend-eu");
    }

    @org.junit.jupiter.api.Test
    void theDeadLetterRateWindowTakesTheShortSyntax() {
        assertThat(StopLineSettings.read(SettingsReader.of(Map.of(
                        "mailroom.stop-the-line.dead-letter-rate.default.window", "1m")), QUEUES)
                .rates().get("mail.send")).map(s -> s.window()).contains(Duration.ofMinutes(1));
        assertThat(new DeadLetterRetention(key -> Optional.empty()).forQueue("mail.send"))
                .isEqualTo(DeadLetterRetention.DEFAULT);
    }

    private static Arguments row(Consumer<Map<String, String>> concern, String key, String bad, String good,
                                 String accepted) {
        return Arguments.of(concern, key, bad, good, accepted, Map.of());
    }

    private static Arguments withBase(Arguments row) {
        Object[] a = row.get();
        return Arguments.of(a[0], a[1], a[2], a[3], a[4], SMTP_BASE);
    }

    private static Map<String, String> with(Map<String, String> base, String key, String value) {
        java.util.HashMap<String, String> m = new java.util.HashMap<>(base);
        m.put(key, value);
        return m;
    }
}
