package dev.mailroom.provider.smtp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.provider.MailAttachment;
import dev.mailroom.provider.OutboundMail;
import dev.mailroom.testsupport.CountingCheckpoint;
import dev.mailroom.testsupport.SmtpTestServer;
import jakarta.mail.BodyPart;
import jakarta.mail.Multipart;
import jakarta.mail.Part;
import jakarta.mail.Session;
import jakarta.mail.internet.ContentType;
import jakarta.mail.internet.MimeMessage;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A mail with attachments as the relay receives it, parsed back with Jakarta Mail. */
class SmtpAttachmentsTest {

    private static final byte[] PDF = {'%', 'P', 'D', 'F', '-', '1', '.', '4', 0, (byte) 0xFF, (byte) 0x80, 10, 13};
    private static final byte[] ICS = "BEGIN:VCALENDAR\r\nMETHOD:REQUEST\r\nEND:VCALENDAR\r\n".getBytes(StandardCharsets.UTF_8);
    private static SmtpTestServer server;

    @BeforeAll
    static void start() {
        server = SmtpTestServer.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void reset() {
        server.reset();
    }

    private static MimeMessage send(String text, String html, List<MailAttachment> files) throws Exception {
        SmtpProvider provider = new SmtpProvider(SmtpSettings.plain("127.0.0.1", server.port(), Duration.ofSeconds(2),
                Duration.ofSeconds(5), "mailroom.test"), Clock.systemUTC());
        OutboundMail mail = new OutboundMail("m1", "k1", "sender@example.com", List.of("to@example.com"), null, null,
                null, "Invoice", text, html, null, null, null, null, null).withAttachments(files);
        assertThat(provider.send(mail, new CountingCheckpoint()).accepted()).isTrue();
        return new MimeMessage(Session.getInstance(new Properties()),
                new ByteArrayInputStream(server.received().get(0).raw()));
    }

    private static String type(Part p) throws Exception {
        return new ContentType(p.getContentType()).getBaseType();
    }

    @Test
    void attachmentsMakeAMixedMessageWithTheAlternativeFirstAndEachFileByteForByte() throws Exception {
        MimeMessage m = send("Hi", "<p>Hi</p>", List.of(new MailAttachment("Rechnung März.pdf", "application/pdf", PDF),
                new MailAttachment("notes.txt", "text/plain; charset=UTF-8", "ä\n".getBytes(StandardCharsets.UTF_8))));
        assertThat(type(m)).isEqualTo("multipart/mixed");
        Multipart mixed = (Multipart) m.getContent();
        assertThat(mixed.getCount()).isEqualTo(3);
        assertThat(type(mixed.getBodyPart(0))).isEqualTo("multipart/alternative");
        Multipart alternative = (Multipart) mixed.getBodyPart(0).getContent();
        assertThat(type(alternative.getBodyPart(0))).isEqualTo("text/plain");
        assertThat(type(alternative.getBodyPart(1))).isEqualTo("text/html");
        BodyPart pdf = mixed.getBodyPart(1);
        assertThat(pdf.getDisposition()).isEqualTo(Part.ATTACHMENT);
        assertThat(jakarta.mail.internet.MimeUtility.decodeText(pdf.getFileName())).isEqualTo("Rechnung März.pdf");
        assertThat(type(pdf)).isEqualTo("application/pdf");
        assertThat(pdf.getInputStream().readAllBytes()).isEqualTo(PDF);
        assertThat(mixed.getBodyPart(2).getInputStream().readAllBytes()).isEqualTo("ä\n".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aTextOnlyBodyIsTheFirstPartAsItIs() throws Exception {
        MimeMessage m = send("Hi", null, List.of(new MailAttachment("a.pdf", "application/pdf", PDF)));
        Multipart mixed = (Multipart) m.getContent();
        assertThat(type(mixed.getBodyPart(0))).isEqualTo("text/plain");
        assertThat(((String) mixed.getBodyPart(0).getContent()).strip()).isEqualTo("Hi");
    }

    @Test
    void aCalendarInviteIsAnAlternativeOfTheBodyAndAnIcsAttachment() throws Exception {
        MimeMessage m = send("Your ticket", null, List.of(
                new MailAttachment("ticket.ics", "text/calendar; method=REQUEST; charset=UTF-8", ICS)));
        Multipart mixed = (Multipart) m.getContent();
        Multipart alternative = (Multipart) mixed.getBodyPart(0).getContent();
        assertThat(alternative.getCount()).isEqualTo(2);
        ContentType calendar = new ContentType(alternative.getBodyPart(1).getContentType());
        assertThat(calendar.getBaseType()).isEqualTo("text/calendar");
        assertThat(calendar.getParameter("method")).isEqualTo("REQUEST");
        assertThat(alternative.getBodyPart(1).getInputStream().readAllBytes()).isEqualTo(ICS);
        BodyPart file = mixed.getBodyPart(1);
        assertThat(type(file)).isEqualTo("application/ics");
        assertThat(file.getFileName()).isEqualTo("ticket.ics");
        assertThat(file.getInputStream().readAllBytes()).isEqualTo(ICS);
    }

    @Test
    void aCalendarFileWithoutRequestIsAnOrdinaryAttachment() throws Exception {
        MimeMessage m = send("Hi", null, List.of(new MailAttachment("cal.ics", "text/calendar; method=PUBLISH", ICS)));
        Multipart mixed = (Multipart) m.getContent();
        assertThat(type(mixed.getBodyPart(0))).isEqualTo("text/plain");
        assertThat(type(mixed.getBodyPart(1))).isEqualTo("text/calendar");
    }
}
