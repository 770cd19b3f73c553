package dev.mailroom.recoverability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.recoverability.LateOutcomePolicy.Facts;
import dev.mailroom.recoverability.LateOutcomePolicy.Known;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link LateOutcomePolicy}: every row, and every action reachable. */
class LateOutcomePolicyTest {

    static Stream<Arguments> rows() {
        return Stream.of(
                // the worker never wrote the mail
                Arguments.of("not written, no redelivery yet", new Facts(Known.NOT_WRITTEN, true, "sending", false),
                        LateOutcomePolicy.TakeBack.class),
                Arguments.of("not written, a redelivery held it unknown for this attempt",
                        new Facts(Known.NOT_WRITTEN, false, "unknown", true), LateOutcomePolicy.SendAgain.class),
                Arguments.of("not written, unknown for a later attempt", new Facts(Known.NOT_WRITTEN, false, "unknown", false),
                        LateOutcomePolicy.Nothing.class),
                Arguments.of("not written, an operator already sent it again and it went",
                        new Facts(Known.NOT_WRITTEN, false, "sent_to_provider", false), LateOutcomePolicy.Nothing.class),
                Arguments.of("not written, closed and dead-lettered since", new Facts(Known.NOT_WRITTEN, false, "dead_lettered",
                        false), LateOutcomePolicy.Nothing.class),
                // the provider accepted the mail
                Arguments.of("accepted, no redelivery yet", new Facts(Known.ACCEPTED, true, "sending", false),
                        LateOutcomePolicy.RecordSent.class),
                Arguments.of("accepted, a redelivery held it unknown for this attempt",
                        new Facts(Known.ACCEPTED, false, "unknown", true), LateOutcomePolicy.RecordSent.class),
                Arguments.of("accepted, and the acceptance's commit had landed after all",
                        new Facts(Known.ACCEPTED, false, "sent_to_provider", false), LateOutcomePolicy.Nothing.class),
                Arguments.of("accepted, already delivered by a webhook", new Facts(Known.ACCEPTED, false, "delivered", false),
                        LateOutcomePolicy.Nothing.class),
                Arguments.of("accepted, an operator marked the unknown job sent", new Facts(Known.ACCEPTED, false,
                        "sent_to_provider", false), LateOutcomePolicy.Nothing.class),
                Arguments.of("accepted, closed and then unknown for a later attempt",
                        new Facts(Known.ACCEPTED, false, "unknown", false), LateOutcomePolicy.Nothing.class));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void decides(String row, Facts facts, Class<? extends LateOutcomePolicy.Action> expected) {
        LateOutcomePolicy.Action action = LateOutcomePolicy.decide(facts);
        assertThat(action).as(row).isInstanceOf(expected);
        assertThat(action.describe()).isNotBlank();
    }

    @Test
    void everyActionIsReachable() {
        Set<Class<?>> reached = rows().map(a -> LateOutcomePolicy.decide((Facts) a.get()[1]).getClass())
                .collect(Collectors.toSet());
        assertThat(reached).containsExactlyInAnyOrder(LateOutcomePolicy.Action.class.getPermittedSubclasses());
    }

    @Test
    void aFactWithoutItsPartsIsRefused() {
        assertThatThrownBy(() -> new Facts(null, true, "sending", false)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new Facts(Known.ACCEPTED, true, null, false)).isInstanceOf(NullPointerException.class);
    }
}
