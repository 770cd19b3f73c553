package dev.mailroom.ops.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.deadletter.DeadLetterFilter;
import dev.mailroom.platform.Refused;
import jakarta.ws.rs.core.MultivaluedHashMap;
import jakarta.ws.rs.core.MultivaluedMap;
import java.time.Instant;
import java.util.Set;
import java.util.function.BinaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The list's query string as the one filter: every field by its wire name, bad values and unknown names refused. */
class DeadLetterFilterParamTest {

    private static final Set<String> LIST = Set.of("after", "offset", "limit");
    private static final BinaryOperator<String> AS_GIVEN = (name, given) -> given;

    private static MultivaluedMap<String, String> query(String... nameValues) {
        MultivaluedMap<String, String> q = new MultivaluedHashMap<>();
        for (int i = 0; i < nameValues.length; i += 2) {
            q.add(nameValues[i], nameValues[i + 1]);
        }
        return q;
    }

    @Test
    void everyFieldBindsByItsWireName() {
        DeadLetterFilter f = DeadLetterFilterParam.filter(query("queue", "mail.send",
                "recipient", "policy571-1@example.test", "message_id", "m-1", "campaign_id", "spring",
                "from", "2026-12-01T10:00:00Z", "status", "open", "ids", "5, 6", "limit", "50"), LIST, AS_GIVEN);
        assertThat(f.queue()).isEqualTo("mail.send");
        assertThat(f.recipient()).isEqualTo("policy571-1@example.test");
        assertThat(f.messageId()).isEqualTo("m-1");
        assertThat(f.campaignId()).isEqualTo("spring");
        assertThat(f.from()).isEqualTo(Instant.parse("2026-12-01T10:00:00Z"));
        assertThat(f.status()).isEqualTo("open");
        assertThat(f.ids()).containsExactly(5L, 6L);
        for (String name : DeadLetterFilter.NAMES) {
            MultivaluedMap<String, String> one = query(name, name.equals("ids") ? "1"
                    : name.equals("from") || name.equals("to") ? "2026-12-01T10:00:00Z"
                    : name.equals("status") ? "open" : "v");
            assertThat(DeadLetterFilterParam.filter(one, LIST, AS_GIVEN).matchesEverything()).as(name).isFalse();
        }
    }

    @ParameterizedTest(name = "{0}={1} -> {2}")
    @CsvSource(delimiter = '|', value = {
        "from      | yesterday | invalid_from   | from is not an ISO-8601 instant",
        "to        | 12:00     | invalid_to     | to is not an ISO-8601 instant",
        "ids       | one       | invalid_ids    | ids is a comma-separated list",
        "status    | opened    | invalid_status | status is one of",
        "recipent  | a@b.c     | invalid_filter | unknown parameter recipent",
        "messageId | m-1       | invalid_filter | the filters are queue, reason",
    })
    void aBadParameterIsRefusedWithTheReason(String name, String value, String error, String reason) {
        assertThatThrownBy(() -> DeadLetterFilterParam.filter(query(name, value), LIST, AS_GIVEN))
                .isInstanceOfSatisfying(Refused.Invalid.class, e -> assertThat(e.reason()).isEqualTo(error))
                .hasMessageContaining(reason);
    }

    @Test
    void aFieldGivenTwiceIsRefused() {
        assertThatThrownBy(() -> DeadLetterFilterParam.filter(query("queue", "a", "queue", "b"), LIST, AS_GIVEN))
                .isInstanceOfSatisfying(Refused.Invalid.class, e -> assertThat(e.reason()).isEqualTo("invalid_queue"))
                .hasMessageContaining("2 times");
    }

    @Test
    void anEndpointMayReadAFieldItsOwnWay() {
        BinaryOperator<String> groups = (name, given) -> !"status".equals(name) ? given
                : given == null ? "open" : "all".equals(given) ? null : given;
        assertThat(DeadLetterFilterParam.filter(query(), Set.of(), groups).status()).isEqualTo("open");
        assertThat(DeadLetterFilterParam.filter(query("status", "all"), Set.of(), groups).status()).isNull();
        assertThatThrownBy(() -> DeadLetterFilterParam.filter(query("limit", "5"), Set.of(), groups))
                .isInstanceOf(Refused.Invalid.class).hasMessageContaining("unknown parameter limit");
    }
}
