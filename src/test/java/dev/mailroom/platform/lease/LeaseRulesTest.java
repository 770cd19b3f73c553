package dev.mailroom.platform.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link LeaseRules#decide}: every row of the table, and that two nodes never both work on a live lease;
 * {@link LeaseRules#fence}: every row of its table.
 */
class LeaseRulesTest {

    private static final Instant NOW = Instant.parse("2026-12-01T04:00:00Z");
    private static final String ME = "node-a";
    private static final String OTHER = "node-b";

    static Stream<Arguments> table() {
        return Stream.of(
                // holder, expires (relative to now), -> action
                Arguments.of("never taken", null, Duration.ofDays(-20000), LeaseAction.Take.class),
                Arguments.of("released, expiry still ahead", null, Duration.ofSeconds(20), LeaseAction.Take.class),
                Arguments.of("mine, running", ME, Duration.ofSeconds(20), LeaseAction.Renew.class),
                Arguments.of("mine, expired but nobody took it", ME, Duration.ofSeconds(-5), LeaseAction.Renew.class),
                Arguments.of("another node's, running", OTHER, Duration.ofSeconds(20), LeaseAction.KeepAway.class),
                Arguments.of("another node's, one millisecond left", OTHER, Duration.ofMillis(1), LeaseAction.KeepAway.class),
                Arguments.of("another node's, expiring this instant", OTHER, Duration.ZERO, LeaseAction.TakeOver.class),
                Arguments.of("another node's, expired (holder died)", OTHER, Duration.ofSeconds(-5), LeaseAction.TakeOver.class));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void decides(String why, String holder, Duration expiresIn, Class<? extends LeaseAction> expected) {
        LeaseRules.Row row = new LeaseRules.Row("dlq-sweeper", holder, NOW.plus(expiresIn), 7, 5);
        LeaseAction action = LeaseRules.decide(row, ME, NOW);
        assertThat(action).as(why).isInstanceOf(expected);
        if (action instanceof LeaseAction.Take t) {
            assertThat(t.version()).isEqualTo(7);
        } else if (action instanceof LeaseAction.Renew r) {
            assertThat(r.version()).isEqualTo(7);
        } else if (action instanceof LeaseAction.TakeOver o) {
            assertThat(o.version()).isEqualTo(7);
            assertThat(o.previousHolder()).isEqualTo(OTHER);
            assertThat(o.describe()).contains(OTHER);
        } else {
            LeaseAction.KeepAway k = (LeaseAction.KeepAway) action;
            assertThat(k.holder()).isEqualTo(OTHER);
            assertThat(k.until()).isEqualTo(row.expiresAt());
        }
    }

    /** While a lease runs, exactly one node of many may work under it: its holder. */
    @Test
    void aLiveLeaseLetsOnlyItsHolderWork() {
        List<String> nodes = List.of("node-a", "node-b", "node-c");
        for (String holder : nodes) {
            LeaseRules.Row row = new LeaseRules.Row("reconciler", holder, NOW.plusSeconds(1), 3, 2);
            List<String> working = nodes.stream()
                    .filter(n -> !(LeaseRules.decide(row, n, NOW) instanceof LeaseAction.KeepAway)).toList();
            assertThat(working).containsExactly(holder);
        }
    }

    static Stream<Arguments> fences() {
        return Stream.of(
                // holder, row's token, the token this node holds, -> fence
                Arguments.of("mine, as I took it", ME, 5L, 5L, Fence.Holds.class),
                Arguments.of("released (a clean shutdown)", null, 5L, 5L, Fence.Lost.class),
                Arguments.of("taken over by another node while I was stopped", OTHER, 6L, 5L, Fence.Lost.class),
                Arguments.of("another node's, and I never held it", OTHER, 6L, 0L, Fence.Lost.class),
                Arguments.of("mine again, taken since: this work began under the old tenure", ME, 8L, 5L, Fence.Lost.class),
                Arguments.of("mine by the row, but never held here", ME, 5L, 0L, Fence.Lost.class));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fences")
    void fences(String why, String holder, long rowToken, long heldToken, Class<? extends Fence> expected) {
        // expired or not makes no difference: the row's lock keeps a take-over behind the write
        for (Duration expiresIn : List.of(Duration.ofSeconds(20), Duration.ofSeconds(-20))) {
            LeaseRules.Row row = new LeaseRules.Row("alert-delivery", holder, NOW.plus(expiresIn), 9, rowToken);
            Fence fence = LeaseRules.fence(row, ME, heldToken);
            assertThat(fence).as(why).isInstanceOf(expected);
            if (fence instanceof Fence.Holds h) {
                assertThat(h.token()).isEqualTo(heldToken);
            } else {
                assertThat(((Fence.Lost) fence).why()).as(why).contains("alert-delivery");
            }
        }
    }

    /** Of the nodes that ever took a lease, only the current holder's last take passes the fence. */
    @Test
    void onlyTheCurrentTenurePassesTheFence() {
        LeaseRules.Row row = new LeaseRules.Row("dlq-sweeper", OTHER, NOW.plusSeconds(5), 12, 11);
        List<String> passing = Stream.of(new Object[] {ME, 3L}, new Object[] {ME, 11L}, new Object[] {OTHER, 3L},
                        new Object[] {OTHER, 11L})
                .filter(t -> LeaseRules.fence(row, (String) t[0], (Long) t[1]) instanceof Fence.Holds)
                .map(t -> t[0] + "@" + t[1]).toList();
        assertThat(passing).containsExactly(OTHER + "@11");
    }
}
