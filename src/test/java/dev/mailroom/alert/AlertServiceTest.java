package dev.mailroom.alert;

import static org.assertj.core.api.Assertions.assertThat;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * The CDI adapter wired by hand (no container): built from MicroProfile Config, and at shutdown it
 * flushes what is still open to the log, so nothing raised before an undeploy is lost unseen.
 */
class AlertServiceTest {

    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    private static AlertService service(Map<String, String> properties) {
        AlertService s = new AlertService();
        s.config = new SmallRyeConfigBuilder().withSources(new PropertiesConfigSource(properties, "test", 500)).build();
        s.clock = Clock.fixed(T0, ZoneOffset.UTC);
        return s;
    }

    @Test
    void raisedAlertsReachTheLogAtTheLatestOnShutdown() {
        AlertService s = service(Map.of("mailroom.alerts.page-reasons", "poison"));
        try (LogCapture alerts = new LogCapture(LogSink.LOGGER)) {
            s.start();
            assertThat(s.dispatcher().routing().pageReasons()).containsExactly("poison");
            assertThat(s.raise(AlertEvent.deadLetter("mail.send", "poison", null, null, "m-1", T0))).isTrue();

            s.stop();

            assertThat(alerts.at(Level.SEVERE)).extracting(java.util.logging.LogRecord::getMessage)
                    .anySatisfy(m -> assertThat(m).startsWith("ALERT page DeadLetterArrived count=1 queue=mail.send reason=poison"));
        }
    }

    @Test
    void aBadValueFailsTheStartNamingTheKey() {
        AlertService s = service(Map.of("mailroom.alerts.group-wait", "later"));
        org.assertj.core.api.Assertions.assertThatThrownBy(s::start).hasMessageStartingWith("mailroom.alerts.group-wait='later' is refused: expected a positive duration");
    }

    @Test
    void aWebhookUrlAddsTheWebhookSinkAfterTheLog() {
        AlertService s = service(Map.of("mailroom.alerts.webhook.url", "http://user:pw@127.0.0.1:9/api/v2/alerts"));
        try (LogCapture log = new LogCapture(AlertService.class.getName())) {
            s.start();
            s.stop();
            assertThat(log.at(Level.INFO)).extracting(java.util.logging.LogRecord::getMessage)
                    .anySatisfy(m -> assertThat(m).startsWith("Alerts to log, webhook http://127.0.0.1:9/api/v2/alerts;"));
        }
        AlertService logOnly = service(Map.of());
        try (LogCapture log = new LogCapture(AlertService.class.getName())) {
            logOnly.start();
            logOnly.stop();
            assertThat(log.at(Level.INFO)).extracting(java.util.logging.LogRecord::getMessage)
                    .anySatisfy(m -> assertThat(m).startsWith("Alerts to log;"));
        }
    }
}
