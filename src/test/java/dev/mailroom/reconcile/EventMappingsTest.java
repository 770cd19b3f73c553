package dev.mailroom.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every provider fixture normalises to the events it names (the fields it lists; the rest are free). */
class EventMappingsTest {

    static Stream<ProviderFixtures.Fixture> fixtures() {
        return ProviderFixtures.all().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    void a_fixture_normalises_to_its_expected_events(ProviderFixtures.Fixture f) throws Exception {
        List<TrackingEvent> events = EventNormaliser.normalise(f.profile(), f.body());
        assertThat(events).hasSize(f.expect().size());
        for (int i = 0; i < events.size(); i++) {
            TrackingEvent e = events.get(i);
            JsonNode x = f.expect().get(i);
            assertThat(e.eventType().name()).as("event %d type", i).isEqualTo(x.path("event_type").asText());
            expectText(x, "recipient", e.recipient(), i);
            expectText(x, "message_id", e.messageId(), i);
            expectText(x, "provider_message_id", e.providerMessageId(), i);
            expectText(x, "description", e.description(), i);
            expectText(x, "mta_response", e.mtaResponse(), i);
            if (x.has("timestamp")) {
                assertThat(e.timestamp()).as("event %d timestamp", i).isEqualTo(Instant.parse(x.get("timestamp").asText()));
            }
            if (x.has("tags")) {
                List<String> tags = new ArrayList<>();
                x.get("tags").forEach(t -> tags.add(t.asText()));
                assertThat(e.tags()).as("event %d tags", i).isEqualTo(tags);
            }
        }
    }

    private static void expectText(JsonNode x, String field, String actual, int i) {
        if (x.has(field)) {
            assertThat(actual).as("event %d %s", i, field).isEqualTo(x.get(field).asText());
        }
    }

    @Test
    void an_sns_subscription_confirmation_carries_no_events() throws Exception {
        byte[] body = new ObjectMapper().writeValueAsBytes(new ObjectMapper().createObjectNode()
                .put("Type", "SubscriptionConfirmation").put("MessageId", "x").put("Message", "You have chosen to subscribe"));
        assertThat(EventNormaliser.normalise("ses", body)).isEmpty();
    }

    @Test
    void a_provider_event_naming_no_message_is_unreadable() {
        assertThatThrownBy(() -> EventNormaliser.normalise("postmark", ProviderFixtures.utf8("{\"RecordType\":\"Delivery\",\"Recipient\":\"a@b.c\"}")))
                .isInstanceOf(EventNormaliser.Unreadable.class).hasMessageContaining("neither");
        assertThatThrownBy(() -> EventNormaliser.normalise("sendgrid", ProviderFixtures.utf8("[{\"email\":\"a@b.c\",\"smtp-id\":\"<x@y>\"}]")))
                .isInstanceOf(EventNormaliser.Unreadable.class).hasMessageContaining("without a type");
    }

    @Test
    void every_profile_that_takes_webhooks_is_normalised() {
        assertThat(EventNormaliser.PROFILES).containsExactlyInAnyOrder("generic", "ses", "sendgrid", "mailgun", "postmark", "resend");
    }

    @Test
    void timestamps_in_every_provider_format_are_read() {
        assertThat(EventMappings.timestamp("1513299569")).isEqualTo(Instant.parse("2017-12-15T00:59:29Z"));
        assertThat(EventMappings.timestamp("1529006854.329574")).isEqualTo(Instant.parse("2018-06-14T20:07:34.330Z"));
        assertThat(EventMappings.timestamp("2024-11-22T23:41:11.894719+00:00")).isEqualTo(Instant.parse("2024-11-22T23:41:11.894719Z"));
        assertThat(EventMappings.timestamp("yesterday")).isNull();
    }
}
