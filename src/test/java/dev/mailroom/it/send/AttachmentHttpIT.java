package dev.mailroom.it.send;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.matchingJsonPath;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.Jobs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Attachments through the HTTP API provider (the generic profile, WireMock): the API receives an inline file and one
 * fetched by reference from the test's own file server in its documented form, bytes identical.
 */
@Tag("http")
class AttachmentHttpIT {

    @Test
    void theApiReceivesTheAttachmentsInItsForm() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        String id = Jobs.runPrefix("attach-http") + "ok";
        byte[] pdf = {'%', 'P', 'D', 'F', '-', '1', '.', '4', 0, (byte) 0xFF, 10};
        byte[] csv = "order,total\n4711,12.50\n".getBytes(StandardCharsets.UTF_8);
        String path = ItEnvironment.FILES_PATH + id + ".csv";
        env.files().stubFor(get(urlEqualTo(path)).willReturn(aResponse().withStatus(200).withBody(csv)));
        env.http().stubFor(post(urlEqualTo("/messages")).withRequestBody(matchingJsonPath("$.message_id", equalTo(id)))
                .willReturn(aResponse().withStatus(202).withHeader("Content-Type", "application/json")
                        .withBody("{\"id\":\"prov-" + id + "\"}")));

        env.jms().sendText("mail.send", """
                {"schema_version": 2, "message_id": "%s", "from": "Shop <noreply@example.com>", "to": ["alice@example.com"],
                 "subject": "Your invoice", "text": "Attached.",
                 "attachments": [
                   {"filename": "invoice.pdf", "content_type": "application/pdf", "content_base64": "%s"},
                   {"filename": "order.csv", "content_type": "text/csv", "url": "http://127.0.0.1:%d%s",
                    "sha256": "%s", "size": %d}]}""".formatted(id, Base64.getEncoder().encodeToString(pdf),
                env.files().port(), path, dev.mailroom.provider.MailAttachment.sha256Of(csv),
                csv.length));

        env.api().awaitJson("/api/v1/jobs/" + id, j -> "sent_to_provider".equals(j.path("state").asText()),
                Duration.ofSeconds(60));
        List<LoggedRequest> calls = env.http().findAll(postRequestedFor(urlEqualTo("/messages"))
                .withRequestBody(matchingJsonPath("$.message_id", equalTo(id))));
        assertThat(calls).hasSize(1);
        JsonNode files = env.api().mapper().readTree(calls.get(0).getBodyAsString()).path("attachments");
        assertThat(files).hasSize(2);
        assertThat(files.get(0).path("filename").asText()).isEqualTo("invoice.pdf");
        assertThat(files.get(0).path("content_type").asText()).isEqualTo("application/pdf");
        assertThat(Base64.getDecoder().decode(files.get(0).path("content_base64").asText())).isEqualTo(pdf);
        assertThat(files.get(1).path("filename").asText()).isEqualTo("order.csv");
        assertThat(files.get(1).path("content_type").asText()).isEqualTo("text/csv");
        assertThat(Base64.getDecoder().decode(files.get(1).path("content_base64").asText())).isEqualTo(csv);
    }
}
