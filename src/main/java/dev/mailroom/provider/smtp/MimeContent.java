package dev.mailroom.provider.smtp;

import dev.mailroom.provider.MailAttachment;
import jakarta.activation.DataHandler;
import jakarta.mail.MessagingException;
import jakarta.mail.Part;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimePart;
import jakarta.mail.internet.MimeMultipart;
import jakarta.mail.util.ByteArrayDataSource;
import java.util.List;

/**
 * The body structure of a mail. Without attachments: one text part, or {@code multipart/alternative} of text and HTML.
 * With them: {@code multipart/mixed}, its first part the body (the alternative, or the one text part), then each file
 * as an attachment part with its name and type. A calendar invitation ({@link MailAttachment#isCalendarInvite()}) is
 * also put in the alternative as a {@code text/calendar; method=REQUEST} part, which is where Gmail, Outlook and Apple
 * Mail look for an invitation to show with its accept and decline buttons; its attached copy is {@code application/ics}
 * so no client shows the invitation twice (the form Google Calendar's own invitations take).
 */
final class MimeContent {

    private MimeContent() {
    }

    static void set(MimeMessage msg, String text, String html, List<MailAttachment> files) throws MessagingException {
        if (files.isEmpty()) {
            body(msg, text, html, List.of());
            return;
        }
        List<MailAttachment> invites = files.stream().filter(MailAttachment::isCalendarInvite).toList();
        MimeMultipart mixed = new MimeMultipart("mixed");
        MimeBodyPart body = new MimeBodyPart();
        body(body, text, html, invites);
        mixed.addBodyPart(body);
        for (MailAttachment file : files) {
            MimeBodyPart part = new MimeBodyPart();
            String type = file.isCalendarInvite() ? "application/ics" : file.contentType();
            part.setDataHandler(new DataHandler(new ByteArrayDataSource(file.content(), type)));
            part.setFileName(file.filename()); // RFC 2231-encoded when it is not ASCII
            part.setDisposition(Part.ATTACHMENT);
            // base64 whatever the bytes: a file that happens to be ASCII would otherwise go as 7bit, and SMTP turns
            // its bare line feeds into CRLF on the way (the recipient would get other bytes than were sent)
            part.setHeader("Content-Transfer-Encoding", "base64");
            mixed.addBodyPart(part);
        }
        msg.setContent(mixed);
    }

    /** Text, HTML and invitations as one part: a single text part, or the alternative of them, least preferred first. */
    private static void body(MimePart part, String text, String html, List<MailAttachment> invites)
            throws MessagingException {
        int alternatives = (text != null ? 1 : 0) + (html != null ? 1 : 0) + invites.size();
        if (alternatives <= 1 && invites.isEmpty()) {
            if (html != null) {
                part.setText(html, "UTF-8", "html");
            } else {
                part.setText(text == null ? "" : text, "UTF-8");
            }
            return;
        }
        MimeMultipart alternative = new MimeMultipart("alternative");
        if (text != null || html == null) {
            MimeBodyPart plain = new MimeBodyPart();
            plain.setText(text == null ? "" : text, "UTF-8");
            alternative.addBodyPart(plain); // least preferred first (RFC 2046 5.1.4)
        }
        if (html != null) {
            MimeBodyPart rich = new MimeBodyPart();
            rich.setText(html, "UTF-8", "html");
            alternative.addBodyPart(rich);
        }
        for (MailAttachment invite : invites) {
            MimeBodyPart calendar = new MimeBodyPart();
            calendar.setDataHandler(new DataHandler(new ByteArrayDataSource(invite.content(), invite.contentType())));
            calendar.setHeader("Content-Transfer-Encoding", "base64");
            alternative.addBodyPart(calendar);
        }
        part.setContent(alternative);
    }
}
