package dev.mailroom.recoverability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.job.JobState;
import dev.mailroom.recoverability.KeyOrderPolicy.AfterDeadLetter;
import dev.mailroom.recoverability.KeyOrderPolicy.Arrival;
import dev.mailroom.recoverability.KeyOrderPolicy.Ended;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link KeyOrderPolicy}: every row of both decisions, and every action reachable. */
class KeyOrderPolicyTest {

    private static final AfterDeadLetter CONTINUE = AfterDeadLetter.CONTINUE;
    private static final AfterDeadLetter HOLD = AfterDeadLetter.HOLD;

    static Stream<Arguments> arrivals() {
        return Stream.of(
                Arguments.of("the key's first job", new Arrival(false, false, null, null), new KeyOrderPolicy.Go()),
                Arguments.of("an earlier job waits for its retry", new Arrival(false, false, 41L, null),
                        new KeyOrderPolicy.WaitBehind(41)),
                Arguments.of("held after a dead-lettered head", new Arrival(false, false, null, "job 40 dead_lettered"),
                        new KeyOrderPolicy.Held("job 40 dead_lettered")),
                Arguments.of("held, and earlier jobs wait too", new Arrival(false, false, 41L, "job 40 dead_lettered"),
                        new KeyOrderPolicy.Held("job 40 dead_lettered")),
                Arguments.of("a redelivery of a waiting job's message", new Arrival(false, true, 41L, null),
                        new KeyOrderPolicy.AlreadyWaiting()),
                Arguments.of("a redelivery of a waiting job's message on a held key",
                        new Arrival(false, true, null, "job 40 dead_lettered"), new KeyOrderPolicy.AlreadyWaiting()),
                Arguments.of("a redelivery of a finished job: admission ignores it", new Arrival(true, false, 41L, null),
                        new KeyOrderPolicy.Go()),
                Arguments.of("a released job's copy: nothing before it", new Arrival(false, false, null, null),
                        new KeyOrderPolicy.Go()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("arrivals")
    void atTheDoor(String row, Arrival arrival, KeyOrderPolicy.Place expected) {
        KeyOrderPolicy.Place place = KeyOrderPolicy.atTheDoor(arrival);
        assertThat(place).as(row).isEqualTo(expected);
        assertThat(place.describe()).isNotBlank();
    }

    static Stream<Arguments> endings() {
        return Stream.of(
                Arguments.of("sent, the next waits", new Ended("sent_to_provider", true, CONTINUE),
                        KeyOrderPolicy.ReleaseNext.class),
                Arguments.of("sent, on a hold queue", new Ended("sent_to_provider", true, HOLD),
                        KeyOrderPolicy.ReleaseNext.class),
                Arguments.of("sent, nothing waits", new Ended("sent_to_provider", false, CONTINUE),
                        KeyOrderPolicy.Nothing.class),
                Arguments.of("discarded (expired)", new Ended("discarded", true, HOLD), KeyOrderPolicy.ReleaseNext.class),
                Arguments.of("suppressed", new Ended("suppressed", true, CONTINUE), KeyOrderPolicy.ReleaseNext.class),
                Arguments.of("duplicate suppressed", new Ended("duplicate_suppressed", true, CONTINUE),
                        KeyOrderPolicy.ReleaseNext.class),
                Arguments.of("cancelled before its send time", new Ended("cancelled", true, CONTINUE),
                        KeyOrderPolicy.ReleaseNext.class),
                Arguments.of("bounced permanently", new Ended("bounced_permanent", true, HOLD),
                        KeyOrderPolicy.ReleaseNext.class),
                Arguments.of("dead-lettered, continue", new Ended("dead_lettered", true, CONTINUE),
                        KeyOrderPolicy.ReleaseNext.class),
                Arguments.of("dead-lettered, continue, nothing waits", new Ended("dead_lettered", false, CONTINUE),
                        KeyOrderPolicy.Nothing.class),
                Arguments.of("dead-lettered, hold", new Ended("dead_lettered", true, HOLD), KeyOrderPolicy.HoldKey.class),
                Arguments.of("dead-lettered, hold, nothing waits yet: later ones will",
                        new Ended("dead_lettered", false, HOLD), KeyOrderPolicy.HoldKey.class),
                Arguments.of("unknown, hold", new Ended("unknown", true, HOLD), KeyOrderPolicy.HoldKey.class),
                Arguments.of("unknown, continue", new Ended("unknown", true, CONTINUE), KeyOrderPolicy.ReleaseNext.class),
                Arguments.of("its retry is scheduled: still the head", new Ended("retry_scheduled", true, CONTINUE),
                        KeyOrderPolicy.Nothing.class),
                Arguments.of("scheduled for its send time: still the head", new Ended("scheduled", true, HOLD),
                        KeyOrderPolicy.Nothing.class),
                Arguments.of("put back by a breaker or a stopped line", new Ended("received", true, CONTINUE),
                        KeyOrderPolicy.Nothing.class),
                Arguments.of("itself waiting for its key", new Ended("waiting_for_key", true, CONTINUE),
                        KeyOrderPolicy.Nothing.class),
                Arguments.of("the unknown head that held its key marked sent", new Ended("sent_to_provider", true, HOLD,
                        true), KeyOrderPolicy.LiftHold.class),
                Arguments.of("the head that held its key marked sent, nothing waits yet",
                        new Ended("sent_to_provider", false, HOLD, true), KeyOrderPolicy.LiftHold.class),
                Arguments.of("the head that held its key sent again, still on its way",
                        new Ended("received", true, HOLD, true), KeyOrderPolicy.Nothing.class),
                Arguments.of("the head that held its key dead-lettered again", new Ended("dead_lettered", true, HOLD,
                        true), KeyOrderPolicy.HoldKey.class));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("endings")
    void afterEnd(String row, Ended ended, Class<? extends KeyOrderPolicy.Next> expected) {
        KeyOrderPolicy.Next next = KeyOrderPolicy.afterEnd(ended);
        assertThat(next).as(row).isInstanceOf(expected);
        assertThat(next.describe()).isNotBlank();
    }

    @Test
    void everyPlaceAndEveryNextIsReachable() {
        Set<Class<?>> places = arrivals().map(a -> KeyOrderPolicy.atTheDoor((Arrival) a.get()[1]).getClass())
                .collect(Collectors.toSet());
        assertThat(places).containsExactlyInAnyOrder(KeyOrderPolicy.Place.class.getPermittedSubclasses());
        Set<Class<?>> nexts = endings().map(a -> KeyOrderPolicy.afterEnd((Ended) a.get()[1]).getClass())
                .collect(Collectors.toSet());
        assertThat(nexts).containsExactlyInAnyOrder(KeyOrderPolicy.Next.class.getPermittedSubclasses());
    }

    /** A state the send path is over for ends a head; every other state keeps it the head. */
    @Test
    void theStatesThatEndAHeadAreExactlyTheFinishedOnes() {
        Set<String> ending = new HashSet<>(KeyOrderPolicy.RELEASING);
        ending.addAll(KeyOrderPolicy.FAILED);
        Set<String> finished = Arrays.stream(JobState.values()).filter(JobState::finished).map(Enum::name)
                .collect(Collectors.toSet());
        assertThat(ending).isEqualTo(finished);
        assertThat(KeyOrderPolicy.RELEASING).doesNotContainAnyElementsOf(KeyOrderPolicy.FAILED);
    }

    @Test
    void theSettingReadsItsTwoWrittenValuesOnly() {
        assertThat(AfterDeadLetter.fromWireName("continue")).isEqualTo(CONTINUE);
        assertThat(AfterDeadLetter.fromWireName("hold")).isEqualTo(HOLD);
        assertThat(AfterDeadLetter.fromWireName("HOLD")).isNull();
        assertThat(AfterDeadLetter.fromWireName(null)).isNull();
    }

    @Test
    void aFactWithoutItsPartsIsRefused() {
        assertThatThrownBy(() -> new Ended(null, true, CONTINUE)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new Ended("sent_to_provider", true, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new KeyOrderPolicy.Held(null)).isInstanceOf(NullPointerException.class);
    }
}
