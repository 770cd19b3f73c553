package dev.mailroom.alert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.platform.ClockProducer;
import dev.mailroom.platform.settings.SettingsGate;
import dev.mailroom.testsupport.SystemProperties;
import io.smallrye.config.inject.ConfigExtension;
import java.time.Instant;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * CDI component test (Weld SE): the adapter's annotations do what the server needs. It starts with the
 * application (before anyone raises), reads MicroProfile Config, and flushes to the log when the
 * application stops; the bean ticks on its own thread.
 */
class AlertServiceCdiTest {

    private final SystemProperties properties = new SystemProperties();

    @AfterEach
    void restoreProperties() {
        properties.restore();
    }

    private static WeldContainer boot() {
        return new Weld("alert-service-" + System.nanoTime())
                .disableDiscovery()
                .addExtension(new ConfigExtension())
                .addBeanClasses(AlertService.class, ClockProducer.class, SettingsGate.class)
                .initialize();
    }

    @Test
    void startsWithTheApplicationAndFlushesToTheLogWhenItStops() {
        properties.set("mailroom.alerts.burst.count", "7");
        try (LogCapture log = new LogCapture(LogSink.LOGGER)) {
            AlertService service;
            try (WeldContainer cdi = boot()) {
                // started by the settings gate at deployment, before any call
                assertThat(log.at(Level.INFO)).extracting(LogRecord::getMessage)
                        .anySatisfy(m -> assertThat(m).startsWith("Alerts to log; paging reasons").contains("burst 7 in 5m"));
                service = cdi.select(AlertService.class).get();
                assertThat(service.raise(AlertEvent.deadLetter("mail.send", "handler_error", "internal",
                        "java.lang.NullPointerException", "cdi-1", Instant.now()))).isTrue();
            }
            assertThat(log.at(Level.SEVERE)).extracting(LogRecord::getMessage)
                    .anySatisfy(m -> assertThat(m)
                            .startsWith("ALERT page DeadLetterArrived count=1 queue=mail.send reason=handler_error")
                            .contains("examples=[cdi-1]"));
        }
    }

    @Test
    void aBadAlertSettingStopsTheDeploymentNamingTheKey() {
        properties.set("mailroom.alerts.group-wait", "soon");
        assertThatThrownBy(AlertServiceCdiTest::boot)
                .hasStackTraceContaining("Mailroom does not start: 1 setting cannot be used")
                .hasStackTraceContaining("mailroom.alerts.group-wait");
    }
}
