package dev.mailroom.recoverability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.recoverability.SuppressionDecision.Withheld;
import dev.mailroom.recoverability.SuppressionFacts.Match;
import dev.mailroom.recoverability.SuppressionFacts.Recipient;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link SuppressionPolicy}: every row of the table, and every decision reachable. */
class SuppressionPolicyTest {

    private static final Instant SINCE = Instant.parse("2026-11-30T10:00:00Z");
    private static final Match BOUNCE = new Match(5, "hard_bounce", SINCE, "hard_bounce reported by provider event 9 about job a-1");
    private static final Match MANUAL = new Match(6, "manual", SINCE, "added by operator: asked to be left alone");

    private static Recipient mailed(int position, String address) {
        return new Recipient(position, address, null, false);
    }

    private static Recipient listed(int position, String address, Match m) {
        return new Recipient(position, address, m, false);
    }

    private static Withheld withheld(int position, String address, Match m) {
        return new Withheld(position, address, m.id(), m.reason(), m.since(), m.cause(), true);
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                // nobody on the list: sent as it is
                Arguments.of("one recipient, not listed", List.of(mailed(0, "a@x.io")), new SuppressionDecision.SendToAll()),
                Arguments.of("no recipients (nothing to decide)", List.of(), new SuppressionDecision.SendToAll()),
                // everybody on the list: the job ends suppressed, no provider call
                Arguments.of("the only recipient hard-bounced", List.of(listed(0, "a@x.io", BOUNCE)),
                        new SuppressionDecision.SuppressAll(List.of(withheld(0, "a@x.io", BOUNCE)))),
                Arguments.of("to and cc both listed", List.of(listed(0, "a@x.io", BOUNCE), listed(1, "b@x.io", MANUAL)),
                        new SuppressionDecision.SuppressAll(List.of(withheld(0, "a@x.io", BOUNCE), withheld(1, "b@x.io", MANUAL)))),
                // some on the list: the others only
                Arguments.of("one of two listed", List.of(listed(0, "a@x.io", BOUNCE), mailed(1, "b@x.io")),
                        new SuppressionDecision.SendToOthers(List.of(withheld(0, "a@x.io", BOUNCE)), 1)),
                Arguments.of("the bcc listed", List.of(mailed(0, "a@x.io"), mailed(1, "b@x.io"), listed(2, "c@x.io", MANUAL)),
                        new SuppressionDecision.SendToOthers(List.of(withheld(2, "c@x.io", MANUAL)), 2)),
                // withheld by an earlier delivery of the job: stays withheld, even when lifted since (no new record)
                Arguments.of("a retry, suppression lifted since", List.of(new Recipient(0, "a@x.io", null, true), mailed(1, "b@x.io")),
                        new SuppressionDecision.SendToOthers(List.of(new Withheld(0, "a@x.io", null, "withheld_before", null,
                                null, false)), 1)),
                Arguments.of("a retry, still listed", List.of(new Recipient(0, "a@x.io", BOUNCE, true)),
                        new SuppressionDecision.SuppressAll(List.of(new Withheld(0, "a@x.io", null, "withheld_before", null,
                                null, false)))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void row(String name, List<Recipient> recipients, SuppressionDecision expected) {
        assertThat(SuppressionPolicy.decide(new SuppressionFacts(recipients))).isEqualTo(expected);
    }

    @Test
    void everyDecisionIsReachable() {
        Set<Class<?>> reached = rows().map(a -> a.get()[2].getClass()).collect(Collectors.toSet());
        assertThat(reached).containsExactlyInAnyOrder(SuppressionDecision.class.getPermittedSubclasses());
    }

    @Test
    void aWithheldRecipientSaysWhichSuppression() {
        assertThat(withheld(0, "a@x.io", BOUNCE).describe()).contains("a@x.io").contains("#5").contains("hard_bounce")
                .contains("provider event 9").contains("job a-1");
    }
}
