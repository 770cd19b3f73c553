package dev.mailroom.it.send;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.Jobs;
import dev.mailroom.testsupport.SmtpTestServer;
import jakarta.mail.BodyPart;
import jakarta.mail.Multipart;
import jakarta.mail.Part;
import jakarta.mail.Session;
import jakarta.mail.internet.ContentType;
import jakarta.mail.internet.MimeMessage;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Objects;
import java.util.Properties;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Attachments on the real server through the SMTP provider: an inline PDF and a calendar invite by reference (served
 * by the test's own file server, the server's one allowed prefix) arrive as well-formed MIME, parsed back with
 * Jakarta Mail; a 404, a checksum mismatch and a URL off the allow-list each end as their class says, and never
 * reach the relay.
 */
@Tag("smtp")
class AttachmentSmtpIT {

    /** A small but real PDF (one empty page). */
    private static final byte[] PDF = ("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
            + "2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>endobj\n"
            + "trailer<</Root 1 0 R>>\n%%EOF\n").getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ICS = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Shop//Tickets//EN\r\nMETHOD:REQUEST\r\n"
            + "BEGIN:VEVENT\r\nUID:ticket-4711@shop.example\r\nDTSTAMP:20300101T080000Z\r\nDTSTART:20300102T090000Z\r\n"
            + "DTEND:20300102T100000Z\r\nSUMMARY:Concert\r\nORGANIZER:mailto:tickets@shop.example\r\n"
            + "ATTENDEE;RSVP=TRUE:mailto:alice@example.com\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n").getBytes(StandardCharsets.UTF_8);

    private static String job(String id, String attachments) {
        return """
                {"schema_version": 2, "message_id": "%s", "from": "Shop <noreply@example.com>", "to": ["alice@example.com"],
                 "subject": "Your tickets", "text": "See attached.", "html": "<p>See attached.</p>",
                 "attachments": [%s]}""".formatted(id, attachments);
    }

    private static String byReference(String filename, String type, String url, byte[] content) {
        return """
                {"filename": "%s", "content_type": "%s", "url": "%s", "sha256": "%s", "size": %d}"""
                .formatted(filename, type, url, sha256(content), content.length);
    }

    private static String fileUrl(ItEnvironment env, String name) {
        return "http://127.0.0.1:" + env.files().port() + ItEnvironment.FILES_PATH + name;
    }

    @Test
    void anInlinePdfAndAnInviteByReferenceArriveAsWellFormedMime() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        SmtpTestServer smtp = env.smtp();
        WireMockServer files = env.files();
        String id = Jobs.runPrefix("attach") + "ok";
        files.stubFor(get(urlEqualTo(ItEnvironment.FILES_PATH + id + ".ics"))
                .willReturn(aResponse().withStatus(200).withBody(ICS)));
        String inline = """
                {"filename": "invoice-4711.pdf", "content_type": "application/pdf", "content_base64": "%s"}"""
                .formatted(Base64.getEncoder().encodeToString(PDF));
        env.jms().sendText("mail.send", job(id, inline + ", " + byReference("ticket.ics",
                "text/calendar; method=REQUEST; charset=UTF-8", fileUrl(env, id + ".ics"), ICS)));

        SmtpTestServer.ReceivedMail got = Awaitility.await("the mail at the relay")
                .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> smtp.received().stream().filter(m -> Jobs.smtpMessageId(id).equals(m.messageId()))
                        .findFirst().orElse(null), Objects::nonNull);
        MimeMessage mail = new MimeMessage(Session.getInstance(new Properties()), new ByteArrayInputStream(got.raw()));
        assertThat(new ContentType(mail.getContentType()).getBaseType()).isEqualTo("multipart/mixed");
        Multipart mixed = (Multipart) mail.getContent();
        assertThat(mixed.getCount()).isEqualTo(3);

        BodyPart body = mixed.getBodyPart(0);
        assertThat(new ContentType(body.getContentType()).getBaseType()).isEqualTo("multipart/alternative");
        Multipart alternative = (Multipart) body.getContent();
        assertThat(alternative.getCount()).isEqualTo(3);
        assertThat(new ContentType(alternative.getBodyPart(0).getContentType()).getBaseType()).isEqualTo("text/plain");
        assertThat(alternative.getBodyPart(0).getContent()).asString().contains("See attached.");
        assertThat(new ContentType(alternative.getBodyPart(1).getContentType()).getBaseType()).isEqualTo("text/html");
        ContentType calendar = new ContentType(alternative.getBodyPart(2).getContentType());
        assertThat(calendar.getBaseType()).isEqualTo("text/calendar");
        assertThat(calendar.getParameter("method")).isEqualTo("REQUEST");
        assertThat(alternative.getBodyPart(2).getInputStream().readAllBytes()).isEqualTo(ICS);

        BodyPart pdf = mixed.getBodyPart(1);
        assertThat(pdf.getDisposition()).isEqualTo(Part.ATTACHMENT);
        assertThat(pdf.getFileName()).isEqualTo("invoice-4711.pdf");
        assertThat(new ContentType(pdf.getContentType()).getBaseType()).isEqualTo("application/pdf");
        assertThat(pdf.getInputStream().readAllBytes()).isEqualTo(PDF);

        BodyPart ics = mixed.getBodyPart(2);
        assertThat(ics.getDisposition()).isEqualTo(Part.ATTACHMENT);
        assertThat(ics.getFileName()).isEqualTo("ticket.ics");
        assertThat(new ContentType(ics.getContentType()).getBaseType()).isEqualTo("application/ics");
        assertThat(ics.getInputStream().readAllBytes()).isEqualTo(ICS);

        files.verify(1, getRequestedFor(urlEqualTo(ItEnvironment.FILES_PATH + id + ".ics")));
    }

    @Test
    void aMissingFileAMismatchAndAUrlOffTheListEndAsTheirClassSaysAndNeverReachTheRelay() {
        ItEnvironment env = ItEnvironment.get();
        SmtpTestServer smtp = env.smtp();
        WireMockServer files = env.files();
        String prefix = Jobs.runPrefix("attach-fail");
        String missing = prefix + "404";
        String changed = prefix + "mismatch";
        String offList = prefix + "off-list";
        files.stubFor(get(urlEqualTo(ItEnvironment.FILES_PATH + missing + ".pdf"))
                .willReturn(aResponse().withStatus(404).withBody("no such file")));
        files.stubFor(get(urlEqualTo(ItEnvironment.FILES_PATH + changed + ".pdf"))
                .willReturn(aResponse().withStatus(200).withBody("%PDF-1.4 another file")));
        String management = "http://127.0.0.1:" + env.server().managementPort() + "/management";

        env.jms().sendText("mail.send", job(missing,
                byReference("invoice.pdf", "application/pdf", fileUrl(env, missing + ".pdf"), PDF)));
        env.jms().sendText("mail.send", job(changed,
                byReference("invoice.pdf", "application/pdf", fileUrl(env, changed + ".pdf"), PDF)));
        env.jms().sendText("mail.send", job(offList, byReference("invoice.pdf", "application/pdf", management, PDF)));

        JsonNode notFound = deadLetter(env, missing);
        assertThat(notFound.path("reason").asText()).isEqualTo("manual_review");
        assertThat(notFound.path("failure_class").asText()).isEqualTo("content_policy");
        assertThat(notFound.path("error_type").asText()).isEqualTo("attachment_not_found");
        assertThat(notFound.path("error").asText()).contains("attachment 0 (invoice.pdf)").contains("answered 404");

        JsonNode mismatch = deadLetter(env, changed);
        assertThat(mismatch.path("reason").asText()).isEqualTo("manual_review");
        assertThat(mismatch.path("failure_class").asText()).isEqualTo("content_policy");
        assertThat(mismatch.path("error_type").asText()).isEqualTo("attachment_mismatch");
        assertThat(mismatch.path("error").asText()).contains("the job declared");

        JsonNode refused = deadLetter(env, offList);
        assertThat(refused.path("reason").asText()).isEqualTo("poison");
        assertThat(refused.path("error_type").asText()).isEqualTo("attachment_not_allowed");
        assertThat(refused.path("error").asText()).contains("/attachments/0/url: " + management)
                .contains("mailroom.attachments.allowed-prefixes");

        for (String id : new String[] {missing, changed}) {
            JsonNode view = env.api().getJson("/api/v1/jobs/" + id);
            JsonNode attempts = view.path("attempts");
            assertThat(attempts).as(id).hasSize(1);
            assertThat(attempts.get(0).path("failure_class").asText()).isEqualTo("content_policy");
            assertThat(attempts.get(0).path("outcome").asText()).as(id).isEqualTo("not_called");
            assertThat(view.path("provider_calls").asInt()).as(id + ": stopped before the relay").isZero();
        }
        JsonNode door = env.api().getJson("/api/v1/jobs/" + offList);
        assertThat(door.path("attempts")).as("refused at the door").isEmpty();
        assertThat(door.path("provider_calls").asInt()).isZero();
        assertThat(smtp.countsByMessageId()).doesNotContainKeys(Jobs.smtpMessageId(missing),
                Jobs.smtpMessageId(changed), Jobs.smtpMessageId(offList));
    }

    @Test
    void aSourceThatIsDownIsRetriedOnTheQueuesScheduleAndTheFileGoesOut() {
        ItEnvironment env = ItEnvironment.get();
        WireMockServer files = env.files();
        String id = Jobs.runPrefix("attach-503") + "bulk";
        String path = ItEnvironment.FILES_PATH + id + ".pdf";
        files.stubFor(get(urlEqualTo(path)).inScenario(id).whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withStatus(503).withBody("maintenance")).willSetStateTo("up"));
        files.stubFor(get(urlEqualTo(path)).inScenario(id).whenScenarioStateIs("up")
                .willReturn(aResponse().withStatus(200).withBody(PDF)));
        // the bulk queue's IT policy retries a transient failure once, after 1 s
        env.jms().sendText("mail.send.bulk", job(id, byReference("invoice.pdf", "application/pdf",
                "http://127.0.0.1:" + files.port() + path, PDF))
                .replace("\"attachments\"", "\"unsubscribe\": {\"url\": \"https://shop.example/u\"}, \"attachments\""));

        JsonNode sent = env.api().awaitJson("/api/v1/jobs/" + id,
                j -> "sent_to_provider".equals(j.path("state").asText()), Duration.ofSeconds(60));
        assertThat(sent.path("attempts")).hasSize(2);
        assertThat(sent.path("attempts").get(0).path("failure_class").asText()).isEqualTo("transient");
        assertThat(sent.path("attempts").get(0).path("code").asText()).isEqualTo("503");
        assertThat(env.smtp().countsByMessageId().get(Jobs.smtpMessageId(id))).isEqualTo(1);
    }

    private static JsonNode deadLetter(ItEnvironment env, String id) {
        return Jobs.awaitDeadLetter(env.api(), "mail.send", id, Duration.ofSeconds(60));
    }

    private static String sha256(byte[] content) {
        return dev.mailroom.provider.MailAttachment.sha256Of(content);
    }
}
