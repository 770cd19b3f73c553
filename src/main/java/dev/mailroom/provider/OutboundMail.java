package dev.mailroom.provider;

import dev.mailroom.contract.Unsubscribe;
import java.util.List;
import java.util.Map;

/**
 * A rendered mail as handed to a provider. Addresses are RFC 5322 mailboxes ("a@b.c" or
 * "Name &lt;a@b.c&gt;"). {@code idempotencyKey} is the job's effect identity: the HTTP provider sends it
 * in its idempotency header, the SMTP provider derives the stable {@code Message-ID} from it.
 */
public record OutboundMail(
        String messageId,
        String idempotencyKey,
        String from,
        List<String> to,
        List<String> cc,
        List<String> bcc,
        String replyTo,
        String subject,
        String text,
        String html,
        Map<String, String> headers,
        Map<String, String> metadata,
        String tenant,
        String campaignId,
        String category,
        Unsubscribe unsubscribe,
        List<MailAttachment> attachments) {

    /** A mail without attachments. */
    public OutboundMail(String messageId, String idempotencyKey, String from, List<String> to, List<String> cc,
                        List<String> bcc, String replyTo, String subject, String text, String html,
                        Map<String, String> headers, Map<String, String> metadata, String tenant, String campaignId,
                        String category, Unsubscribe unsubscribe) {
        this(messageId, idempotencyKey, from, to, cc, bcc, replyTo, subject, text, html, headers, metadata, tenant,
                campaignId, category, unsubscribe, List.of());
    }

    /** A mail without a one-click unsubscribe. */
    public OutboundMail(String messageId, String idempotencyKey, String from, List<String> to, List<String> cc,
                        List<String> bcc, String replyTo, String subject, String text, String html,
                        Map<String, String> headers, Map<String, String> metadata, String tenant, String campaignId,
                        String category) {
        this(messageId, idempotencyKey, from, to, cc, bcc, replyTo, subject, text, html, headers, metadata, tenant,
                campaignId, category, null, List.of());
    }

    /** This mail with these attachments. */
    public OutboundMail withAttachments(List<MailAttachment> files) {
        return new OutboundMail(messageId, idempotencyKey, from, to, cc, bcc, replyTo, subject, text, html, headers,
                metadata, tenant, campaignId, category, unsubscribe, files);
    }

    /** The job's headers and, when it has an unsubscribe, the two Mailroom sets for it (RFC 8058). */
    public Map<String, String> allHeaders() {
        if (unsubscribe == null) {
            return headers;
        }
        Map<String, String> all = new java.util.TreeMap<>(headers);
        all.putAll(unsubscribe.headers());
        return all;
    }

    public OutboundMail {
        to = to == null ? List.of() : List.copyOf(to);
        cc = cc == null ? List.of() : List.copyOf(cc);
        bcc = bcc == null ? List.of() : List.copyOf(bcc);
        headers = headers == null ? Map.of() : Map.copyOf(headers);
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
        attachments = attachments == null ? List.of() : List.copyOf(attachments);
    }
}
