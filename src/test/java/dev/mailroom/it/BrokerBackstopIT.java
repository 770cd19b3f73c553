package dev.mailroom.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.testsupport.SmtpTestServer;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The broker backstop of server-config's address-setting: a job whose every delivery fails is
 * redelivered up to max-delivery-attempts (5) and then moved to its own DLQ.mail.send, not lost and not
 * circulating; each failed provider call stays recorded on the job although its delivery rolled back.
 */
@Tag("smtp")
class BrokerBackstopIT {

    static final int MAX_DELIVERY_ATTEMPTS = 5;

    @Test
    void aJobThatFailsEveryDeliveryEndsInItsOwnDeadLetterQueue() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        SmtpTestServer smtp = env.smtp();
        String id = Jobs.runPrefix("backstop") + "always-451";
        for (int i = 0; i < MAX_DELIVERY_ATTEMPTS; i++) {
            smtp.enqueueReply(451, "4.3.0 Temporary failure, try again later");
        }
        int before = smtp.receivedCount();
        env.jms().sendText("mail.send", Jobs.job(id));

        // redelivery delays 1 s, 2 s, 4 s, 8 s (address-setting): all five attempts within ~30 s
        JsonNode job = env.api().awaitJson("/api/v1/jobs/" + id,
                j -> j.path("attempts").size() == MAX_DELIVERY_ATTEMPTS
                        && !j.path("attempts").get(MAX_DELIVERY_ATTEMPTS - 1).path("outcome").isNull(),
                Duration.ofSeconds(90));
        for (JsonNode a : job.path("attempts")) {
            assertThat(a.path("outcome").asText()).isEqualTo("rejected");
            assertThat(a.path("code").asText()).isEqualTo("451");
            assertThat(a.path("enhanced_code").asText()).isEqualTo("4.3.0");
            assertThat(a.path("response").asText()).contains("Temporary failure");
        }

        Message dead = awaitOnDlq(env, id);
        assertThat(dead.getStringProperty("_AMQ_ORIG_ADDRESS")).isEqualTo("mail.send");
        assertThat(((TextMessage) dead).getText()).isEqualTo(Jobs.job(id));
        assertThat(smtp.receivedCount()).as("nothing was delivered").isEqualTo(before);
        Thread.sleep(3000);
        assertThat(env.api().getJson("/api/v1/jobs/" + id).path("attempts").size())
                .as("no sixth attempt: the message left mail.send").isEqualTo(MAX_DELIVERY_ATTEMPTS);
    }

    private static Message awaitOnDlq(ItEnvironment env, String id) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            Optional<Message> m = env.jms().browse("DLQ.mail.send").stream().filter(x -> {
                try {
                    return x instanceof TextMessage t && t.getText() != null && t.getText().contains(id);
                } catch (Exception e) {
                    return false;
                }
            }).findFirst();
            if (m.isPresent()) {
                return m.get();
            }
            Thread.sleep(500);
        }
        throw new AssertionError("job " + id + " never reached DLQ.mail.send");
    }
}
