package dev.mailroom.it.deadletter;

import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.it.support.AlertReceiver;
import dev.mailroom.it.support.ItEnvironment;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Alerts on dead-letter arrivals, to a webhook receiver on loopback (the IT server groups for 1 s and
 * calls 100 of one reason a burst): one page per arrival of a paging reason; a burst of 1,000 is one
 * burst page and a handful of grouped alerts whose counts add up; and sending goes on while the
 * receiver is down, which gets everything once it is back.
 */
@Tag("smtp")
class DeadLetterAlertsIT {

    private final ItEnvironment env = ItEnvironment.get();
    private final AlertReceiver receiver = env.alerts();

    @Test
    void eachArrivalOfAPagingReasonPages() {
        Instant start = Instant.now();
        String prefix = Jobs.runPrefix("page");
        for (int i = 0; i < 3; i++) {
            env.smtp().enqueueReply(554, "5.9.99 never seen before");
            env.jms().sendText("mail.send", Jobs.job(prefix + i));
            env.api().awaitJson("/api/v1/jobs/" + prefix + i, j -> "dead_lettered".equals(j.path("state").asText()),
                    Duration.ofSeconds(60));
            // the next arrival only once this one has paged: each arrival is its own alert, none is held back
            // to be grouped with the next
            int paged = i + 1;
            await(() -> unmappedPages(start), paged);
        }
        List<AlertReceiver.Received> pages = unmappedPages(start);
        assertThat(pages).hasSize(3);
        assertThat(pages).allMatch(a -> "page".equals(a.label("severity")) && a.count() == 1
                && "mail.send".equals(a.label("queue")));
        assertThat(receiver.since(start)).anyMatch(a -> "UnknownProviderCode".equals(a.label("alertname")));
    }

    @Test
    void aBurstIsOneBurstPageAndSendingGoesOnWhileTheReceiverIsDown() {
        Instant start = Instant.now();
        String prefix = Jobs.runPrefix("burst");
        receiver.down();
        try {
            List<String> poison = new java.util.ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                poison.add("{\"schema_version\": 1, \"message_id\": \"" + prefix + i + "\"}");
            }
            env.jms().sendAll("mail.send", poison);
            List<String> good = Jobs.ids(prefix + "good-", 5);
            int before = env.smtp().receivedCount();
            env.jms().sendAll("mail.send", Jobs.jobs(good));
            assertThat(env.smtp().awaitReceived(before + 5, Duration.ofMinutes(2)))
                    .as("sends go on while the alert receiver is down").isTrue();
            env.api().awaitJson("/api/v1/jobs/" + prefix + 999, j -> "dead_lettered".equals(j.path("state").asText()),
                    Duration.ofMinutes(2));
        } finally {
            receiver.up();
        }

        List<AlertReceiver.Received> arrived = await(() -> {
            List<AlertReceiver.Received> poisonAlerts = receiver.since(start).stream()
                    .filter(a -> "DeadLetterArrived".equals(a.label("alertname")))
                    .filter(a -> "poison".equals(a.label("reason"))).toList();
            long total = poisonAlerts.stream().mapToLong(AlertReceiver.Received::count).sum();
            return total >= 1000 ? poisonAlerts : List.of();
        }, 1);
        long total = arrived.stream().mapToLong(AlertReceiver.Received::count).sum();
        assertThat(total).isBetween(1000L, 1010L);
        assertThat(arrived.size()).as("grouped, not one alert per dead letter").isLessThanOrEqualTo(20);
        List<AlertReceiver.Received> bursts = receiver.since(start).stream()
                .filter(a -> "DeadLetterBurst".equals(a.label("alertname")))
                .filter(a -> "poison".equals(a.label("reason"))).toList();
        assertThat(bursts).hasSize(1);
        assertThat(bursts.get(0).label("severity")).isEqualTo("page");
        assertThat(bursts.get(0).label("queue")).isEqualTo("mail.send");
    }

    private List<AlertReceiver.Received> unmappedPages(Instant start) {
        return receiver.since(start).stream()
                .filter(a -> "DeadLetterArrived".equals(a.label("alertname")))
                .filter(a -> "unmapped_error".equals(a.label("reason"))).toList();
    }

    /** Polls (bounded) until {@code what} has at least {@code atLeast} alerts; fails if it never does. */
    private static List<AlertReceiver.Received> await(java.util.function.Supplier<List<AlertReceiver.Received>> what,
                                                      int atLeast) {
        return Awaitility.await("at least " + atLeast + " alerts")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(300))
                .until(what::get, got -> got.size() >= atLeast);
    }
}
