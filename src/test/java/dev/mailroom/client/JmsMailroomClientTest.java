package dev.mailroom.client;

import static dev.mailroom.testsupport.Proxies.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSProducer;
import jakarta.jms.Queue;
import jakarta.jms.TextMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the client hands JMS, seen through a recording {@link JMSContext} (the broker's side is in the ITs). */
class JmsMailroomClientTest {

    private static final String TRACE = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    /** One send as JMS saw it. */
    record Seen(String queue, String body, Map<String, Object> properties, int deliveryMode) { }

    private final List<Seen> seen = new ArrayList<>();
    private final Map<Object, Map<String, Object>> propertiesOf = new IdentityHashMap<>();
    private int contextsOpened;
    private int contextsClosed;

    @Test
    void sendsTheJsonPersistentWithTheKeyAsDuplicateIdAndTheTraceparent() {
        MailJob job = MailJob.to("alice@example.com").from("noreply@example.com").subject("s").text("t")
                .idempotencyKey("order-7/receipt").traceparent(TRACE).build();

        String id = MailroomClient.over(context()).send(job);

        assertThat(id).isEqualTo(job.messageId());
        assertThat(seen).singleElement().satisfies(s -> {
            assertThat(s.queue()).isEqualTo("mail.send");
            assertThat(s.body()).isEqualTo(job.json());
            assertThat(s.deliveryMode()).isEqualTo(DeliveryMode.PERSISTENT);
            assertThat(s.properties()).containsOnly(Map.entry("_AMQ_DUPL_ID", "order-7/receipt"),
                    Map.entry("traceparent", TRACE));
        });
    }

    @Test
    void aJobsOrderingKeyIsItsJmsGroupSoTheBrokerGivesTheKeyToOneConsumer() {
        MailJob keyed = MailJob.to("a@example.com").from("n@example.com").subject("s").text("t")
                .orderingKey("order-7").build();
        MailJob plain = MailJob.to("a@example.com").from("n@example.com").subject("s").text("t").build();

        MailroomClient.over(context()).send(keyed);
        MailroomClient.over(context()).send(plain);

        assertThat(seen.get(0).properties()).containsEntry("JMSXGroupID", "order-7");
        assertThat(seen.get(1).properties()).doesNotContainKey("JMSXGroupID");
    }

    @Test
    void theJobsQueueWinsOverTheClientsAndTheCallersTraceparentFillsIn() {
        MailJob bulk = MailJob.to("a@example.com").from("n@example.com").subject("s").text("t").queue("mail.send.bulk")
                .unsubscribe("https://example.com/unsubscribe", null).build();
        MailJob plain = MailJob.to("a@example.com").from("n@example.com").subject("s").text("t").build();

        JmsMailroomClient client = MailroomClient.over(factory()).toQueue("mail.send.eu").withTraceparent(() -> TRACE);
        client.send(bulk);
        client.send(plain);
        MailroomClient.over(factory()).send(plain);

        assertThat(seen).extracting(Seen::queue).containsExactly("mail.send.bulk", "mail.send.eu", "mail.send");
        assertThat(seen.get(1).properties()).containsEntry("traceparent", TRACE)
                .containsEntry("_AMQ_DUPL_ID", plain.messageId());
        assertThat(seen.get(2).properties()).doesNotContainKey("traceparent");
        assertThat(contextsOpened).as("a context per send over a factory").isEqualTo(3).isEqualTo(contextsClosed);
    }

    @Test
    void withoutBrokerDuplicateDetectionNoDuplicateIdIsSet() {
        MailJob job = MailJob.to("a@example.com").from("n@example.com").subject("s").text("t").traceparent(TRACE).build();

        MailroomClient.over(context()).withoutBrokerDuplicateDetection().send(job);

        assertThat(seen).singleElement().satisfies(s -> assertThat(s.properties())
                .containsOnly(Map.entry("traceparent", TRACE)));
    }

    @Test
    void aQueueGivenAsADestinationIsUsedAsItIs() {
        Queue fromJndi = proxy(Queue.class, (m, a) -> m.equals("getQueueName") ? "jms.queue.from-jndi" : null);
        MailJob plain = MailJob.to("a@example.com").from("n@example.com").subject("s").text("t").build();

        MailroomClient.over(context()).toQueue(fromJndi).send(plain);

        assertThat(seen).extracting(Seen::queue).containsExactly("jms.queue.from-jndi");
    }

    /**
     * A broker that holds the send (as Artemis does with its disk above max-disk-usage): the bounded client gives the
     * send up, says the job was not accepted, and closes the context, which is what ends the held send.
     */
    @Test
    void aSendTheBrokerHoldsBackIsGivenUpAtTheBoundAndTheContextClosed() throws Exception {
        java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
        JMSContext holding = proxy(JMSContext.class, (method, args) -> switch (method) {
            case "createTextMessage" -> textMessage((String) args[0]);
            case "createQueue" -> proxy(Queue.class, (m, a) -> m.equals("getQueueName") ? (String) args[0] : null);
            case "createProducer" -> {
                JMSProducer[] self = new JMSProducer[1];
                self[0] = proxy(JMSProducer.class, (m, a) -> {
                    if (m.equals("send")) {
                        closed.await(); // held until the context is closed
                        throw new jakarta.jms.IllegalStateRuntimeException("the session is closed");
                    }
                    return self[0];
                });
                yield self[0];
            }
            case "close" -> {
                closed.countDown();
                yield null;
            }
            default -> throw new UnsupportedOperationException(method);
        });
        ConnectionFactory factory = proxy(ConnectionFactory.class, (method, args) -> holding);
        MailJob job = MailJob.to("a@example.com").from("n@example.com").subject("s").text("t").messageId("reset-1").build();

        JmsMailroomClient bounded = MailroomClient.over(factory).withSendTimeout(java.time.Duration.ofMillis(200));

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> bounded.send(job))
                .isInstanceOf(JobNotAcceptedException.class).hasMessageContaining("reset-1")
                .satisfies(e -> assertThat(((JobNotAcceptedException) e).messageId()).isEqualTo("reset-1"));
        // the context is closed, which ends a held send (or, opened after the bound, it sends nothing)
        assertThat(closed.await(1, java.util.concurrent.TimeUnit.MINUTES)).as("the context closed").isTrue();
    }

    @Test
    void aBoundedSendThatGoesThroughAnswersAsAnUnboundedOne() {
        MailJob plain = MailJob.to("a@example.com").from("n@example.com").subject("s").text("t").build();

        String id = MailroomClient.over(factory()).withSendTimeout(java.time.Duration.ofMinutes(1)).send(plain);

        assertThat(id).isEqualTo(plain.messageId());
        assertThat(seen).extracting(Seen::queue).containsExactly("mail.send");
        assertThat(contextsClosed).isEqualTo(1);
    }

    @Test
    void aSendTimeoutNeedsAConnectionFactory() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> MailroomClient.over(context())
                .withSendTimeout(java.time.Duration.ofSeconds(5))).isInstanceOf(IllegalStateException.class);
    }

    // ------------------------------------------------------------------ a recording JMS

    private ConnectionFactory factory() {
        return proxy(ConnectionFactory.class, (method, args) -> {
            if (method.equals("createContext")) {
                contextsOpened++;
                return context();
            }
            throw new UnsupportedOperationException(method);
        });
    }

    private JMSContext context() {
        return proxy(JMSContext.class, (method, args) -> switch (method) {
            case "createTextMessage" -> textMessage((String) args[0]);
            case "createQueue" -> proxy(Queue.class, (m, a) -> m.equals("getQueueName") ? (String) args[0] : null);
            case "createProducer" -> producer();
            case "close" -> {
                contextsClosed++;
                yield null;
            }
            default -> throw new UnsupportedOperationException(method);
        });
    }

    private TextMessage textMessage(String body) {
        Map<String, Object> properties = new HashMap<>();
        TextMessage message = proxy(TextMessage.class, (method, args) -> switch (method) {
            case "getText" -> body;
            case "setStringProperty" -> properties.put((String) args[0], args[1]);
            default -> throw new UnsupportedOperationException(method);
        });
        propertiesOf.put(message, properties);
        return message;
    }

    private JMSProducer producer() {
        int[] mode = {DeliveryMode.PERSISTENT - 100};
        JMSProducer[] self = new JMSProducer[1];
        self[0] = proxy(JMSProducer.class, (method, args) -> switch (method) {
            case "setDeliveryMode" -> {
                mode[0] = (Integer) args[0];
                yield self[0];
            }
            case "send" -> {
                TextMessage m = (TextMessage) args[1];
                seen.add(new Seen(((Queue) args[0]).getQueueName(), m.getText(),
                        Map.copyOf(propertiesOf.get(m)), mode[0]));
                yield self[0];
            }
            default -> throw new UnsupportedOperationException(method);
        });
        return self[0];
    }
}
