package dev.mailroom.deadletter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mailroom.platform.Json;
import dev.mailroom.platform.Refused;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The one dead-letter filter: its fields, their rules, how text and JSON become it and what is refused. */
class DeadLetterFilterTest {

    private static final ObjectMapper JSON = Json.snakeCaseMapper();

    /** One value of every field, as text. */
    private static Map<String, String> everyField() {
        Map<String, String> v = new HashMap<>();
        for (String name : DeadLetterFilter.NAMES) {
            v.put(name, switch (name) {
                case "from" -> "2026-12-01T10:00:00Z";
                case "to" -> "2026-12-01T11:00:00Z";
                case "ids" -> "3,4";
                case "status" -> "open";
                default -> name + "-value";
            });
        }
        return v;
    }

    /** The rule of each field, one row each: the list, its groups and a plan select by these. */
    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({
        "queue, EXACT", "reason, EXACT", "failure_class, EXACT", "error_type, EXACT", "consumer_version, EXACT",
        "status, EXACT", "campaign_id, CONTAINS", "tenant, CONTAINS", "provider, EXACT", "message_id, EXACT",
        "recipient, RECIPIENT", "fingerprint, EXACT", "from, FROM", "to, TO", "ids, IDS",
    })
    void eachFieldHasOneRule(String name, DeadLetterFilter.Match rule) {
        DeadLetterFilter.Field field = Arrays.stream(DeadLetterFilter.Field.values())
                .filter(f -> f.wireName.equals(name)).findFirst().orElseThrow();
        assertThat(field.match).isEqualTo(rule);
    }

    @Test
    void theRowsAboveAreEveryField() {
        assertThat(DeadLetterFilter.NAMES).containsExactly("queue", "reason", "failure_class", "error_type",
                "consumer_version", "status", "campaign_id", "tenant", "provider", "message_id", "recipient",
                "fingerprint", "from", "to", "ids");
    }

    @Test
    void everyFieldOfTheListIsAFieldOfThePlanByName() throws Exception {
        DeadLetterFilter list = DeadLetterFilter.of(everyField());
        for (DeadLetterFilter.Field f : DeadLetterFilter.Field.values()) {
            assertThat(f.of(list)).as(f.wireName).isNotNull();
        }
        // a plan's body, JMX and the stored record are this type as JSON, under the same names
        String json = JSON.writeValueAsString(list);
        assertThat(JSON.readTree(json).fieldNames()).toIterable().containsExactlyInAnyOrderElementsOf(
                DeadLetterFilter.NAMES);
        assertThat(JSON.readValue(json, DeadLetterFilter.class)).isEqualTo(list);
        assertThat(list.recipient()).isEqualTo("recipient-value");
        assertThat(list.messageId()).isEqualTo("message_id-value");
        assertThat(list.from()).isEqualTo(Instant.parse("2026-12-01T10:00:00Z"));
        assertThat(list.ids()).containsExactly(3L, 4L);
    }

    @Test
    void textIsTrimmedAndBlankIsNoFilter() {
        DeadLetterFilter f = DeadLetterFilter.of(Map.of("queue", "  mail.send ", "recipient", "   ", "tenant", ""));
        assertThat(f.queue()).isEqualTo("mail.send");
        assertThat(f.recipient()).isNull();
        assertThat(f.tenant()).isNull();
        assertThat(DeadLetterFilter.of(Map.of("recipient", " ")).matchesEverything()).isTrue();
        assertThat(DeadLetterFilter.ANY.matchesEverything()).isTrue();
        assertThat(DeadLetterFilter.of(Map.of("message_id", "m-1")).matchesEverything()).isFalse();
    }

    /** Bad values: refused with the field's name as the error and in the reason. */
    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "from   | yesterday            | invalid_from   | from is not an ISO-8601 instant",
        "to     | 2026-13-01T00:00:00Z | invalid_to     | to is not an ISO-8601 instant",
        "ids    | 3,x                  | invalid_ids    | ids is a comma-separated list",
        "status | opened               | invalid_status | status is one of [open, replaying, replayed, discarded, expired]",
    })
    void aBadValueIsRefusedWithItsName(String name, String value, String error, String reason) {
        assertThatThrownBy(() -> DeadLetterFilter.of(Map.of(name, value)))
                .isInstanceOfSatisfying(Refused.Invalid.class, e -> assertThat(e.reason()).isEqualTo(error))
                .hasMessageContaining(reason);
    }

    @Test
    void anEmptyWindowAndABadListOfIdsAreRefusedWhereverTheFilterCameFrom() throws Exception {
        assertThatThrownBy(() -> DeadLetterFilter.of(Map.of("from", "2026-12-01T10:00:00Z",
                "to", "2026-12-01T10:00:00Z"))).isInstanceOf(Refused.Invalid.class).hasMessageContaining("after from");
        DeadLetterFilter fromJson = JSON.readValue("{\"ids\": []}", DeadLetterFilter.class);
        assertThatThrownBy(fromJson::checked).isInstanceOf(Refused.Invalid.class).hasMessageContaining("ids");
        DeadLetterFilter withNull = JSON.readValue("{\"ids\": [1, null]}", DeadLetterFilter.class);
        assertThatThrownBy(withNull::checked).isInstanceOf(Refused.Invalid.class);
    }

    @Test
    void whatTheCountsAnswer() {
        assertThat(DeadLetterFilter.of(Map.of("queue", "q", "status", "open", "fingerprint", "x")).countedOnly())
                .isTrue();
        DeadLetterFilter window = DeadLetterFilter.of(Map.of("queue", "q", "from", "2026-12-01T10:00:00Z"));
        assertThat(window.countedOnly()).isFalse();
        assertThat(window.windowCountedOnly()).isTrue();
        for (String name : List.of("campaign_id", "tenant", "provider", "message_id", "recipient", "ids")) {
            DeadLetterFilter f = DeadLetterFilter.of(Map.of(name, name.equals("ids") ? "1" : "v"));
            assertThat(f.windowCountedOnly()).as(name).isFalse();
        }
    }

    @Test
    void withersChangeOneFieldOnly() {
        DeadLetterFilter f = DeadLetterFilter.of(everyField());
        assertThat(f.withQueue("mail.send.bulk")).isEqualTo(DeadLetterFilter.of(with(everyField(), "queue",
                "mail.send.bulk")));
        assertThat(f.withStatus(null).status()).isNull();
        assertThat(f.withIds(List.of(9L)).ids()).containsExactly(9L);
        assertThat(DeadLetterFilter.ofIds(List.of(7L))).isEqualTo(DeadLetterFilter.of(Map.of("ids", "7")));
    }

    private static Map<String, String> with(Map<String, String> m, String k, String v) {
        m.put(k, v);
        return m;
    }
}
