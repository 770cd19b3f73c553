package dev.mailroom.job;

import dev.mailroom.contract.Attachment;
import dev.mailroom.contract.Unsubscribe;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A send job as producers write it, mirrored from {@code mailroom-job.schema.json} (docs/job-contract.md, "Sending a
 * job"). Built by {@link JobParser}, which binds a document that passed the schema to this record
 * with Jackson (snake_case names).
 *
 * <p>{@code variables} follows the contract's "a null value counts as absent": null map values are
 * dropped at every depth (list elements are kept as they are), and nested maps and lists are read-only,
 * so a job cannot change while it is rendered.
 */
public record SendJob(
        int schemaVersion,
        String messageId,
        String idempotencyKey,
        String tenant,
        String campaignId,
        String category,
        String from,
        List<String> to,
        List<String> cc,
        List<String> bcc,
        String replyTo,
        String subject,
        String text,
        String html,
        String templateId,
        Map<String, Object> variables,
        Map<String, String> headers,
        Map<String, String> metadata,
        Instant expiresAt,
        Priority priority,
        Unsubscribe unsubscribe,
        List<Attachment> attachments,
        Instant sendAt,
        String orderingKey) {

    public enum Priority { low, normal, high }

    /** A read-only copy of a map, null values dropped, nested maps and lists copied the same way. */
    private static Map<String, Object> withoutNullValues(Map<String, ?> map) {
        Map<String, Object> out = new LinkedHashMap<>();
        map.forEach((k, v) -> {
            if (v != null) {
                out.put(k, readOnly(v));
            }
        });
        return Collections.unmodifiableMap(out);
    }

    private static Object readOnly(Object value) {
        if (value instanceof Map<?, ?> map) {
            @SuppressWarnings("unchecked")
            Map<String, ?> object = (Map<String, ?>) map;
            return withoutNullValues(object);
        }
        if (value instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            list.forEach(e -> out.add(e == null ? null : readOnly(e)));
            return Collections.unmodifiableList(out);
        }
        return value;
    }

    /** A job without a send time: it goes now. */
    public SendJob(int schemaVersion, String messageId, String idempotencyKey, String tenant, String campaignId,
                   String category, String from, List<String> to, List<String> cc, List<String> bcc, String replyTo,
                   String subject, String text, String html, String templateId, Map<String, Object> variables,
                   Map<String, String> headers, Map<String, String> metadata, Instant expiresAt, Priority priority,
                   Unsubscribe unsubscribe, List<Attachment> attachments) {
        this(schemaVersion, messageId, idempotencyKey, tenant, campaignId, category, from, to, cc, bcc, replyTo, subject,
                text, html, templateId, variables, headers, metadata, expiresAt, priority, unsubscribe, attachments, null);
    }

    /** A job without an ordering key: it waits behind no other job. */
    public SendJob(int schemaVersion, String messageId, String idempotencyKey, String tenant, String campaignId,
                   String category, String from, List<String> to, List<String> cc, List<String> bcc, String replyTo,
                   String subject, String text, String html, String templateId, Map<String, Object> variables,
                   Map<String, String> headers, Map<String, String> metadata, Instant expiresAt, Priority priority,
                   Unsubscribe unsubscribe, List<Attachment> attachments, Instant sendAt) {
        this(schemaVersion, messageId, idempotencyKey, tenant, campaignId, category, from, to, cc, bcc, replyTo, subject,
                text, html, templateId, variables, headers, metadata, expiresAt, priority, unsubscribe, attachments, sendAt,
                null);
    }

    @com.fasterxml.jackson.annotation.JsonCreator
    public SendJob {
        to = to == null ? List.of() : List.copyOf(to);
        cc = cc == null ? List.of() : List.copyOf(cc);
        bcc = bcc == null ? List.of() : List.copyOf(bcc);
        variables = variables == null ? Map.of() : Map.copyOf(withoutNullValues(variables));
        headers = headers == null ? Map.of() : Map.copyOf(headers);
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
        attachments = attachments == null ? List.of() : List.copyOf(attachments);
        if (idempotencyKey == null || idempotencyKey.isBlank()) {
            idempotencyKey = messageId;
        }
        if (priority == null) {
            priority = Priority.normal;
        }
    }

    /**
     * This job without the recipients at {@code positions} (numbered as {@link JobRecipient#of} numbers them: to,
     * then cc, then bcc): what the provider is handed when some recipients are suppressed, so neither an SMTP
     * {@code RCPT TO} nor an HTTP payload ever names them.
     */
    public SendJob withoutRecipients(java.util.Set<Integer> positions) {
        if (positions.isEmpty()) {
            return this;
        }
        List<List<String>> kinds = List.of(to, cc, bcc);
        List<List<String>> kept = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        int position = 0;
        for (int k = 0; k < kinds.size(); k++) {
            for (String address : kinds.get(k)) {
                if (!positions.contains(position++)) {
                    kept.get(k).add(address);
                }
            }
        }
        return new SendJob(schemaVersion, messageId, idempotencyKey, tenant, campaignId, category, from, kept.get(0),
                kept.get(1), kept.get(2), replyTo, subject, text, html, templateId, variables, headers, metadata,
                expiresAt, priority, unsubscribe, attachments, sendAt, orderingKey);
    }
}
