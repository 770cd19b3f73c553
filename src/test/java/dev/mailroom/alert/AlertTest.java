package dev.mailroom.alert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class AlertTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant FIRST = Instant.parse("2030-01-01T00:00:00.123456Z");
    private static final Instant LAST = Instant.parse("2030-01-01T00:00:05Z");

    static Alert alert(String reason, Severity severity, long count, List<String> examples) {
        return new Alert("DeadLetterArrived", severity, Map.of("alertname", "DeadLetterArrived",
                "severity", severity.wire(), "queue", "mail.send", "reason", reason),
                "Dead letter on mail.send with reason " + reason, "Latest: something", count, FIRST, LAST, examples);
    }

    @Test
    void theAlertmanagerItemHasLabelsAnnotationsAndTimes() throws Exception {
        Alert a = alert("handler_error", Severity.PAGE, 5000, List.of("m-0", "m-1"));
        Instant sentAt = Instant.parse("2030-01-01T00:00:20Z");

        JsonNode item = JSON.readTree(a.toAlertmanagerJson(sentAt, Duration.ofHours(1),
                URI.create("http://mailroom.example/api/v1/dead-letters")));

        assertThat(JSON.convertValue(item.get("labels"), Map.class)).isEqualTo(Map.of("alertname", "DeadLetterArrived",
                "severity", "page", "queue", "mail.send", "reason", "handler_error"));
        JsonNode ann = item.get("annotations");
        assertThat(ann.get("summary").asText()).isEqualTo("Dead letter on mail.send with reason handler_error (5000 times)");
        assertThat(ann.get("description").asText()).isEqualTo("Latest: something");
        assertThat(ann.get("count").isTextual()).isTrue(); // annotations are strings in Alertmanager
        assertThat(ann.get("count").asText()).isEqualTo("5000");
        assertThat(ann.get("examples").asText()).isEqualTo("m-0, m-1");
        assertThat(item.get("startsAt").asText()).isEqualTo("2030-01-01T00:00:00.123Z");
        // counted from sending, which is later than the last occurrence
        assertThat(item.get("endsAt").asText()).isEqualTo("2030-01-01T01:00:20Z");
        assertThat(item.get("generatorURL").asText())
                .isEqualTo("http://mailroom.example/api/v1/dead-letters?queue=mail.send&reason=handler_error");
        assertThat(java.time.OffsetDateTime.parse(item.get("startsAt").asText()).toInstant())
                .isEqualTo(FIRST.truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
    }

    @Test
    void theDefaultItemEndsAnHourAfterTheLastOccurrence() throws Exception {
        JsonNode item = JSON.readTree(alert("poison", Severity.TICKET, 1, List.of()).toAlertmanagerJson());
        assertThat(item.get("endsAt").asText()).isEqualTo("2030-01-01T01:00:05Z");
        assertThat(item.get("annotations").get("summary").asText()).isEqualTo("Dead letter on mail.send with reason poison");
        assertThat(item.get("annotations").has("examples")).isFalse();
        assertThat(item.get("generatorURL").asText()).startsWith("http://127.0.0.1:8080/mailroom/api/v1/dead-letters?queue=");
    }

    @Test
    void aBodyIsAnArrayOfItemsInOrder() throws Exception {
        String body = Alert.alertmanagerBody(List.of(alert("a_reason", Severity.TICKET, 1, List.of()),
                alert("b_reason", Severity.PAGE, 2, List.of())), LAST, Duration.ofMinutes(5), null);
        JsonNode array = JSON.readTree(body);
        assertThat(array.isArray()).isTrue();
        assertThat(array).extracting(n -> n.get("labels").get("reason").asText()).containsExactly("a_reason", "b_reason");
        assertThat(array.get(0).has("generatorURL")).isFalse();
    }

    @Test
    void mergingAddsCountsAndWidensTheSpan() {
        Alert early = alert("poison", Severity.TICKET, 3, List.of("a", "b", "c"));
        Alert late = new Alert(early.name(), early.severity(), early.labels(), early.summary(), "Latest: later", 4,
                LAST, LAST.plusSeconds(60), List.of("c", "d", "e", "f"));
        Alert m = early.mergedWith(late);
        assertThat(m.count()).isEqualTo(7);
        assertThat(m.firstAt()).isEqualTo(FIRST);
        assertThat(m.lastAt()).isEqualTo(LAST.plusSeconds(60));
        assertThat(m.examples()).containsExactly("a", "b", "c", "d", "e");
        assertThat(m.description()).isEqualTo("Latest: later");
        assertThatThrownBy(() -> early.mergedWith(alert("other", Severity.TICKET, 1, List.of())))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void labelsMustCarryNameAndSeverity() {
        assertThatThrownBy(() -> new Alert("X", Severity.PAGE, Map.of("alertname", "X", "severity", "ticket"),
                "s", "d", 1, FIRST, LAST, List.of())).hasMessageContaining("severity=page");
    }

    @Test
    void theLogSinkWritesPagesAtSevereAndTicketsAtWarningWithTheCount() {
        Logger logger = Logger.getAnonymousLogger();
        logger.setUseParentHandlers(false);
        List<java.util.logging.LogRecord> records = new java.util.ArrayList<>();
        logger.addHandler(new java.util.logging.Handler() {
            @Override public void publish(java.util.logging.LogRecord r) { records.add(r); }
            @Override public void flush() { }
            @Override public void close() { }
        });

        new LogSink(logger).deliver(List.of(alert("handler_error", Severity.PAGE, 5000, List.of("m-0")),
                alert("poison", Severity.TICKET, 1, List.of())));

        assertThat(records).extracting(java.util.logging.LogRecord::getLevel).containsExactly(Level.SEVERE, Level.WARNING);
        assertThat(records.get(0).getMessage()).isEqualTo("ALERT page DeadLetterArrived count=5000 queue=mail.send "
                + "reason=handler_error first=2030-01-01T00:00:00.123Z last=2030-01-01T00:00:05Z examples=[m-0]: "
                + "Dead letter on mail.send with reason handler_error (5000 times). Latest: something");
        assertThat(records.get(1).getMessage()).startsWith("ALERT ticket DeadLetterArrived count=1 queue=mail.send reason=poison ");
    }
}
