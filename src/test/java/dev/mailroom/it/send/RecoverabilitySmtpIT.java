package dev.mailroom.it.send;

import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.testsupport.SmtpTestServer;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Recoverability on the real server through the SMTP provider: soft bounces and permanent recipients. */
@Tag("smtp")
class RecoverabilitySmtpIT {

    @Test
    void aMailboxFullSoftBounceIsRetriedAndThenSent() {
        ItEnvironment env = ItEnvironment.get();
        SmtpTestServer smtp = env.smtp();
        String id = Jobs.runPrefix("soft-bounce") + "452";
        smtp.enqueueReply(452, "4.2.2 Mailbox full");
        env.jms().sendText("mail.send", Jobs.job(id));

        // the IT server's soft-bounce policy is 1 s, 2 s, 3 s (the default is 15 min, 1 h, 6 h)
        JsonNode job = env.api().awaitJson("/api/v1/jobs/" + id,
                j -> "sent_to_provider".equals(j.path("state").asText()), Duration.ofSeconds(60));
        assertThat(job.path("attempts")).hasSize(2);
        JsonNode first = job.path("attempts").get(0);
        assertThat(first.path("failure_class").asText()).isEqualTo("soft_bounce");
        assertThat(first.path("code").asText()).isEqualTo("452");
        assertThat(first.path("enhanced_code").asText()).isEqualTo("4.2.2");
        assertThat(smtp.countsByMessageId().get(Jobs.smtpMessageId(id))).isEqualTo(1);
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
