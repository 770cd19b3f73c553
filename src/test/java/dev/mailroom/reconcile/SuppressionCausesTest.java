package dev.mailroom.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.suppression.SuppressionReason;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link SuppressionCauses}: which events suppress their recipient, row by row. */
class SuppressionCausesTest {

    @ParameterizedTest(name = "{0} ({1}) -> {2}")
    @CsvSource({
            // event,      reject_reason, suppression reason (empty: none)
            "bounced,      ,              hard_bounce",
            "complained,   ,              complaint",
            "unsubscribed, ,              provider_suppression",
            "rejected,     bounced,       provider_suppression",
            "rejected,     spam,          provider_suppression",
            "rejected,     unsubscribed,  provider_suppression",
            "rejected,     suppressed,    provider_suppression",
            "rejected,     invalid,       ",
            "rejected,     blocked,       ",
            "rejected,     ,              ",
            "deferred,     ,              ",
            "delivered,    ,              ",
            "failed,       bounced,       ",
            "opened,       ,              ",
            "unknown,      ,              "})
    void row(EventType type, String rejectReason, SuppressionReason expected) {
        assertThat(SuppressionCauses.of(type, rejectReason)).isEqualTo(Optional.ofNullable(expected));
    }

    @Test
    void everyReasonAnEventCanGiveIsReached() {
        Set<SuppressionReason> reached = new HashSet<>();
        for (EventType t : EventType.values()) {
            for (String r : new String[] {null, "bounced", "spam", "unsubscribed", "suppressed", "invalid"}) {
                SuppressionCauses.of(t, r).ifPresent(reached::add);
            }
        }
        // manual is an operator's entry, never an event's
        assertThat(reached).isEqualTo(EnumSet.complementOf(EnumSet.of(SuppressionReason.manual)));
    }

    @Test
    void theDeliveryTransitionsFlagAgreesWithTheTable() {
        for (EventType t : EventType.values()) {
            assertThat(DeliveryTransitions.suppresses(t)).as(t.name()).isEqualTo(SuppressionCauses.of(t, null).isPresent());
        }
    }
}
