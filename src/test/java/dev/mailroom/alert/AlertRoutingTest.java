package dev.mailroom.alert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.alert.AlertEvent.Kind;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AlertRoutingTest {

    private static final Instant T = Instant.parse("2030-01-01T00:00:00Z");

    private static Function<String, Optional<String>> config(Map<String, String> m) {
        return k -> Optional.ofNullable(m.get(k));
    }

    private static AlertEvent dl(String reason) {
        return AlertEvent.deadLetter("mail.send", reason, "internal", "java.lang.NullPointerException", "m-1", T);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "handler_error,       PAGE",
            "unmapped_error,      PAGE",
            "manual_review,       TICKET",
            "permanent_recipient, TICKET",
            "poison,              TICKET",
            "retries_exhausted,   TICKET",
            // not listed anywhere: a ticket, better seen tomorrow than never
            "too_large,           TICKET",
            "something_new,       TICKET"})
    void deadLettersPageOrFileATicketByReason(String reason, Severity expected) {
        AlertRouting routing = AlertRouting.defaults();
        assertThat(routing.severityOf(dl(reason))).isEqualTo(expected);
        RoutedAlert r = routing.route(dl(reason));
        assertThat(r.severity()).isEqualTo(expected);
        assertThat(r.name()).isEqualTo("DeadLetterArrived");
    }

    @Test
    void otherKindsHaveAFixedSeverityAndName() {
        AlertRouting routing = AlertRouting.defaults();
        AlertEvent oldest = AlertEvent.oldestAgeExceeded("mail.send", Duration.ofHours(3), Duration.ofHours(1), "m-9", T);
        AlertEvent retention = AlertEvent.retentionExpiring("mail.send", "m-8", T.plus(Duration.ofDays(1)), T);
        AlertEvent code = AlertEvent.unknownProviderCode("http", "418", "mail.send", "m-7", T);

        assertThat(routing.route(oldest)).extracting(RoutedAlert::name, RoutedAlert::severity)
                .containsExactly("DeadLetterOldestAgeExceeded", Severity.PAGE);
        assertThat(routing.route(retention)).extracting(RoutedAlert::name, RoutedAlert::severity)
                .containsExactly("DeadLetterRetentionExpiring", Severity.TICKET);
        assertThat(routing.route(code)).extracting(RoutedAlert::name, RoutedAlert::severity)
                .containsExactly("UnknownProviderCode", Severity.PAGE);
        assertThat(oldest.summary()).isEqualTo("Oldest open dead letter on mail.send (message m-9) is 3h old, limit 1h");
    }

    @Test
    void deliveryNewsAlerts_silentJobsFileATicket_ratesPagePerQueueAndTenant() {
        AlertRouting routing = AlertRouting.defaults();
        RoutedAlert silent = routing.route(AlertEvent.deliverySilent("smtp", "mail.send", "m-1", Duration.ofHours(2), T));
        RoutedAlert rate = routing.route(AlertEvent.deliveryRateExceeded("complaint", "mail.send", "acme", 2000, 3, 0.0015,
                0.001, Duration.ofHours(24), T));

        assertThat(silent).extracting(RoutedAlert::name, RoutedAlert::severity).containsExactly("DeliverySilent", Severity.TICKET);
        assertThat(silent.groupLabels()).containsOnlyKeys("queue", "provider");
        assertThat(rate).extracting(RoutedAlert::name, RoutedAlert::severity).containsExactly("DeliveryRateExceeded", Severity.PAGE);
        assertThat(rate.groupLabels()).containsEntry("tenant", "acme").containsEntry("reason", "complaint");
        assertThat(rate.description()).isEqualTo("complaint rate of mail.send (tenant acme) is 0.15 % (3 of 2000 recipients in 24h),"
                + " over the threshold of 0.10 %");
    }

    @Test
    void routeSplitsLabelsIntoGroupLabelsDetailsAndTheExample() {
        RoutedAlert r = AlertRouting.defaults().route(dl("handler_error"));
        assertThat(r.groupLabels()).isEqualTo(Map.of("queue", "mail.send", "reason", "handler_error"));
        assertThat(r.details()).isEqualTo(Map.of("failure_class", "internal", "error_type", "java.lang.NullPointerException"));
        assertThat(r.example()).isEqualTo("m-1");
        assertThat(r.alertLabels()).isEqualTo(Map.of("alertname", "DeadLetterArrived", "severity", "page",
                "queue", "mail.send", "reason", "handler_error"));
        assertThat(r.title()).isEqualTo("Dead letter on mail.send with reason handler_error");
        assertThat(r.description()).isEqualTo(
                "Dead letter on mail.send: handler_error (internal, java.lang.NullPointerException), message m-1");

        RoutedAlert code = AlertRouting.defaults().route(AlertEvent.unknownProviderCode("smtp", "599", "mail.send", null, T));
        // a new code is news: grouped by provider and code, the queue is a detail
        assertThat(code.groupLabels()).isEqualTo(Map.of("provider", "smtp", "code", "599"));
        assertThat(code.details()).isEqualTo(Map.of("queue", "mail.send"));
        assertThat(code.example()).isNull();
    }

    @Test
    void configOverridesTheReasonLists() {
        AlertRouting routing = AlertRouting.fromConfig(config(Map.of(
                "mailroom.alerts.page-reasons", " handler_error , POISON ",
                "mailroom.alerts.ticket-reasons", "poison,unmapped_error",
                "mailroom.alerts.burst.count", "3",
                "mailroom.alerts.burst.window", "90s")));
        assertThat(routing.pageReasons()).containsExactlyInAnyOrder("handler_error", "poison");
        // listed in both: paging wins, so promoting a reason takes one key
        assertThat(routing.severityOf(dl("poison"))).isEqualTo(Severity.PAGE);
        assertThat(routing.severityOf(dl("unmapped_error"))).isEqualTo(Severity.TICKET);
        assertThat(routing.burstCount()).isEqualTo(3);
        assertThat(routing.burstWindow()).isEqualTo(Duration.ofSeconds(90));
        assertThat(AlertRouting.fromConfig(config(Map.of("mailroom.alerts.burst.window", "PT2M"))).burstWindow())
                .isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void unsetOrBlankKeysTakeTheDefaults() {
        AlertRouting routing = AlertRouting.fromConfig(config(Map.of("mailroom.alerts.page-reasons", "  ")));
        assertThat(routing).isEqualTo(AlertRouting.defaults());
        assertThat(routing.pageReasons()).containsExactlyInAnyOrder("handler_error", "unmapped_error");
        assertThat(routing.ticketReasons())
                .containsExactlyInAnyOrder("manual_review", "permanent_recipient", "poison", "retries_exhausted");
        assertThat(routing.burstCount()).isEqualTo(50);
        assertThat(routing.burstWindow()).isEqualTo(Duration.ofMinutes(5));
        assertThat(routing.unrecordedAfter()).isEqualTo(Duration.ofMinutes(10));
        assertThat(AlertRouting.fromConfig(config(Map.of("mailroom.alerts.unrecorded-after", "30m"))).unrecordedAfter())
                .isEqualTo(Duration.ofMinutes(30));
    }

    @Test
    void outcomesANodeCannotRecordFileATicketPerNode() {
        RoutedAlert r = AlertRouting.defaults().route(
                AlertEvent.outcomesUnrecorded("mailroom-1", 3, Duration.ofMinutes(12), T));
        assertThat(r).extracting(RoutedAlert::name, RoutedAlert::severity)
                .containsExactly("OutcomesUnrecorded", Severity.TICKET);
        assertThat(r.groupLabels()).isEqualTo(Map.of("instance", "mailroom-1"));
        assertThat(r.title()).isEqualTo("Attempt outcomes known to mailroom-1 are not recorded: do not stop or restart it");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "mailroom.alerts.burst.count    | many",
            "mailroom.alerts.burst.count    | 0",
            "mailroom.alerts.burst.count    | 100001",
            "mailroom.alerts.burst.window   | 5 minutes",
            "mailroom.alerts.burst.window   | 0s",
            "mailroom.alerts.unrecorded-after | 10 minutes",
            "mailroom.alerts.unrecorded-after | -1m",
            "mailroom.alerts.page-reasons   | handler_error,,poison",
            "mailroom.alerts.ticket-reasons | manual review"})
    void badRoutingValuesFailNamingTheKey(String key, String value) {
        assertThatThrownBy(() -> AlertRouting.fromConfig(config(Map.of(key, value))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(key + "='");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "mailroom.alerts.group-wait            | -1s",
            "mailroom.alerts.group-interval        | soon",
            "mailroom.alerts.queue-capacity        | 0",
            "mailroom.alerts.retry.initial-backoff | 0ms",
            "mailroom.alerts.retry.max-age         | forever",
            "mailroom.alerts.retry.max-pending     | -5"})
    void badDispatcherValuesFailNamingTheKey(String key, String value) {
        assertThatThrownBy(() -> AlertDispatchSettings.fromConfig(config(Map.of(key, value))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(key + "='");
    }

    @Test
    void backoffBelowItsStartFailsNamingBothKeys() {
        assertThatThrownBy(() -> AlertDispatchSettings.fromConfig(config(Map.of(
                "mailroom.alerts.retry.initial-backoff", "10s", "mailroom.alerts.retry.max-backoff", "5s"))))
                .hasMessageContaining("mailroom.alerts.retry.max-backoff")
                .hasMessageContaining("mailroom.alerts.retry.initial-backoff");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"ftp://alerts.example/hook", "not a url", "/api/v2/alerts"})
    void aWebhookUrlThatIsNotHttpFailsNamingTheKey(String url) {
        assertThatThrownBy(() -> WebhookSink.fromConfig(config(Map.of("mailroom.alerts.webhook.url", url)),
                java.time.Clock.systemUTC()))
                .hasMessageStartingWith("mailroom.alerts.webhook.url='");
    }

    @Test
    void noWebhookUrlMeansNoWebhook() {
        assertThat(WebhookSink.fromConfig(config(Map.of()), java.time.Clock.systemUTC())).isEmpty();
        assertThat(WebhookSink.fromConfig(config(Map.of("mailroom.alerts.webhook.url", "")), java.time.Clock.systemUTC()))
                .isEmpty();
    }

    @Test
    void eventLabelsMustBeAlertmanagerLabelNames() {
        assertThatThrownBy(() -> new AlertEvent(Kind.DEAD_LETTER_ARRIVAL, Map.of("error-type", "x"), "s", T))
                .hasMessageContaining("error-type");
        // absent optional values are left out, not sent as empty labels
        AlertEvent e = AlertEvent.deadLetter("mail.send", "poison", null, null, null, T);
        assertThat(e.labels()).isEqualTo(Map.of("queue", "mail.send", "reason", "poison"));
        assertThat(e.summary()).isEqualTo("Dead letter on mail.send: poison");
    }
}
