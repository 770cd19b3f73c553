package dev.mailroom.it.send;

import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.RetryScenario;
import dev.mailroom.testsupport.SmtpTestServer;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Recoverability on the real server through the SMTP provider: soft bounces, transient failures, permanent recipients. */
@Tag("smtp")
class RecoverabilitySmtpIT {

    @Test
    void aMailboxFullSoftBounceIsRetriedAndThenSent() {
        // the IT server's soft-bounce policy is 1 s, 2 s, 3 s (the default is 15 min, 1 h, 6 h)
        RetryScenario.retriedOnTheBrokersScheduleThenSent(ItEnvironment.get(), "mail.send", 452, "4.2.2 Mailbox full",
                "soft_bounce");
    }

    @Test
    void aTransientFailureIsRetriedOnTheBrokersScheduleAndThenSent() {
        // the IT server's bulk queue: one transient retry after 1 s (LibertyIT runs the same body)
        RetryScenario.retriedOnTheBrokersScheduleThenSent(ItEnvironment.get(), "mail.send.bulk", 451,
                "4.3.0 Temporary local problem", "transient");
    }

    @Test
    void anUnknownRecipientBouncesPermanentlyAfterOneCall() {
        ItEnvironment env = ItEnvironment.get();
        SmtpTestServer smtp = env.smtp();
        String id = Jobs.runPrefix("permanent") + "550";
        smtp.enqueueReply(550, "5.1.1 <alice@example.com>: Recipient address rejected: User unknown");
        env.jms().sendText("mail.send", Jobs.job(id));

        JsonNode job = env.api().awaitJson("/api/v1/jobs/" + id,
                j -> "bounced_permanent".equals(j.path("state").asText()), Duration.ofSeconds(60));
        assertThat(job.path("attempts")).hasSize(1);
        assertThat(job.path("attempts").get(0).path("failure_class").asText()).isEqualTo("permanent_recipient");
        assertThat(job.path("attempts").get(0).path("response").asText()).contains("User unknown");
        // no retry is scheduled or in delivery (a second call would need one), and the record still says one call
        Jobs.awaitSendQueuesDrained(env.api(), Duration.ofSeconds(60));
        assertThat(env.api().getJson("/api/v1/jobs/" + id).path("attempts")).as("no second call").hasSize(1);
        assertThat(smtp.countsByMessageId().get(Jobs.smtpMessageId(id))).isNull();
    }
}
