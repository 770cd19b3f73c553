package dev.mailroom.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The server-neutral pause and resume of a queue's MDBs, over a server's switch (here a recording fake). */
class ConsumerControlTest {

    /** A server's switch: MDBs per queue and their delivery state, with every switching recorded. */
    static final class FakeSwitch implements ConsumerSwitch {
        final Map<String, List<String>> byQueue = new HashMap<>();
        final Map<String, Boolean> active = new HashMap<>();
        final List<String> switched = new ArrayList<>();
        int reads;

        @Override
        public Map<String, List<String>> mdbsByQueue() {
            reads++;
            return Map.copyOf(byQueue);
        }

        @Override
        public boolean deliveryActive(String mdb) {
            return active.getOrDefault(mdb, true);
        }

        @Override
        public void deliveryActive(String mdb, boolean on) {
            switched.add(mdb + (on ? " on" : " off"));
            active.put(mdb, on);
        }
    }

    final FakeSwitch sw = new FakeSwitch();
    final ConsumerControl control = new ConsumerControl();

    @BeforeEach
    void setUp() {
        control.config = new MailroomConfig() {
            @Override
            public List<String> queues() {
                return List.of("mail.send", "mail.send.bulk");
            }
        };
        control.platform = new ServerPlatform() {
            @Override
            public String name() {
                return "fake";
            }

            @Override
            public String queueJndiName(String queue) {
                return queue;
            }

            @Override
            public Optional<BrokerQueues> embeddedBroker() {
                return Optional.empty();
            }

            @Override
            public ConsumerSwitch consumers() {
                return sw;
            }

            @Override
            public Optional<OwnMeters> ownMeters() {
                return Optional.empty();
            }
        };
    }

    @Test
    void pausingStopsEveryActiveConsumerOfTheQueueAndOnlyThose() {
        sw.byQueue.put("mail.send", List.of("A", "B"));
        sw.byQueue.put("mail.send.bulk", List.of("C"));
        sw.active.put("B", false);

        var state = control.pause("mail.send", "ops");

        assertThat(sw.switched).containsExactly("A off");
        assertThat(state.paused()).isTrue();
        assertThat(state.consumers()).extracting(ConsumerControl.Consumer::mdb).containsExactly("A", "B");
        assertThat(control.paused("mail.send.bulk")).isFalse();
    }

    @Test
    void resumingStartsThemAgainAndIsIdempotent() {
        sw.byQueue.put("mail.send", List.of("A"));
        sw.byQueue.put("mail.send.bulk", List.of("C"));
        control.pause("mail.send", "ops");
        control.resume("mail.send", "ops");
        control.resume("mail.send", "ops");

        assertThat(sw.switched).containsExactly("A off", "A on");
        assertThat(control.paused("mail.send")).isFalse();
    }

    @Test
    void aQueueWithoutConsumersHereCannotBePausedAndIsNotPaused() {
        sw.byQueue.put("mail.send.bulk", List.of("C"));

        assertThatThrownBy(() -> control.pause("mail.send", "ops")).isInstanceOf(Refused.Conflict.class)
                .hasMessageContaining("no message-driven bean");
        assertThat(control.paused("mail.send")).isFalse();
    }

    @Test
    void aQueueThatIsNoSendQueueIsNotFound() {
        assertThatThrownBy(() -> control.state("orders")).isInstanceOf(Refused.NotFound.class)
                .hasMessageContaining("mail.send, mail.send.bulk");
    }

    @Test
    void theServerIsAskedForTheMdbsUntilEveryQueueHasThemThenNoMore() {
        sw.byQueue.put("mail.send", List.of("A"));
        control.state("mail.send");
        control.state("mail.send");
        assertThat(sw.reads).isEqualTo(2);

        sw.byQueue.put("mail.send.bulk", List.of("C"));
        control.state("mail.send.bulk");
        control.state("mail.send");
        control.state("mail.send.bulk");
        assertThat(sw.reads).isEqualTo(3);
    }
}
