package dev.mailroom.job;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A send job as producers write it (design §2), mirrored from {@code mailroom-job.schema.json}.
 * Built only by {@link JobParser} from a document that passed the schema.
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
        Priority priority) {

    public enum Priority { low, normal, high }

    public SendJob {
        to = to == null ? List.of() : List.copyOf(to);
        cc = cc == null ? List.of() : List.copyOf(cc);
        bcc = bcc == null ? List.of() : List.copyOf(bcc);
        variables = variables == null ? Map.of() : Map.copyOf(variables);
        headers = headers == null ? Map.of() : Map.copyOf(headers);
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
        if (idempotencyKey == null || idempotencyKey.isBlank()) {
            idempotencyKey = messageId;
        }
        if (priority == null) {
            priority = Priority.normal;
        }
    }
}
