package dev.mailroom.it.reconcile;

import dev.mailroom.it.support.Webhooks;
import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ItEnvironment;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An unknown send settled by its events on the real server (H2 and PostgreSQL): a job that ended {@code unknown} (the relay took the
 * mail but answered after the read timeout, as in {@code UnknownSendSmtpIT}) is settled by the provider's
 * signed delivered event, matched by the job's message_id: delivered, with the settling on its timeline.
 */
@Tag("smtp")
class UnknownSettledIT {

    @Test
    void an_unknown_job_is_settled_by_its_signed_delivered_event() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        String id = Jobs.runPrefix("settle") + "1";
        try {
            env.smtp().setDelayBeforeReply(ItEnvironment.SMTP_READ_TIMEOUT.plusMillis(1500));
            env.jms().sendText("mail.send", Jobs.job(id));
            Webhooks.awaitState(id, "unknown");
        } finally {
            env.smtp().setDelayBeforeReply(Duration.ZERO);
        }
        // an opened event is no delivery news: the job stays unknown
        Webhooks.deliver("opened", id, "pixel");
        env.api().awaitJson("/api/v1/jobs/" + id, j -> j.path("timeline").toString().contains("delivery_opened"), Duration.ofSeconds(60));
        assertThat(env.api().getJson("/api/v1/jobs/" + id).path("state").asText()).isEqualTo("unknown");

        Webhooks.deliver("delivered", id, "250 2.0.0 OK settled by the relay's log");
        JsonNode job = Webhooks.awaitState(id, "delivered");
        assertThat(Jobs.types(job)).contains("ambiguous_not_resent", "delivery_delivered", "delivery_state");
        assertThat(job.path("timeline").toString()).contains("unknown -> delivered").contains("settles the unknown send")
                .contains("250 2.0.0 OK settled by the relay's log");
        // settled: an operator's "send again" is refused now
        assertThat(env.api().post("/api/v1/jobs/" + id + "/send-again", "{\"reason\": \"too late\"}").statusCode()).isEqualTo(409);
    }
}
