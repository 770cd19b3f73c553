package dev.mailroom.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.job.JobState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The delivery-state table: every row is a case the reconciliation job must get right. */
class DeliveryTransitionsTest {

    static final Duration FRESH = Duration.ofSeconds(1);

    @ParameterizedTest(name = "{0} + {1} -> {2}")
    @CsvSource({
            // job state,     event,        action,     to / why,               suppress
            "sent_to_provider, delivered,   Apply,      delivered,              false",
            "sent_to_provider, bounced,     Apply,      bounced,                true",
            "sent_to_provider, complained,  Apply,      complained,             true",
            "sent_to_provider, deferred,    RecordOnly, ,                       false",
            "sent_to_provider, opened,      RecordOnly, ,                       false",
            "unknown,          delivered,   Apply,      delivered,              false",
            "unknown,          bounced,     Apply,      bounced,                true",
            "delivered,        delivered,   RecordOnly, ,                       false",
            "delivered,        bounced,     Apply,      bounced,                true",
            "delivered,        complained,  Apply,      complained,             true",
            "bounced,          delivered,   RecordOnly, ,                       false",
            "bounced,          bounced,     RecordOnly, ,                       true",
            "complained,       bounced,     RecordOnly, ,                       true",
            "complained,       delivered,   RecordOnly, ,                       false",
            "dead_lettered,    delivered,   RecordOnly, ,                       false",
            "discarded,        bounced,     RecordOnly, ,                       true",
            "received,         delivered,   Wait,       ,                       false",
            "sending,          delivered,   Wait,       ,                       false",
            "retry_scheduled,  bounced,     Wait,       ,                       false",
    })
    void row(JobState job, EventType event, String action, JobState to, boolean suppress) {
        DeliveryTransitions.Action decided = DeliveryTransitions.decide(Optional.of(job), event, FRESH);
        assertThat(decided.getClass().getSimpleName()).isEqualTo(action);
        if (decided instanceof DeliveryTransitions.Apply apply) {
            assertThat(apply.to()).isEqualTo(to);
            assertThat(apply.suppress()).isEqualTo(suppress);
        } else if (decided instanceof DeliveryTransitions.RecordOnly record) {
            assertThat(record.suppress()).isEqualTo(suppress);
        }
    }

    @Test
    void an_event_before_its_job_waits_and_is_unmatched_only_after_the_patience() {
        assertThat(DeliveryTransitions.decide(Optional.empty(), EventType.delivered, FRESH))
                .isInstanceOf(DeliveryTransitions.Wait.class);
        assertThat(DeliveryTransitions.decide(Optional.empty(), EventType.delivered, DeliveryTransitions.MATCH_PATIENCE))
                .isInstanceOf(DeliveryTransitions.Unmatched.class);
    }

    /** Any order of the same events, with duplicates, ends in the same (worst) state. */
    @Test
    void events_in_any_order_with_duplicates_end_in_the_same_state() {
        Random random = new Random(11);
        List<EventType> events = new ArrayList<>(List.of(EventType.deferred, EventType.delivered, EventType.bounced,
                EventType.delivered, EventType.opened, EventType.deferred));
        for (int round = 0; round < 200; round++) {
            Collections.shuffle(events, random);
            JobState state = JobState.sent_to_provider;
            for (EventType event : events) {
                if (DeliveryTransitions.decide(Optional.of(state), event, FRESH) instanceof DeliveryTransitions.Apply apply) {
                    state = apply.to();
                }
            }
            assertThat(state).as("order %s", events).isEqualTo(JobState.bounced);
        }
    }
}
