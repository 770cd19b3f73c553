package dev.mailroom.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class UnsubscribeRuleTest {

    static Stream<Arguments> decisions() {
        return Stream.of(
                Arguments.of("mail.send.bulk", true, false, false),
                Arguments.of("mail.send.bulk", true, true, true),
                Arguments.of("mail.send.bulk", false, false, true),
                Arguments.of("mail.send", false, false, true),
                Arguments.of("mail.send", true, false, false),
                Arguments.of("mail.send", false, true, true));
    }

    @ParameterizedTest(name = "{0} required={1} present={2}: allowed={3}")
    @MethodSource("decisions")
    void aJobWithoutUnsubscribeIsRefusedOnlyWhereItIsRequired(String queue, boolean required, boolean present,
                                                              boolean allowed) {
        UnsubscribeRule.Decision d = UnsubscribeRule.decide(queue, required, present);
        if (allowed) {
            assertThat(d).isInstanceOf(UnsubscribeRule.Allowed.class);
        } else {
            assertThat(d).isInstanceOfSatisfying(UnsubscribeRule.Refused.class, r -> {
                assertThat(r.reason()).isEqualTo(RejectReason.missing_unsubscribe);
                assertThat(r.violation()).startsWith("/unsubscribe: is required on the bulk queue " + queue)
                        .contains("https").contains("RFC 8058")
                        .contains("mailroom.bulk.require-unsubscribe." + queue + "=false");
            });
        }
    }

    @Test
    void onlyTheBulkQueueRequiresItByDefault() {
        assertThat(UnsubscribeRule.requiredByDefault("mail.send.bulk")).isTrue();
        assertThat(UnsubscribeRule.requiredByDefault("mail.send")).isFalse();
        assertThat(UnsubscribeRule.requiredByDefault("mail.send.bulk.eu")).isFalse();
    }

    @Test
    void theHeadersPutTheOneClickUrlFirstAndTheMailtoAfter() {
        assertThat(new Unsubscribe("https://shop.example/u", "u@shop.example").headers()).containsExactly(
                Map.entry("List-Unsubscribe", "<https://shop.example/u>, <mailto:u@shop.example>"),
                Map.entry("List-Unsubscribe-Post", "List-Unsubscribe=One-Click"));
        assertThat(new Unsubscribe("https://shop.example/u", null).headers())
                .containsEntry("List-Unsubscribe", "<https://shop.example/u>");
    }
}
