package dev.mailroom.alert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.ops.testing.MovableClock;
import dev.mailroom.send.LateOutcomes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** {@link UnrecordedOutcomeAlerts}: carries out the rule on what this node's memory holds, naming the node. */
class UnrecordedOutcomeAlertsTest {

    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    /** What waits, as the test says. */
    static final class Waiting extends LateOutcomes {
        int count;
        Instant since;

        @Override
        public int waiting() {
            return count;
        }

        @Override
        public Optional<Instant> oldestWaitingSince() {
            return Optional.ofNullable(since);
        }
    }

    /** The in-memory dispatcher, recording what is raised. */
    static final class Raised extends AlertService {
        final List<AlertEvent> events = new ArrayList<>();

        @Override
        public boolean raise(AlertEvent event) {
            events.add(event);
            return true;
        }
    }

    @Test
    void anOutcomeUnrecordedPastTheLimitRaisesATicketNamingTheNodeAgainWhileItLastsAndNotAfter() {
        Waiting waiting = new Waiting();
        Raised raised = new Raised();
        MovableClock clock = new MovableClock(Clock.fixed(T0, ZoneOffset.UTC));
        UnrecordedOutcomeAlerts a = new UnrecordedOutcomeAlerts();
        a.outcomes = waiting;
        a.alerts = raised;
        a.clock = clock;
        a.node = "mailroom-2";
        a.after = Duration.ofMinutes(10);

        waiting.count = 2;
        waiting.since = T0;
        clock.offset(Duration.ofMinutes(9));
        a.check();
        assertThat(raised.events).as("not yet past the limit").isEmpty();

        clock.offset(Duration.ofMinutes(11));
        a.check();
        a.check();
        assertThat(raised.events).hasSize(1);
        AlertEvent e = raised.events.get(0);
        RoutedAlert r = AlertRouting.defaults().route(e);
        assertThat(r.alertLabels()).containsEntry("alertname", "OutcomesUnrecorded").containsEntry("severity", "ticket")
                .containsEntry("instance", "mailroom-2");
        assertThat(e.summary()).isEqualTo("2 attempt outcome(s) known to mailroom-2 are not recorded, the oldest for 11m:"
                + " only its memory holds them; do not stop or restart it, its log says why each record waits");

        clock.offset(Duration.ofMinutes(21));
        a.check();
        assertThat(raised.events).as("raised again a limit later").hasSize(2);

        waiting.count = 0;
        waiting.since = null;
        List<String> logged = new ArrayList<>();
        Logger log = Logger.getLogger(UnrecordedOutcomeAlerts.class.getName());
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                logged.add(r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(h);
        try {
            a.check();
            a.check();
        } finally {
            log.removeHandler(h);
        }
        assertThat(logged).as("the end is logged once").containsExactly(
                "no outcome known to mailroom-2 has waited longer than 10m for its record any more (0 wait):"
                        + " OutcomesUnrecorded is over");
        waiting.count = 1;
        waiting.since = clock.instant();
        clock.offset(Duration.ofMinutes(26));
        a.check();
        assertThat(raised.events).as("resolved; the newer one is not overdue").hasSize(2);
        clock.offset(Duration.ofMinutes(32));
        a.check();
        assertThat(raised.events).as("a new overdue one raises it afresh").hasSize(3);
    }
}
