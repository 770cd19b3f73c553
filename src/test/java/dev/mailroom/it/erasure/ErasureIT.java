package dev.mailroom.it.erasure;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.Jobs;
import dev.mailroom.it.support.StoredRows;
import dev.mailroom.it.support.Webhooks;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Erasure of one address on a running server (H2 and PostgreSQL): the address is in sent jobs, a poison job's dead
 * letter (its payload on the DLQ too), a suppression and the webhook calls that caused it; after
 * {@code POST /api/v1/erasures} a search of every column of the server's schema finds it nowhere, the next job to
 * it is still suppressed, the audit lists the erasure without the address, and a second request is a no-op.
 */
@Tag("smtp")
class ErasureIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void anErasedAddressIsFoundNowhereStaysSuppressedAndASecondRequestIsANoOp() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        String prefix = Jobs.runPrefix("erasure");
        String address = prefix + "Erase@Example.com";
        String stored = address.toLowerCase();
        env.jms().sendText("mail.send", Jobs.jobTo(prefix + "1", List.of(address)));
        env.jms().sendText("mail.send", Jobs.jobTo(prefix + "2", List.of("Erase Me <" + address + ">")));
        Webhooks.awaitState(prefix + "1", "sent_to_provider");
        Webhooks.awaitState(prefix + "2", "sent_to_provider");
        Webhooks.deliver("delivered", prefix + "1", "250 2.0.0 OK for " + address, address);
        Webhooks.deliver("bounced", prefix + "2", "550 5.1.1 <" + address + ">: no such user", address);
        Webhooks.awaitState(prefix + "1", "delivered");
        Webhooks.awaitState(prefix + "2", "bounced");
        env.jms().sendText("mail.send", "{\"schema_version\": 1, \"message_id\": \"" + prefix + "poison\", \"to\": [\""
                + address + "\"]}");
        JsonNode deadLetter = Jobs.awaitDeadLetter(env.api(), "mail.send", prefix + "poison", WAIT);
        assertThat(StoredRows.where(env.api(), stored)).as("where the address is before the erasure")
                .containsKeys("job_recipient.address", "dead_letter.payload", "suppression.address", "provider_event.body");

        HttpResponse<String> malformed = env.api().post("/api/v1/erasures", "{\"address\": \"not an address\", \"reason\": \"r\"}");
        assertThat(malformed.statusCode()).as(malformed.body()).isEqualTo(400);
        HttpResponse<String> noReason = env.api().post("/api/v1/erasures", "{\"address\": \"" + address + "\"}");
        assertThat(noReason.statusCode()).as(noReason.body()).isEqualTo(400);
        assertThat(env.api().asViewer().post("/api/v1/erasures", "{\"address\": \"" + address
                + "\", \"reason\": \"r\"}").statusCode()).as("a viewer may not erase").isEqualTo(403);

        JsonNode erased = env.api().postJson("/api/v1/erasures", "{\"address\": \" " + address
                + " \", \"reason\": \"data-protection request\"}", 201);
        assertThat(erased.path("state").asText()).isEqualTo("done");
        assertThat(erased.path("counts").path("mail_job.deleted").asInt()).as(erased.toString()).isGreaterThanOrEqualTo(2);
        assertThat(erased.path("counts").path("dead_letter.discarded").asInt()).isEqualTo(1);
        assertThat(erased.path("counts").path("suppression.hashed").asInt()).isEqualTo(1);
        assertThat(erased.path("counts").path("provider_event.deleted").asInt()).isEqualTo(2);
        assertThat(erased.toString()).doesNotContainIgnoringCase(stored);

        assertThat(StoredRows.where(env.api(), stored)).as("where the address is, in any column of any table, after the erasure").isEmpty();
        JsonNode discarded = env.api().getJson("/api/v1/dead-letters/" + deadLetter.path("id").asLong());
        assertThat(discarded.path("status").asText()).isEqualTo("discarded");
        JsonNode audit = env.api().getJson("/api/v1/erasures");
        assertThat(audit.toString()).contains("data-protection request").doesNotContainIgnoringCase(stored);
        assertThat(audit.get(0).path("requested_by").asText()).isEqualTo("operator");

        JsonNode again = env.api().postJson("/api/v1/erasures", "{\"address\": \"" + address
                + "\", \"reason\": \"asked twice\"}", 200);
        assertThat(again.path("no_op").asBoolean()).isTrue();
        assertThat(again.path("counts")).isEqualTo(erased.path("counts"));

        // the next job to it: withheld by the suppression the erasure kept as a hash
        env.jms().sendText("mail.send", Jobs.jobTo(prefix + "next", List.of(address)));
        Webhooks.awaitState(prefix + "next", "suppressed");
    }
}
