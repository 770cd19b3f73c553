package dev.mailroom.it.producer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.Jobs;
import dev.mailroom.it.support.ProducerWar;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A producer application beside Mailroom in the same WildFly ({@code dev.mailroom.examples.producer}, packaged with
 * the client jar by {@link ProducerWar}) writes an order row and sends its confirmation with {@code MailroomClient}
 * over the JTA-enlisted {@code java:/JmsXA} in one transaction: the job is on the queue if and only if the order
 * commits.
 */
@Tag("default-config")
class ProducerTransactionIT {

    private static final Duration SENT = Duration.ofSeconds(60);

    private static ItEnvironment env;
    private static ApiClient mailroom;
    private static ApiClient shop;

    @BeforeAll
    static void deploy() {
        env = ItEnvironment.get();
        mailroom = env.api();
        shop = new ApiClient(ProducerWar.deploy(env.server())).anonymous();
    }

    @AfterAll
    static void undeploy() {
        if (shop != null) {
            ProducerWar.undeploy(env.server());
        }
    }

    @Test
    void aRolledBackOrderLeavesNeitherItsRowNorAMail() {
        String order = Jobs.runPrefix("rollback") + "1";

        HttpResponse<String> placed = shop.post("/orders/" + order + "?email=alice@example.com&fail=true", "");

        assertThat(placed.statusCode()).as(placed.body()).isEqualTo(409);
        assertThat(shop.get("/orders/" + order).statusCode()).as("the order row").isEqualTo(404);
        // a job the transaction had put on the queue would have been received (and known to the API) once the
        // queues are empty
        Jobs.awaitSendQueuesDrained(mailroom, SENT);
        assertThat(Jobs.state(mailroom, "order-" + order)).as("the job").isNull();
        assertThat(mails("order-confirmation/" + order)).isEmpty();
    }

    @Test
    void aCommittedOrderHasItsRowAndOneMail() {
        String order = Jobs.runPrefix("commit") + "1";

        HttpResponse<String> placed = shop.post("/orders/" + order + "?email=alice@example.com", "");

        assertThat(placed.statusCode()).as(placed.body()).isEqualTo(200);
        assertThat(placed.body()).isEqualTo("order-" + order);
        assertThat(shop.get("/orders/" + order).statusCode()).as("the order row").isEqualTo(200);
        JsonNode job = mailroom.awaitJson("/api/v1/jobs/order-" + order,
                j -> "sent_to_provider".equals(j.path("state").asText()), SENT);
        assertThat(job.path("idempotency_key").asText()).isEqualTo("order-confirmation/" + order);
        assertThat(mails("order-confirmation/" + order)).singleElement()
                .satisfies(m -> assertThat(m.path("subject").asText()).isEqualTo("Order " + order + " confirmed"));
    }

    @Test
    void aSecondSendOfTheSameKeyIsRefusedByTheBrokerAtTheCommitAndGivesNoSecondMail() {
        String order = placed("again");

        HttpResponse<String> again = shop.post("/orders/" + order + "/confirmation?email=alice@example.com&message_id=order-"
                + order + "-again", "");

        assertThat(again.statusCode()).as("the transaction holding the duplicate did not commit: %s", again.body())
                .isEqualTo(409);
        assertThat(again.body()).contains("Heuristic");
        Jobs.awaitSendQueuesDrained(mailroom, SENT);
        assertThat(mails("order-confirmation/" + order)).hasSize(1);
        assertThat(Jobs.state(mailroom, "order-" + order + "-again"))
                .as("the broker dropped the duplicate (its _AMQ_DUPL_ID), so Mailroom never received it").isNull();
    }

    @Test
    void withoutTheBrokersDuplicateDetectionTheSecondSendCommitsAndMailroomSuppressesIt() {
        String order = placed("again-mailroom");

        HttpResponse<String> again = shop.post("/orders/" + order + "/confirmation?email=alice@example.com&message_id=order-"
                + order + "-again&broker_dedup=false", "");

        assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
        mailroom.awaitJson("/api/v1/jobs/order-" + order + "-again",
                j -> "duplicate_suppressed".equals(j.path("state").asText()), SENT);
        assertThat(mails("order-confirmation/" + order)).hasSize(1);
    }

    /** An order placed and its confirmation sent; its id. */
    private static String placed(String name) {
        String order = Jobs.runPrefix(name) + "1";
        assertThat(shop.post("/orders/" + order + "?email=alice@example.com", "").statusCode()).isEqualTo(200);
        mailroom.awaitJson("/api/v1/jobs/order-" + order, j -> "sent_to_provider".equals(j.path("state").asText()), SENT);
        return order;
    }

    private static List<JsonNode> mails(String idempotencyKey) {
        JsonNode outbox = mailroom.getJson("/api/v1/sandbox/messages?limit=1000");
        return StreamSupport.stream(outbox.spliterator(), false)
                .filter(m -> idempotencyKey.equals(m.path("idempotency_key").asText())).toList();
    }
}
