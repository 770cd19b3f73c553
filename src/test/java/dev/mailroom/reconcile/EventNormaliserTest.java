package dev.mailroom.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventNormaliserTest {

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void a_generic_event_becomes_the_anymail_model_with_the_recipient_normalised() throws Exception {
        List<TrackingEvent> events = EventNormaliser.normalise("generic", utf8("""
                {"event_type":"bounced","message_id":"m-1","provider_message_id":"p-1","recipient":" Alice@Example.COM ",
                 "timestamp":"2026-12-01T01:00:00Z","description":"mailbox gone","mta_response":"550 5.1.1",
                 "reject_reason":"bounced","tags":["reset"],"metadata":{"tenant":"acme"}}"""));
        assertThat(events).containsExactly(new TrackingEvent(EventType.bounced, "p-1", "m-1", "alice@example.com",
                Instant.parse("2026-12-01T01:00:00Z"), "mailbox gone", "550 5.1.1", "bounced", List.of("reset"),
                java.util.Map.of("tenant", "acme")));
    }

    @Test
    void a_batch_and_an_unknown_type_are_read() throws Exception {
        List<TrackingEvent> events = EventNormaliser.normalise("generic", utf8(
                "{\"events\":[{\"event_type\":\"delivered\",\"message_id\":\"a\"},{\"event_type\":\"teleported\",\"message_id\":\"b\"}]}"));
        assertThat(events).extracting(TrackingEvent::eventType).containsExactly(EventType.delivered, EventType.unknown);
    }

    @Test
    void unreadable_bodies_and_unmapped_profiles_are_refused_with_a_reason() {
        assertThatThrownBy(() -> EventNormaliser.normalise("generic", utf8("nope"))).hasMessageContaining("not JSON");
        assertThatThrownBy(() -> EventNormaliser.normalise("generic", utf8("{\"event_type\":\"delivered\"}")))
                .hasMessageContaining("neither message_id");
        assertThatThrownBy(() -> EventNormaliser.normalise("generic", utf8("{\"events\":[]}"))).hasMessageContaining("no events");
        assertThatThrownBy(() -> EventNormaliser.normalise("smtp", utf8("[]"))).hasMessageContaining("no mapping");
    }
}
