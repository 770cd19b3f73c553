package dev.mailroom.platform;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The Jolokia request and the reading of its answer, without a broker (RemoteBrokerIT has the real one). */
class RemoteBrokerQueuesTest {

    @Test
    void readsEveryAnycastQueueOfThatNameOnAnyBroker() {
        JsonNode request = RemoteBrokerQueues.readRequest("DLQ.mail.send");
        assertThat(request.path("type").asText()).isEqualTo("read");
        assertThat(request.path("mbean").asText()).isEqualTo("org.apache.activemq.artemis:broker=*,component=addresses,"
                + "address=\"DLQ.mail.send\",subcomponent=queues,routing-type=\"anycast\",queue=\"DLQ.mail.send\"");
        assertThat(request.path("attribute").toString())
                .isEqualTo("[\"MessageCount\",\"DeliveringCount\",\"ScheduledCount\",\"ConsumerCount\"]");
    }

    @Test
    void quotesWhatAnObjectNameWouldReadAsAPattern() {
        assertThat(RemoteBrokerQueues.readRequest("a*b?\"c").path("mbean").asText())
                .contains("address=\"a\\*b\\?\\\"c\"");
    }

    @Test
    void takesTheFiguresFromTheAnswerAndMarksMissingOnesMinusOne() throws Exception {
        JsonNode attributes = new ObjectMapper().readTree(
                "{\"MessageCount\":7,\"DeliveringCount\":2,\"ConsumerCount\":4}");
        assertThat(RemoteBrokerQueues.figures("mail.send", attributes))
                .isEqualTo(new BrokerQueues.QueueFigures("mail.send", 7, 2, -1, 4));
    }

    @Test
    void readsTheActiveBrokersDiskFromTheServerControl() throws Exception {
        assertThat(RemoteBrokerQueues.diskRequest().path("mbean").asText()).isEqualTo("org.apache.activemq.artemis:broker=*");
        JsonNode value = new ObjectMapper().readTree("""
                {"org.apache.activemq.artemis:broker=\\"backup\\"": {"Active": false, "DiskStoreUsage": 0.2, "MaxDiskUsage": 90},
                 "org.apache.activemq.artemis:broker=\\"primary\\"": {"Active": true, "DiskStoreUsage": 0.95,
                   "MaxDiskUsage": 90, "JournalDirectory": "/srv/primary/data/journal"}}""");
        assertThat(RemoteBrokerQueues.disk(value)).contains(
                new BrokerQueues.DiskFigures("primary", 0.95, 0.90, "/srv/primary/data/journal"));
        assertThat(RemoteBrokerQueues.disk(new ObjectMapper().readTree("{}"))).isEmpty();
    }
}
