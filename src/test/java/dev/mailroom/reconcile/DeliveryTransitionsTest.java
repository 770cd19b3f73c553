package dev.mailroom.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.job.JobState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The delivery-state tables: every row is a case the reconciliation job must get right. */
class DeliveryTransitionsTest {

    static final Duration FRESH = Duration.ofSeconds(1);

    @ParameterizedTest(name = "{0}, recipient {1} + {2} -> {3} {4}")
    @CsvSource(nullValues = "-", value = {
            // job state,     recipient,  event,        action,     to,          suppress
            "sent_to_provider, -,          delivered,    Apply,      delivered,   false",
            "sent_to_provider, -,          bounced,      Apply,      bounced,     true",
            "sent_to_provider, -,          complained,   Apply,      complained,  true",
            "sent_to_provider, -,          deferred,     Apply,      deferred,    false",
            "sent_to_provider, -,          rejected,     Apply,      bounced,     false",
            "sent_to_provider, -,          failed,       Apply,      bounced,     false",
            "sent_to_provider, -,          opened,       RecordOnly, -,           false",
            "sent_to_provider, -,          queued,       RecordOnly, -,           false",
            "sent_to_provider, -,          unknown,      RecordOnly, -,           false",
            "sent_to_provider, deferred,   delivered,    Apply,      delivered,   false",
            "sent_to_provider, delivered,  deferred,     RecordOnly, -,           false",
            "sent_to_provider, delivered,  delivered,    RecordOnly, -,           false",
            "delivered,        delivered,  bounced,      Apply,      bounced,     true",
            "delivered,        delivered,  complained,   Apply,      complained,  true",
            "bounced,          bounced,    delivered,    RecordOnly, -,           false",
            "bounced,          bounced,    bounced,      RecordOnly, -,           true",
            "bounced,          -,          delivered,    Apply,      delivered,   false",
            "complained,       complained, bounced,      RecordOnly, -,           true",
            "complained,       complained, delivered,    RecordOnly, -,           false",
            "unknown,          -,          delivered,    Apply,      delivered,   false",
            "unknown,          -,          bounced,      Apply,      bounced,     true",
            "unknown,          -,          deferred,     Apply,      deferred,    false",
            "dead_lettered,    -,          delivered,    RecordOnly, -,           false",
            "discarded,        -,          bounced,      RecordOnly, -,           true",
            "bounced_permanent, -,         bounced,      RecordOnly, -,           true",
            "duplicate_suppressed, -,      delivered,    RecordOnly, -,           false",
            "received,         -,          delivered,    Wait,       -,           false",
            "sending,          -,          delivered,    Wait,       -,           false",
            "retry_scheduled,  -,          bounced,      Wait,       -,           false",
    })
    void row(JobState job, DeliveryState recipient, EventType event, String action, DeliveryState to, boolean suppress) {
        DeliveryTransitions.Action decided = DeliveryTransitions.decide(Optional.of(job), true, Optional.ofNullable(recipient), event, FRESH);
        assertThat(decided.getClass().getSimpleName()).isEqualTo(action);
        if (decided instanceof DeliveryTransitions.Apply apply) {
            assertThat(apply.to()).isEqualTo(to);
            assertThat(apply.suppress()).isEqualTo(suppress);
        } else if (decided instanceof DeliveryTransitions.RecordOnly record) {
            assertThat(record.suppress()).isEqualTo(suppress);
        }
    }

    @ParameterizedTest(name = "{0} with recipients [{1}] -> {2}")
    @CsvSource(nullValues = "-", value = {
            // job state,      recipients (space-separated), job after
            "sent_to_provider, -,                            sent_to_provider",
            "sent_to_provider, deferred,                     sent_to_provider",
            "sent_to_provider, deferred delivered,           delivered",
            "sent_to_provider, delivered bounced,            bounced",
            "sent_to_provider, complained delivered,         complained",
            "delivered,        delivered deferred,           delivered",
            "bounced,          delivered,                    bounced",
            "unknown,          -,                            unknown",
            "unknown,          deferred,                     sent_to_provider",
            "unknown,          delivered,                    delivered",
            "unknown,          bounced,                      bounced",
            "dead_lettered,    delivered,                    dead_lettered",
            "discarded,        bounced,                      discarded",
    })
    void roll_up(JobState job, String recipients, JobState after) {
        List<DeliveryState> states = recipients == null ? List.of()
                : java.util.Arrays.stream(recipients.split(" ")).map(DeliveryState::valueOf).toList();
        assertThat(DeliveryTransitions.rollUp(job, states)).isEqualTo(after);
    }

    @Test
    void an_event_before_its_job_waits_and_is_unmatched_only_after_the_patience() {
        assertThat(DeliveryTransitions.decide(Optional.empty(), true, Optional.empty(), EventType.delivered, FRESH))
                .isInstanceOf(DeliveryTransitions.Wait.class);
        assertThat(DeliveryTransitions.decide(Optional.empty(), true, Optional.empty(), EventType.delivered,
                DeliveryTransitions.MATCH_PATIENCE)).isInstanceOf(DeliveryTransitions.Unmatched.class);
        assertThat(DeliveryTransitions.decide(Optional.of(JobState.sending), true, Optional.empty(), EventType.bounced,
                DeliveryTransitions.MATCH_PATIENCE)).isEqualTo(new DeliveryTransitions.RecordOnly("job never left its send path", true));
    }

    @Test
    void an_event_for_someone_not_among_the_jobs_recipients_changes_nothing_and_suppresses_no_one() {
        assertThat(DeliveryTransitions.decide(Optional.of(JobState.sent_to_provider), false, Optional.empty(), EventType.bounced, FRESH))
                .isEqualTo(new DeliveryTransitions.RecordOnly("not a recipient of this job", false));
    }

    /**
     * Property: for random sets of events over two recipients (with duplicates), every order ends in the same
     * recipient states and job state, namely the worst each recipient's events imply.
     */
    @Test
    void events_in_any_order_with_duplicates_end_in_the_same_state() {
        Random random = new Random(11);
        EventType[] kinds = EventType.values();
        for (int set = 0; set < 300; set++) {
            List<Event> events = new ArrayList<>();
            int n = 2 + random.nextInt(6);
            for (int i = 0; i < n; i++) {
                events.add(new Event(random.nextInt(2), kinds[random.nextInt(kinds.length)]));
            }
            events.add(events.get(random.nextInt(events.size()))); // a duplicate
            JobState start = random.nextBoolean() ? JobState.sent_to_provider : JobState.unknown;
            Outcome expected = implied(start, events);
            for (List<Event> order : orders(events, random)) {
                assertThat(play(start, order)).as("start %s, order %s", start, order).isEqualTo(expected);
            }
        }
    }

    record Event(int recipient, EventType type) {
    }

    record Outcome(Map<Integer, DeliveryState> recipients, JobState job) {
    }

    /** What the events imply, computed without the decision: each recipient's worst state, the job the worst of those. */
    static Outcome implied(JobState start, List<Event> events) {
        Map<Integer, DeliveryState> worst = new java.util.TreeMap<>();
        for (Event e : events) {
            DeliveryState.of(e.type()).ifPresent(s -> worst.merge(e.recipient(), s, (a, b) -> a.compareTo(b) >= 0 ? a : b));
        }
        JobState job = start;
        Optional<DeliveryState> max = worst.values().stream().max(Enum::compareTo);
        if (max.isPresent()) {
            job = switch (max.get()) {
                case deferred -> JobState.sent_to_provider;
                case delivered -> JobState.delivered;
                case bounced -> JobState.bounced;
                case complained -> JobState.complained;
            };
        }
        return new Outcome(worst, job);
    }

    /** Carries the decisions out the way the Reconciler does: per recipient, then the roll-up. */
    static Outcome play(JobState start, List<Event> order) {
        Map<Integer, DeliveryState> recipients = new java.util.TreeMap<>();
        JobState job = start;
        for (Event e : order) {
            DeliveryTransitions.Action a = DeliveryTransitions.decide(Optional.of(job), true,
                    Optional.ofNullable(recipients.get(e.recipient())), e.type(), FRESH);
            if (a instanceof DeliveryTransitions.Apply apply) {
                recipients.put(e.recipient(), apply.to());
            }
            job = DeliveryTransitions.rollUp(job, recipients.values());
        }
        return new Outcome(recipients, job);
    }

    /** Every permutation of a small list; 200 random ones of a larger one. */
    static List<List<Event>> orders(List<Event> events, Random random) {
        List<List<Event>> out = new ArrayList<>();
        if (events.size() <= 6) {
            permute(new ArrayList<>(events), 0, out);
        } else {
            for (int i = 0; i < 200; i++) {
                List<Event> copy = new ArrayList<>(events);
                java.util.Collections.shuffle(copy, random);
                out.add(copy);
            }
        }
        return out;
    }

    private static void permute(List<Event> a, int k, List<List<Event>> out) {
        if (k == a.size()) {
            out.add(List.copyOf(a));
            return;
        }
        for (int i = k; i < a.size(); i++) {
            java.util.Collections.swap(a, k, i);
            permute(a, k + 1, out);
            java.util.Collections.swap(a, k, i);
        }
    }
}
