package dev.mailroom.alert;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Grouping with time passed in: windows close because the test moves time, never by sleeping. */
class AlertGrouperTest {

    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private final AlertRouting routing = AlertRouting.defaults();
    private final AlertGrouper grouper = new AlertGrouper(Duration.ofSeconds(10), Duration.ofMinutes(1));

    private RoutedAlert dl(String reason, String errorType, String messageId, Instant at) {
        return routing.route(AlertEvent.deadLetter("mail.send", reason, "internal", errorType, messageId, at));
    }

    @Test
    void fiveThousandArrivalsInOneWindowAreOneAlertWithTheirCount() {
        for (int i = 0; i < 5000; i++) {
            Instant at = T0.plusMillis(i); // all within 5 s
            grouper.add(dl("handler_error", i % 2 == 0 ? "NullPointerException" : "IllegalStateException", "m-" + i, at), at);
        }
        assertThat(grouper.openGroups()).isEqualTo(1);

        List<Alert> alerts = grouper.drainDue(T0.plusSeconds(10));

        assertThat(alerts).hasSize(1);
        Alert a = alerts.get(0);
        assertThat(a.name()).isEqualTo("DeadLetterArrived");
        assertThat(a.severity()).isEqualTo(Severity.PAGE);
        assertThat(a.count()).isEqualTo(5000);
        assertThat(a.examples()).containsExactly("m-0", "m-1", "m-2", "m-3", "m-4");
        assertThat(a.firstAt()).isEqualTo(T0);
        assertThat(a.lastAt()).isEqualTo(T0.plusMillis(4999));
        assertThat(a.labels()).containsOnlyKeys("alertname", "severity", "queue", "reason");
        assertThat(a.headline()).isEqualTo("Dead letter on mail.send with reason handler_error (5000 times)");
        assertThat(a.description()).isEqualTo("Latest: Dead letter on mail.send: handler_error (internal, "
                + "IllegalStateException), message m-4999. Seen: error_type NullPointerException, "
                + "IllegalStateException; failure_class internal");
        assertThat(grouper.openGroups()).isZero();
    }

    @Test
    void twoReasonsAreTwoAlertsInTheOrderTheyOpened() {
        grouper.add(dl("manual_review", "TemplateException", "a-1", T0), T0);
        grouper.add(dl("handler_error", "NullPointerException", "b-1", T0), T0);
        grouper.add(dl("manual_review", "TemplateException", "a-2", T0.plusSeconds(1)), T0.plusSeconds(1));

        List<Alert> alerts = grouper.drainDue(T0.plusSeconds(10));

        assertThat(alerts).extracting(a -> a.labels().get("reason"), Alert::severity, Alert::count)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("manual_review", Severity.TICKET, 2L),
                        org.assertj.core.groups.Tuple.tuple("handler_error", Severity.PAGE, 1L));
        assertThat(alerts.get(0).examples()).containsExactly("a-1", "a-2");
        // one occurrence describes itself
        assertThat(alerts.get(1).description())
                .isEqualTo("Dead letter on mail.send: handler_error (internal, NullPointerException), message b-1");
    }

    @Test
    void theWindowClosesWhenTimeReachesGroupWait() {
        grouper.add(dl("handler_error", "E", "m-1", T0), T0);
        grouper.add(dl("handler_error", "E", "m-2", T0.plusSeconds(9)), T0.plusSeconds(9));

        assertThat(grouper.drainDue(T0.plusMillis(9_999))).isEmpty();
        assertThat(grouper.nextDue()).contains(T0.plusSeconds(10));
        assertThat(grouper.drainDue(T0.plusSeconds(10))).singleElement()
                .extracting(Alert::count).isEqualTo(2L);
        assertThat(grouper.drainDue(T0.plusSeconds(60))).isEmpty();
    }

    @Test
    void windowsFollowTheTimePassedInNotTheOccurrenceTime() {
        // a dead letter swept today that failed yesterday does not close its window at once
        Instant yesterday = T0.minus(Duration.ofDays(1));
        grouper.add(dl("handler_error", "E", "old", yesterday), T0);
        assertThat(grouper.drainDue(T0.plusSeconds(5))).isEmpty();
        Alert a = grouper.drainDue(T0.plusSeconds(10)).get(0);
        assertThat(a.firstAt()).isEqualTo(yesterday);
    }

    @Test
    void theSameLabelsAreNotAlertedAgainWithinTheGroupInterval() {
        grouper.add(dl("handler_error", "E", "m-1", T0), T0);
        assertThat(grouper.drainDue(T0.plusSeconds(10))).hasSize(1);

        // the problem goes on: later arrivals are collected until a minute after the last alert
        for (int s = 11; s < 70; s++) {
            grouper.add(dl("handler_error", "E", "m-" + s, T0.plusSeconds(s)), T0.plusSeconds(s));
        }
        assertThat(grouper.drainDue(T0.plusSeconds(69))).isEmpty();
        assertThat(grouper.drainDue(T0.plusSeconds(70))).singleElement().extracting(Alert::count).isEqualTo(59L);

        // after a quiet interval, a new arrival is a new problem: reported after group wait again
        Instant later = T0.plusSeconds(300);
        grouper.add(dl("handler_error", "E", "m-late", later), later);
        assertThat(grouper.drainDue(later.plusSeconds(9))).isEmpty();
        assertThat(grouper.drainDue(later.plusSeconds(10))).hasSize(1);
    }

    @Test
    void detailValuesAreBoundedAndSaySoWhenCut() {
        for (int i = 0; i < 8; i++) {
            grouper.add(dl("handler_error", "Error" + i, "m-" + i, T0), T0);
        }
        Alert a = grouper.drainDue(T0.plusSeconds(10)).get(0);
        assertThat(a.description()).contains("error_type Error0, Error1, Error2, Error3, Error4, ...;")
                .doesNotContain("Error5,");
    }

    @Test
    void drainAllEmptiesEveryGroupDueOrNot() {
        grouper.add(dl("handler_error", "E", "m-1", T0), T0);
        grouper.add(dl("poison", "E", "m-2", T0), T0);
        assertThat(grouper.drainAll()).hasSize(2);
        assertThat(grouper.openGroups()).isZero();
    }
}
