package dev.mailroom.platform.wildfly;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConsumerMapTest {

    @Test
    void theQueueIsTheDestinationLookupsLastPart() {
        assertThat(ConsumerMap.queueOf(Map.of("destinationLookup", "java:/jms/queue/mail.send",
                "destinationType", "jakarta.jms.Queue", "maxSession", "4"))).contains("mail.send");
        assertThat(ConsumerMap.queueOf(Map.of("destinationLookup", "java:jboss/exported/jms/queue/mail.send.bulk")))
                .contains("mail.send.bulk");
    }

    @Test
    void aPlainDestinationNamesTheQueueWhenThereIsNoLookup() {
        assertThat(ConsumerMap.queueOf(Map.of("destination", " mail.send "))).contains("mail.send");
    }

    @Test
    void anMdbOnSomethingElseHasNoQueue() {
        assertThat(ConsumerMap.queueOf(Map.of("destinationLookup", "java:/jms/topic/events"))).isEmpty();
        assertThat(ConsumerMap.queueOf(Map.of("destinationLookup", "java:/jms/queue/"))).isEmpty();
        assertThat(ConsumerMap.queueOf(Map.of())).isEmpty();
    }

    @Test
    void mdbsAreGroupedByQueueSorted() {
        Map<String, Map<String, String>> configs = Map.of(
                "SendConsumer", Map.of("destinationLookup", "java:/jms/queue/mail.send"),
                "BulkSendConsumer", Map.of("destinationLookup", "java:/jms/queue/mail.send.bulk"),
                "AnotherSendConsumer", Map.of("destinationLookup", "java:/jms/queue/mail.send"),
                "EventListener", Map.of("destinationLookup", "java:/jms/topic/events"));
        assertThat(ConsumerMap.byQueue(configs)).containsExactly(
                Map.entry("mail.send", List.of("AnotherSendConsumer", "SendConsumer")),
                Map.entry("mail.send.bulk", List.of("BulkSendConsumer")));
    }
}
