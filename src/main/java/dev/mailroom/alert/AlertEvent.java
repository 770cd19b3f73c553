package dev.mailroom.alert;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Something that happened and may deserve an alert. Raised once per occurrence (one per dead letter,
 * one per failed check); deciding how loud it is and folding many into one alert happen later, off
 * the caller's thread.
 *
 * @param kind    what happened
 * @param labels  what it happened to: {@code queue}, {@code reason}, {@code failure_class},
 *                {@code error_type}, {@code provider}, {@code code}, {@code message_id}, ...;
 *                names are Alertmanager label names, values never null
 * @param summary one sentence about this one occurrence
 * @param at      when it happened
 */
public record AlertEvent(Kind kind, Map<String, String> labels, String summary, Instant at) {

    /** The label naming the message the event is about: an example, never a grouping label. */
    public static final String MESSAGE_ID = "message_id";
    public static final String QUEUE = "queue";
    public static final String REASON = "reason";
    public static final String FAILURE_CLASS = "failure_class";
    public static final String ERROR_TYPE = "error_type";
    public static final String PROVIDER = "provider";
    public static final String CODE = "code";
    public static final String STATE = "state";
    public static final String TENANT = "tenant";
    /** The node an alert is about: its {@code mailroom.node.id} in-app, its scrape target in Prometheus. */
    public static final String INSTANCE = "instance";

    /** The kinds of occurrence Mailroom alerts on. */
    public enum Kind {
        /** A job was dead-lettered (by the policy, or by the broker and found by the sweeper). */
        DEAD_LETTER_ARRIVAL,
        /** The oldest open dead letter of a queue is older than its limit: nobody is looking. */
        OLDEST_AGE_EXCEEDED,
        /** An open dead letter is within the warning time of its retention expiry. */
        RETENTION_EXPIRING,
        /** A provider answered with a code no mapping table covers. */
        UNKNOWN_PROVIDER_CODE,
        /** A provider's circuit breaker opened or closed. */
        PROVIDER_BREAKER,
        /**
         * A send may have reached a provider that cannot drop a duplicate: the job is {@code unknown} and
         * waits for an operator (mark as sent, or send again).
         */
        SEND_OUTCOME_UNKNOWN,
        /** A send queue's line stopped: its consumers are paused, its jobs wait on the broker. */
        QUEUE_PAUSED,
        /** A job is still {@code sent_to_provider} past its provider's limit with no provider event (never assumed failed). */
        DELIVERY_SILENT,
        /** A queue and tenant's bounce or complaint rate went over its threshold: the provider may suspend the sender. */
        DELIVERY_RATE_EXCEEDED,
        /** Attempt outcomes a node knows have stayed unrecorded past the limit: only that node's memory holds them. */
        OUTCOMES_UNRECORDED
    }

    public AlertEvent {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(labels, "labels");
        Objects.requireNonNull(summary, "summary");
        Objects.requireNonNull(at, "at");
        // sorted, so that labels print and serialise the same way every time
        TreeMap<String, String> copy = new TreeMap<>();
        labels.forEach((k, v) -> {
            if (!LabelNames.valid(k)) {
                throw new IllegalArgumentException("'" + k + "' is not an Alertmanager label name");
            }
            copy.put(k, Objects.requireNonNull(v, () -> "label " + k));
        });
        labels = Collections.unmodifiableMap(copy);
    }

    /** A label's value, or {@code ""} when the event has no such label. */
    public String label(String name) {
        return labels.getOrDefault(name, "");
    }

    /**
     * A job was dead-lettered.
     *
     * @param failureClass the failure class, or null (e.g. a job rejected before any provider call)
     * @param errorType    the exception or error type, or null
     * @param messageId    the job's message id, or null when it could not be read
     */
    public static AlertEvent deadLetter(String queue, String reason, String failureClass, String errorType,
            String messageId, Instant at) {
        Map<String, String> l = new TreeMap<>();
        l.put(QUEUE, Objects.requireNonNull(queue, "queue"));
        l.put(REASON, Objects.requireNonNull(reason, "reason"));
        putIfPresent(l, FAILURE_CLASS, failureClass);
        putIfPresent(l, ERROR_TYPE, errorType);
        putIfPresent(l, MESSAGE_ID, messageId);
        StringBuilder s = new StringBuilder("Dead letter on ").append(queue).append(": ").append(reason);
        if (failureClass != null || errorType != null) {
            s.append(" (").append(failureClass == null ? "" : failureClass)
                    .append(failureClass != null && errorType != null ? ", " : "")
                    .append(errorType == null ? "" : errorType).append(')');
        }
        if (messageId != null) {
            s.append(", message ").append(messageId);
        }
        return new AlertEvent(Kind.DEAD_LETTER_ARRIVAL, l, s.toString(), at);
    }

    /**
     * The oldest open dead letter of {@code queue} is {@code age} old, more than {@code limit}.
     *
     * @param messageId the oldest one's message id, or null
     */
    public static AlertEvent oldestAgeExceeded(String queue, Duration age, Duration limit, String messageId,
            Instant at) {
        Map<String, String> l = new TreeMap<>();
        l.put(QUEUE, Objects.requireNonNull(queue, "queue"));
        putIfPresent(l, MESSAGE_ID, messageId);
        return new AlertEvent(Kind.OLDEST_AGE_EXCEEDED, l, "Oldest open dead letter on " + queue
                + (messageId == null ? "" : " (message " + messageId + ")") + " is " + AlertConfig.text(age)
                + " old, limit " + AlertConfig.text(limit), at);
    }

    /**
     * An open dead letter of {@code queue} reaches its retention expiry at {@code expiresAt}, after which
     * its payload is dropped.
     */
    public static AlertEvent retentionExpiring(String queue, String messageId, Instant expiresAt, Instant at) {
        Map<String, String> l = new TreeMap<>();
        l.put(QUEUE, Objects.requireNonNull(queue, "queue"));
        putIfPresent(l, MESSAGE_ID, messageId);
        return new AlertEvent(Kind.RETENTION_EXPIRING, l, "Open dead letter on " + queue
                + (messageId == null ? "" : " (message " + messageId + ")") + " expires at "
                + Objects.requireNonNull(expiresAt, "expiresAt") + " (retention); its payload is dropped then", at);
    }

    /**
     * {@code provider} answered with {@code code} (an SMTP reply, enhanced code, HTTP status or API
     * error code) that no mapping table covers, so it was classified {@code unknown}.
     *
     * @param queue     the send queue, or null
     * @param messageId the job that got the answer, or null
     */
    public static AlertEvent unknownProviderCode(String provider, String code, String queue, String messageId,
            Instant at) {
        Map<String, String> l = new TreeMap<>();
        l.put(PROVIDER, Objects.requireNonNull(provider, "provider"));
        l.put(CODE, Objects.requireNonNull(code, "code"));
        putIfPresent(l, QUEUE, queue);
        putIfPresent(l, MESSAGE_ID, messageId);
        return new AlertEvent(Kind.UNKNOWN_PROVIDER_CODE, l, "Provider " + provider + " answered with code "
                + code + " that no mapping covers" + (messageId == null ? "" : " (message " + messageId + ")"), at);
    }

    /**
     * {@code provider}'s circuit breaker moved to {@code state} ({@code open}: no call reaches it, jobs
     * wait on the broker; {@code closed}: it takes mail again).
     */
    public static AlertEvent providerBreaker(String provider, String state, String lastFailure, Instant at) {
        Map<String, String> l = new TreeMap<>();
        l.put(PROVIDER, Objects.requireNonNull(provider, "provider"));
        l.put(STATE, Objects.requireNonNull(state, "state"));
        return new AlertEvent(Kind.PROVIDER_BREAKER, l, "open".equals(state)
                ? "Circuit breaker of provider " + provider + " opened: no call reaches it, its jobs wait on the broker"
                + (lastFailure == null ? "" : " (last failure: " + lastFailure + ")")
                : "Circuit breaker of provider " + provider + " is " + state + ": it takes mail again", at);
    }

    /**
     * The send of {@code messageId} through {@code provider} may have reached it and {@code provider} cannot
     * drop a duplicate: the job is {@code unknown}, never resent by itself.
     *
     * @param path   {@code call} (no answer after the point of no return) or {@code crash} (the worker died there)
     * @param detail what happened, e.g. the timeout
     */
    public static AlertEvent sendOutcomeUnknown(String provider, String queue, String messageId, String path,
            String detail, Instant at) {
        Map<String, String> l = new TreeMap<>();
        l.put(PROVIDER, Objects.requireNonNull(provider, "provider"));
        l.put(QUEUE, Objects.requireNonNull(queue, "queue"));
        l.put(REASON, Objects.requireNonNull(path, "path"));
        putIfPresent(l, MESSAGE_ID, messageId);
        return new AlertEvent(Kind.SEND_OUTCOME_UNKNOWN, l, "Message " + messageId + " on " + queue
                + " may have reached " + provider + " (" + detail + "), which cannot drop a duplicate: it is unknown"
                + " and not sent again; mark it as sent or send it again", at);
    }

    /** Job {@code messageId} on {@code queue} has had no event from {@code provider} for more than {@code limit}. */
    public static AlertEvent deliverySilent(String provider, String queue, String messageId, Duration limit, Instant at) {
        Map<String, String> l = new TreeMap<>();
        l.put(PROVIDER, Objects.requireNonNull(provider, "provider"));
        l.put(QUEUE, Objects.requireNonNull(queue, "queue"));
        putIfPresent(l, MESSAGE_ID, messageId);
        return new AlertEvent(Kind.DELIVERY_SILENT, l, "Message " + messageId + " on " + queue + " is still sent_to_provider "
                + AlertConfig.text(limit) + " after it went to " + provider + ", with no event from it: not assumed failed;"
                + " check the provider's webhooks", at);
    }

    /**
     * The {@code kind} ({@code bounce} or {@code complaint}) rate of {@code queue} and {@code tenant} is {@code rate},
     * over {@code threshold}, {@code count} of {@code sent} recipients in {@code window}.
     */
    public static AlertEvent deliveryRateExceeded(String kind, String queue, String tenant, long sent, long count, double rate,
            double threshold, Duration window, Instant at) {
        Map<String, String> l = new TreeMap<>();
        l.put(REASON, Objects.requireNonNull(kind, "kind"));
        l.put(QUEUE, Objects.requireNonNull(queue, "queue"));
        l.put(TENANT, Objects.requireNonNull(tenant, "tenant"));
        return new AlertEvent(Kind.DELIVERY_RATE_EXCEEDED, l, String.format(java.util.Locale.ROOT,
                "%s rate of %s (tenant %s) is %.2f %% (%d of %d recipients in %s), over the threshold of %.2f %%",
                kind, queue, tenant, rate * 100, count, sent, AlertConfig.text(window), threshold * 100), at);
    }

    /**
     * The line of {@code queue} stopped for {@code reason} ({@code systemic}, {@code providers_open},
     * {@code dead_letter_rate}, {@code database}, {@code operator}).
     */
    public static AlertEvent queuePaused(String queue, String reason, String detail, Instant at) {
        Map<String, String> l = new TreeMap<>();
        l.put(QUEUE, Objects.requireNonNull(queue, "queue"));
        l.put(REASON, Objects.requireNonNull(reason, "reason"));
        return new AlertEvent(Kind.QUEUE_PAUSED, l, "Consumers of " + queue + " paused (" + reason + ")"
                + (detail == null ? "" : ": " + detail) + "; its jobs wait on the broker until a probe or an operator"
                + " resumes it", at);
    }

    /**
     * {@code count} attempt outcomes known to node {@code instance} could not be recorded, the oldest for
     * {@code oldest}: stopping the node loses them and leaves their jobs {@code unknown}.
     */
    public static AlertEvent outcomesUnrecorded(String instance, int count, Duration oldest, Instant at) {
        Map<String, String> l = new TreeMap<>();
        l.put(INSTANCE, Objects.requireNonNull(instance, "instance"));
        return new AlertEvent(Kind.OUTCOMES_UNRECORDED, l, count + " attempt outcome(s) known to " + instance
                + " are not recorded, the oldest for " + AlertConfig.text(oldest) + ": only its memory holds them;"
                + " do not stop or restart it, its log says why each record waits", at);
    }

    private static void putIfPresent(Map<String, String> l, String name, String value) {
        if (value != null && !value.isBlank()) {
            l.put(name, value);
        }
    }
}
