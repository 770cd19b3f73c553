package dev.mailroom.deadletter;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The context a dead letter carries (docs/dead-letters.md; envelope {@code schema_version} 1), written in the same words
 * on the DLQ message ({@code mr_*} properties, see {@link #jmsProperties()}) and in the
 * {@code dead_letter} row. The payload is not part of it: it stays byte-for-byte the message body.
 */
public record DeadLetterEnvelope(
        String reason,
        String failureClass,
        String messageId,
        String idempotencyKey,
        String sourceQueue,
        String consumer,
        String consumerVersion,
        List<AttemptEntry> attempts,
        Instant firstSeenAt,
        Instant failedAt,
        String errorType,
        String error,
        String stacktrace,
        String traceId,
        String campaignId,
        String tenant,
        String provider,
        Instant expiresAt,
        String routedBy,
        String originalJmsMessageId,
        String payloadSha256) {

    public static final int SCHEMA_VERSION = 1;
    public static final String ROUTED_BY_POLICY = "policy";
    public static final String ROUTED_BY_BROKER = "broker";
    /** Bounds that keep one envelope a reasonable JMS header and row. */
    public static final int MAX_ERROR = 4000;
    public static final int MAX_STACKTRACE = 16000;
    public static final int MAX_ATTEMPTS_JSON = 20000;

    /** One attempt as the envelope lists it; {@code response} is the provider's text, verbatim and bounded. */
    public record AttemptEntry(int number, Instant at, String provider, String failureClass, String outcome,
                               String code, String enhancedCode, String response) { }

    public DeadLetterEnvelope {
        attempts = attempts == null ? List.of() : List.copyOf(attempts);
        error = bound(error, MAX_ERROR);
        stacktrace = bound(stacktrace, MAX_STACKTRACE);
    }

    public int attemptCount() {
        return attempts.size();
    }

    /** The envelope as {@code mr_*} JMS properties; absent values are left out. */
    public Map<String, Object> jmsProperties(String attemptsJson) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("mr_schema_version", SCHEMA_VERSION);
        put(p, "mr_reason", reason);
        put(p, "mr_failure_class", failureClass);
        put(p, "mr_message_id", messageId);
        put(p, "mr_idempotency_key", idempotencyKey);
        put(p, "mr_source_queue", sourceQueue);
        put(p, "mr_consumer", consumer);
        put(p, "mr_consumer_version", consumerVersion);
        p.put("mr_attempt_count", attemptCount());
        put(p, "mr_attempts", attemptsJson);
        put(p, "mr_first_seen_at", firstSeenAt == null ? null : firstSeenAt.toString());
        put(p, "mr_failed_at", failedAt == null ? null : failedAt.toString());
        put(p, "mr_error_type", errorType);
        put(p, "mr_error", error);
        put(p, "mr_stacktrace", stacktrace);
        put(p, "mr_trace_id", traceId);
        put(p, "mr_campaign_id", campaignId);
        put(p, "mr_tenant", tenant);
        put(p, "mr_provider", provider);
        put(p, "mr_expires_at", expiresAt == null ? null : expiresAt.toString());
        put(p, "mr_routed_by", routedBy);
        put(p, "mr_original_jms_message_id", originalJmsMessageId);
        put(p, "mr_payload_sha256", payloadSha256);
        return p;
    }

    private static void put(Map<String, Object> p, String key, Object value) {
        if (value != null) {
            p.put(key, value);
        }
    }

    static String bound(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max);
    }
}
