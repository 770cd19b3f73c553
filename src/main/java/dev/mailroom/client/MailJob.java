package dev.mailroom.client;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One send job that keeps the job contract: made only by {@link MailJobBuilder#build()}, which refuses a job the
 * server would dead-letter as poison. Immutable; {@link #json()} is exactly what goes on the queue.
 *
 * <pre>{@code
 * MailJob job = MailJob.to("alice@example.com")
 *         .from("Shop <noreply@example.com>")
 *         .template("password-reset").variable("name", "Alice")
 *         .category("password_reset")
 *         .idempotencyKey("password-reset/" + requestId)
 *         .build();
 * }</pre>
 */
public final class MailJob {

    /** The contract's {@code priority}. */
    public enum Priority { low, normal, high }

    private final Map<String, Object> document;
    private final String json;
    private final String queue;
    private final String traceparent;

    MailJob(Map<String, Object> document, String json, String queue, String traceparent) {
        this.document = Collections.unmodifiableMap(document);
        this.json = json;
        this.queue = queue;
        this.traceparent = traceparent;
    }

    /** A builder with these {@code to} recipients. */
    public static MailJobBuilder to(String... addresses) {
        return new MailJobBuilder().to(addresses);
    }

    /** An empty builder. */
    public static MailJobBuilder builder() {
        return new MailJobBuilder();
    }

    /** The job's {@code message_id} (given, or a random UUID). */
    public String messageId() {
        return (String) document.get("message_id");
    }

    /** The identity of the effect: {@code idempotency_key}, or the message id when none was given. */
    public String idempotencyKey() {
        return (String) document.getOrDefault("idempotency_key", messageId());
    }

    /** The job's {@code ordering_key}, if it has one: the client sends it as the JMS group id too. */
    public Optional<String> orderingKey() {
        return Optional.ofNullable((String) document.get("ordering_key"));
    }

    /** The send queue this job asked for, if any (else the client's). */
    public Optional<String> queue() {
        return Optional.ofNullable(queue);
    }

    /** The W3C {@code traceparent} this job carries, if any. */
    public Optional<String> traceparent() {
        return Optional.ofNullable(traceparent);
    }

    /** The JSON document, as it is sent. */
    public String json() {
        return json;
    }

    /** The document's fields by their contract names ({@code to}, {@code template_id}, ...), read-only. */
    public Map<String, Object> document() {
        return document;
    }

    /** The {@code to} recipients. */
    @SuppressWarnings("unchecked")
    public List<String> recipients() {
        return (List<String>) document.get("to");
    }

    /** {@code template_id}, if the job is a template job. */
    public Optional<String> templateId() {
        return Optional.ofNullable((String) document.get("template_id"));
    }

    /** {@code category}, if set. */
    public Optional<String> category() {
        return Optional.ofNullable((String) document.get("category"));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MailJob other && json.equals(other.json) && Objects.equals(queue, other.queue)
                && Objects.equals(traceparent, other.traceparent);
    }

    @Override
    public int hashCode() {
        return json.hashCode();
    }

    @Override
    public String toString() {
        return "MailJob[" + messageId() + (queue == null ? "" : " on " + queue) + "]";
    }
}
