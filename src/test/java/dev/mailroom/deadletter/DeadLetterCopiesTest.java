package dev.mailroom.deadletter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.apache.activemq.artemis.api.core.SimpleString;
import org.apache.activemq.artemis.selector.filter.BooleanExpression;
import org.apache.activemq.artemis.selector.filter.Filterable;
import org.apache.activemq.artemis.selector.impl.SelectorParser;
import org.apache.activemq.artemis.utils.SelectorTranslator;
import org.junit.jupiter.api.Test;

/** The selector that finds a dead letter's copies on its DLQ, evaluated by Artemis's own selector parser. */
class DeadLetterCopiesTest {

    private static final DeadLetterCopies.Identity DL = new DeadLetterCopies.Identity("mailroom-sender", "mail.send",
            "order-1", 2, null);

    @Test
    void matchesTheCopiesOfItsIdentityAndLapOnly() throws Exception {
        BooleanExpression selector = parse(DeadLetterCopies.selector(DL));
        assertThat(selector.matches(copy("ID:a", "mailroom-sender", "mail.send", "order-1", 2))).isTrue();
        assertThat(selector.matches(copy("ID:b", "mailroom-sender", "mail.send", "order-1", 2)))
                .as("a second copy of the same dead letter").isTrue();
        assertThat(selector.matches(copy("ID:c", "mailroom-sender", "mail.send", "order-1", 1))).as("another lap").isFalse();
        assertThat(selector.matches(copy("ID:d", "mailroom-sender", "mail.send.bulk", "order-1", 2)))
                .as("the same message id on another queue is another dead letter").isFalse();
        assertThat(selector.matches(copy("ID:e", "other-consumer", "mail.send", "order-1", 2))).isFalse();
        assertThat(selector.matches(copy("ID:f", "mailroom-sender", "mail.send", "order-2", 2))).isFalse();
    }

    @Test
    void aCopyWithoutItsLapIsFoundByTheJmsIdTheRowPointsAt() throws Exception {
        BooleanExpression selector = parse(DeadLetterCopies.selector(new DeadLetterCopies.Identity("mailroom-sender",
                "mail.send", "order-1", 1, "ID:legacy")));
        assertThat(selector.matches(copy("ID:legacy", "mailroom-sender", "mail.send", "order-1", null))).isTrue();
        assertThat(selector.matches(copy("ID:older", "mailroom-sender", "mail.send", "order-1", null))).isFalse();
        assertThat(selector.matches(copy("ID:bare", null, null, null, null))).isFalse();
    }

    @Test
    void quotesInAMessageIdCannotBreakOutOfTheSelector() throws Exception {
        DeadLetterCopies.Identity tricky = new DeadLetterCopies.Identity("mailroom-sender", "mail.send",
                "x' OR mr_lap > 0 OR 'a' = 'a", 1, null);
        BooleanExpression selector = parse(DeadLetterCopies.selector(tricky));
        assertThat(selector.matches(copy("ID:a", "mailroom-sender", "mail.send", "x' OR mr_lap > 0 OR 'a' = 'a", 1)))
                .isTrue();
        assertThat(selector.matches(copy("ID:b", "mailroom-sender", "mail.send", "other", 1))).isFalse();
    }

    private static BooleanExpression parse(String jmsSelector) throws Exception {
        // what the JMS client does before the broker parses it (JMSMessageID becomes the message's user id)
        return SelectorParser.parse(SelectorTranslator.convertToActiveMQFilterString(jmsSelector));
    }

    private static Filterable copy(String jmsMessageId, String consumer, String queue, String messageId, Integer lap) {
        Map<String, Object> p = new HashMap<>();
        p.put("AMQUserID", jmsMessageId);
        if (consumer != null) {
            p.put("mr_consumer", consumer);
            p.put("mr_source_queue", queue);
            p.put("mr_message_id", messageId);
            p.put("mr_reason", "poison");
        }
        if (lap != null) {
            p.put(DeadLetterCopies.LAP_PROPERTY, lap);
        }
        return new Filterable() {
            @Override
            public <T> T getBodyAs(Class<T> type) {
                return null;
            }

            @Override
            public Object getProperty(SimpleString name) {
                return p.get(name.toString()); // the broker hands string properties to the filter as String
            }

            @Override
            public Object getLocalConnectionId() {
                return null;
            }
        };
    }
}
