package dev.mailroom.ops.jmx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mailroom.deadletter.DeadLetterFilter;
import dev.mailroom.platform.Refused;
import dev.mailroom.platform.Json;
import dev.mailroom.redrive.RedriveRequest;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class JmxRequestsTest {

    private final ObjectMapper mapper = Json.snakeCaseMapper();

    @Test
    void anEmptyFilterSelectsTheWholeQueue() {
        for (String empty : new String[] {null, "", "  ", "{}"}) {
            RedriveRequest r = JmxRequests.forQueue(empty, "mail.send", mapper);
            assertThat(r.filter().queue()).isEqualTo("mail.send");
            assertThat(r.filter().reason()).isNull();
            assertThat(r.action()).isNull();
        }
    }

    @Test
    void aFilterGetsThisQueue() {
        RedriveRequest r = JmxRequests.forQueue("""
                {"reason": "poison", "failure_class": "poison", "from": "2030-01-01T00:00:00Z", "ids": [3, 4]}""",
                "mail.send.bulk", mapper);
        assertThat(r.filter().queue()).isEqualTo("mail.send.bulk");
        assertThat(r.filter().reason()).isEqualTo("poison");
        assertThat(r.filter().failureClass()).isEqualTo("poison");
        assertThat(r.filter().from()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
        assertThat(r.filter().ids()).containsExactly(3L, 4L);
        assertThat(r.reason()).isNull(); // "reason" in a bare filter is the dead letters' reason
    }

    @Test
    void aWholeRequestKeepsItsOptionsAndGetsThisQueue() {
        RedriveRequest r = JmxRequests.forQueue("""
                {"action": "discard", "filter": {"tenant": "shop-eu", "queue": "mail.send"},
                 "sample_size": 5, "rate_per_second": 2.5, "reason": "spam run"}""", "mail.send", mapper);
        assertThat(r.action()).isEqualTo("discard");
        assertThat(r.filter().queue()).isEqualTo("mail.send");
        assertThat(r.filter().tenant()).isEqualTo("shop-eu");
        assertThat(r.sampleSize()).isEqualTo(5);
        assertThat(r.ratePerSecond()).isEqualTo(2.5);
        assertThat(r.reason()).isEqualTo("spam run");

        RedriveRequest noFilter = JmxRequests.forQueue("{\"action\": \"replay\"}", "mail.send", mapper);
        assertThat(noFilter.filter().queue()).isEqualTo("mail.send");
    }

    @Test
    void aListsFilterIsAJmxPlansFilterFieldForField() throws Exception {
        DeadLetterFilter list = DeadLetterFilter.of(java.util.Map.of("recipient", "policy571-1@example.test",
                "message_id", "m-1", "campaign_id", "spring", "status", "open"));
        RedriveRequest r = JmxRequests.forQueue(mapper.writeValueAsString(list), "mail.send", mapper);
        assertThat(r.filter()).isEqualTo(list.withQueue("mail.send"));
        assertThat(r.filter().recipient()).isEqualTo("policy571-1@example.test");
        assertThat(r.filter().messageId()).isEqualTo("m-1");
    }

    @Test
    void anotherQueueIsRefused() {
        assertThatThrownBy(() -> JmxRequests.forQueue("{\"queue\": \"mail.send.bulk\"}", "mail.send", mapper))
                .isInstanceOf(Refused.Invalid.class)
                .hasMessageContaining("mail.send.bulk");
    }

    @Test
    void whatIsNotAFilterIsRefusedWithTheReason() {
        assertThatThrownBy(() -> JmxRequests.forQueue("reason=poison", "mail.send", mapper))
                .isInstanceOf(Refused.class).hasMessageContaining("not JSON");
        assertThatThrownBy(() -> JmxRequests.forQueue("[1]", "mail.send", mapper))
                .isInstanceOf(Refused.class).hasMessageContaining("JSON object");
        assertThatThrownBy(() -> JmxRequests.forQueue("{\"reasn\": \"poison\"}", "mail.send", mapper))
                .isInstanceOf(Refused.class).hasMessageContaining("reasn");
        assertThatThrownBy(() -> JmxRequests.forQueue("{\"from\": \"yesterday\"}", "mail.send", mapper))
                .isInstanceOf(Refused.class).hasMessageContaining("not a redrive filter");
    }
}
