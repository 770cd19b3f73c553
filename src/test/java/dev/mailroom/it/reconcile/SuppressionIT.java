package dev.mailroom.it.reconcile;

import dev.mailroom.it.support.Webhooks;
import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.testsupport.SmtpTestServer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The suppression list on the real server, real SMTP on loopback (tag smtp: H2 and PostgreSQL): a hard bounce
 * posted as a signed webhook suppresses its recipient; a new job to it ends {@code suppressed} without any
 * provider call; a job to it and another address reaches only the other (SMTP envelope and headers); lifted over
 * REST, the address is mailed again, once. Operators add and lift; viewers read; bad input is a 4xx with a reason.
 */
@Tag("smtp")
class SuppressionIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private static String q(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static List<SmtpTestServer.ReceivedMail> received(String messageId) {
        String header = Jobs.smtpMessageId(messageId);
        return ItEnvironment.get().smtp().received().stream().filter(m -> header.equals(m.messageId())).toList();
    }

    private static JsonNode suppressions(String address, String status) {
        return ItEnvironment.get().api().getJson("/api/v1/suppressions?tenant=it&address=" + q(address) + "&status=" + status);
    }

    @Test
    void a_hard_bounce_suppresses_the_recipient_until_an_operator_lifts_it() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        ApiClient api = env.api();
        String prefix = Jobs.runPrefix("suppress");
        String gone = prefix + "gone@example.com";
        String other = prefix + "other@example.com";

        // 1. sent, then the provider reports a hard bounce (recipient written as the provider writes it)
        String first = prefix + "1";
        env.jms().sendText("mail.send", Jobs.jobTo(first, List.of(gone)));
        Webhooks.awaitState(first, "sent_to_provider");
        Webhooks.deliver("bounced", first, "550 5.1.1 mailbox gone", "Gone <" + gone.toUpperCase() + ">");
        Webhooks.awaitState(first, "bounced");
        JsonNode listed = api.awaitJson("/api/v1/suppressions?tenant=it&address=" + q(gone),
                p -> p.path("items").size() == 1, WAIT).path("items").get(0);
        assertThat(listed.path("address").asText()).isEqualTo(gone);
        assertThat(listed.path("reason").asText()).isEqualTo("hard_bounce");
        assertThat(listed.path("active").asBoolean()).isTrue();
        assertThat(listed.path("cause_event_id").isNumber()).as(listed.toString()).isTrue();
        assertThat(listed.path("cause_message_id").asText()).isEqualTo(first);
        assertThat(listed.path("cause").asText()).contains("550 5.1.1 mailbox gone");
        long id = listed.path("id").asLong();
        assertThat(api.getJson("/api/v1/suppressions?tenant=other&address=" + q(gone)).path("items").size())
                .as("per tenant").isZero();

        // 2. a new job to it: suppressed, no provider call
        String second = prefix + "2";
        env.jms().sendText("mail.send", Jobs.jobTo(second, List.of(gone)));
        JsonNode suppressed = Webhooks.awaitState(second, "suppressed");
        assertThat(suppressed.path("provider_calls").asInt()).isZero();
        assertThat(suppressed.path("attempts").size()).isZero();
        assertThat(Jobs.types(suppressed)).contains("recipient_suppressed", "suppressed").doesNotContain("attempt_started");
        assertThat(suppressed.path("timeline").toString()).contains("#" + id).contains("hard_bounce").contains(first);
        assertThat(received(second)).as("SMTP messages for the suppressed job").isEmpty();

        // 3. to it and another address: the other only, in the envelope and in the headers
        String third = prefix + "3";
        env.jms().sendText("mail.send", Jobs.jobTo(third, List.of(gone, other)));
        JsonNode partly = Webhooks.awaitState(third, "sent_to_provider");
        assertThat(Jobs.types(partly)).contains("recipient_suppressed");
        Awaitility.await("mail of " + third).atMost(WAIT).until(() -> received(third).size() == 1);
        SmtpTestServer.ReceivedMail mail = received(third).get(0);
        assertThat(mail.envelopeRecipients()).containsExactly(other);
        assertThat(new String(mail.raw(), StandardCharsets.UTF_8)).contains(other).doesNotContain(gone);

        // 4. a viewer reads but cannot lift; lifting needs a why
        assertThat(api.asViewer().get("/api/v1/suppressions?address=" + q(gone)).statusCode()).isEqualTo(200);
        assertThat(api.asViewer().post("/api/v1/suppressions/" + id + "/lift", "{\"why\":\"x\"}").statusCode()).isEqualTo(403);
        assertThat(api.post("/api/v1/suppressions/" + id + "/lift", "{}").body()).contains("why_required");

        // 5. lifted over REST, kept with who and why; then mailed again, once
        JsonNode lifted = api.postJson("/api/v1/suppressions/" + id + "/lift",
                "{\"why\":\"mailbox restored, ticket 42\"}", 200);
        assertThat(lifted.path("active").asBoolean()).isFalse();
        assertThat(lifted.path("lifted_by").asText()).isEqualTo(ApiClient.OPERATOR_USER);
        assertThat(lifted.path("lifted_why").asText()).isEqualTo("mailbox restored, ticket 42");
        assertThat(suppressions(gone, "active").path("items").size()).isZero();
        assertThat(suppressions(gone, "lifted").path("items").get(0).path("id").asLong()).as("history kept").isEqualTo(id);
        assertThat(api.post("/api/v1/suppressions/" + id + "/lift", "{\"why\":\"again\"}").statusCode()).isEqualTo(409);

        String fourth = prefix + "4";
        env.jms().sendText("mail.send", Jobs.jobTo(fourth, List.of(gone)));
        Webhooks.awaitState(fourth, "sent_to_provider");
        Awaitility.await("mail of " + fourth).atMost(WAIT).until(() -> received(fourth).size() == 1);
        assertThat(received(fourth).get(0).envelopeRecipients()).containsExactly(gone);
        Jobs.awaitSendQueuesDrained(api, WAIT);
        assertThat(received(fourth)).as("received once").hasSize(1);
        assertThat(received(second)).as("still nothing for the suppressed job").isEmpty();
    }

    @Test
    void an_operator_adds_an_address_by_hand_and_bad_input_gets_a_reason() {
        ItEnvironment env = ItEnvironment.get();
        ApiClient api = env.api();
        String prefix = Jobs.runPrefix("manual");
        String address = prefix + "asked@example.com";

        JsonNode added = api.postJson("/api/v1/suppressions",
                "{\"address\":\"Asked <" + address + ">\",\"tenant\":\"it\",\"why\":\"asked us by phone\"}", 201);
        assertThat(added.path("address").asText()).isEqualTo(address);
        assertThat(added.path("reason").asText()).isEqualTo("manual");
        assertThat(added.path("created_by").asText()).isEqualTo(ApiClient.OPERATOR_USER);
        assertThat(added.path("created_why").asText()).isEqualTo("asked us by phone");
        assertThat(api.post("/api/v1/suppressions", "{\"address\":\"" + address + "\",\"tenant\":\"it\",\"why\":\"twice\"}")
                .body()).contains("already_suppressed");

        String id = prefix + "1";
        env.jms().sendText("mail.send", Jobs.jobTo(id, List.of(address)));
        JsonNode job = Webhooks.awaitState(id, "suppressed");
        assertThat(job.path("timeline").toString()).contains("manual").contains("asked us by phone");
        assertThat(api.getJson("/api/v1/suppressions?reason=manual&tenant=it&address=" + q(address)).path("items").size())
                .isEqualTo(1);

        assertThat(api.asViewer().post("/api/v1/suppressions", "{\"address\":\"v@example.com\",\"why\":\"x\"}").statusCode())
                .isEqualTo(403);
        for (String[] bad : new String[][] {
                {"{\"address\":\"not an address\",\"why\":\"x\"}", "invalid_address"},
                {"{\"address\":\"a@example.com\"}", "why_required"},
                {"{\"why\":\"x\"}", "address_required"},
                {"{\"address\":", "invalid"}}) {
            var r = api.post("/api/v1/suppressions", bad[0]);
            assertThat(r.statusCode()).as(bad[0]).isEqualTo(400);
            assertThat(r.body()).as(bad[0]).contains(bad[1]).doesNotContain("Exception");
        }
        assertThat(api.get("/api/v1/suppressions?reason=nope").body()).contains("invalid_reason");
        assertThat(api.get("/api/v1/suppressions?status=nope").statusCode()).isEqualTo(400);
        assertThat(api.get("/api/v1/suppressions?limit=0x").statusCode()).isEqualTo(400);
        assertThat(api.get("/api/v1/suppressions/abc").statusCode()).isEqualTo(400);
        assertThat(api.post("/api/v1/suppressions/999999999/lift", "{\"why\":\"x\"}").statusCode()).isEqualTo(404);
    }
}
