package dev.mailroom.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.mailroom.contract.Attachment;
import dev.mailroom.contract.AttachmentRule;
import dev.mailroom.contract.JobContract;
import dev.mailroom.contract.RejectReason;
import dev.mailroom.contract.SchemaVersions;
import dev.mailroom.contract.SendAtRule;
import dev.mailroom.contract.UnsubscribeRule;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Collects a job's fields by the contract's names and builds a {@link MailJob}, or refuses it with the server's reason
 * ({@link InvalidJobException}). Nothing is checked before {@link #build()}, which runs the server's own contract
 * check ({@link JobContract#check}) on the exact bytes that will be sent. Not thread-safe; one builder per job.
 *
 * <p>Fields left unset are left out of the document; setting a field to null unsets it. A template job without
 * variables gets an empty {@code variables} object (the contract asks for one beside {@code template_id}).
 */
public final class MailJobBuilder {

    /** W3C trace context, version 00: {@code 00-<trace id>-<parent id>-<flags>}. */
    private static final Pattern TRACEPARENT = Pattern.compile("[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");

    /** How the client writes a document: dates in variables as ISO-8601 text, as a template would print them. */
    private static final ObjectMapper WRITER = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .build();

    private final Map<String, Object> fields = new LinkedHashMap<>();
    private final List<String> to = new ArrayList<>();
    private final List<String> cc = new ArrayList<>();
    private final List<String> bcc = new ArrayList<>();
    private final Map<String, Object> variables = new LinkedHashMap<>();
    private final Map<String, String> headers = new LinkedHashMap<>();
    private final Map<String, String> metadata = new LinkedHashMap<>();
    private final List<Map<String, Object>> attachments = new ArrayList<>();
    private boolean variablesGiven;
    private String queue;
    private String traceparent;
    private int bodyLimit = JobContract.DEFAULT_MAX_BODY_BYTES;
    private long attachmentLimit = AttachmentRule.DEFAULT_MAX_BYTES;
    private long jobAttachmentLimit = AttachmentRule.DEFAULT_MAX_JOB_BYTES;
    /** The message id when none is given: drawn once, so every build of this builder is the same send. */
    private final String randomMessageId = UUID.randomUUID().toString();

    MailJobBuilder() {
    }

    /** Adds {@code to} recipients: {@code local@domain} or {@code Display Name <local@domain>}. */
    public MailJobBuilder to(String... addresses) {
        to.addAll(Arrays.asList(addresses));
        return this;
    }

    public MailJobBuilder cc(String... addresses) {
        cc.addAll(Arrays.asList(addresses));
        return this;
    }

    public MailJobBuilder bcc(String... addresses) {
        bcc.addAll(Arrays.asList(addresses));
        return this;
    }

    public MailJobBuilder from(String mailbox) {
        return field("from", mailbox);
    }

    public MailJobBuilder replyTo(String mailbox) {
        return field("reply_to", mailbox);
    }

    /** The producer's id of this send, unique per send queue; a random UUID when not given. */
    public MailJobBuilder messageId(String messageId) {
        return field("message_id", messageId);
    }

    /** The identity of the effect (one mail per key, across retries, replays and duplicate sends). */
    public MailJobBuilder idempotencyKey(String key) {
        return field("idempotency_key", key);
    }

    public MailJobBuilder tenant(String tenant) {
        return field("tenant", tenant);
    }

    public MailJobBuilder campaignId(String campaignId) {
        return field("campaign_id", campaignId);
    }

    public MailJobBuilder category(String category) {
        return field("category", category);
    }

    /** Rendered content: the subject (give {@link #text} and/or {@link #html} too). */
    public MailJobBuilder subject(String subject) {
        return field("subject", subject);
    }

    public MailJobBuilder text(String text) {
        return field("text", text);
    }

    public MailJobBuilder html(String html) {
        return field("html", html);
    }

    /** Template content: the template Mailroom renders ({@code templates/<id>.json}). */
    public MailJobBuilder template(String templateId) {
        return field("template_id", templateId);
    }

    /** One value for the template's {@code {{name}}}; maps reach {@code {{name.part}}}. */
    public MailJobBuilder variable(String name, Object value) {
        variables.put(name, value);
        variablesGiven = true;
        return this;
    }

    public MailJobBuilder variables(Map<String, ?> values) {
        variables.putAll(values);
        variablesGiven = true;
        return this;
    }

    /** An extra mail header; the ones Mailroom sets itself (From, Subject, Content-*, ...) are refused. */
    public MailJobBuilder header(String name, String value) {
        headers.put(name, value);
        return this;
    }

    /** A key/value pair echoed to the provider for correlation. */
    public MailJobBuilder metadata(String key, String value) {
        metadata.put(key, value);
        return this;
    }

    /** The end of the validity window: nothing is sent after it. */
    public MailJobBuilder expiresAt(Instant expiresAt) {
        return field("expires_at", expiresAt == null ? null : expiresAt.toString());
    }

    /**
     * When to send it: the job waits on Mailroom's broker until then ({@code scheduled}; an operator may cancel it),
     * and goes at once if the time is past. Not after {@link #expiresAt}; at most the server's horizon ahead
     * ({@code mailroom.send-at.horizon}, {@link #build()} holds it to the default 30 days).
     */
    public MailJobBuilder sendAt(Instant sendAt) {
        return field("send_at", sendAt == null ? null : sendAt.toString());
    }

    /**
     * The job's ordering key (an order number, an account id): Mailroom sends the jobs of one key on one queue in the
     * order they were sent, a later one waiting behind an earlier one that waits for a retry, and sends the jobs of
     * other keys meanwhile. The client also sets it as the JMS group id, so the broker gives a key's jobs to one
     * consumer. 1 to 200 characters without control characters; a job with one is written as {@code schema_version} 3.
     */
    public MailJobBuilder orderingKey(String orderingKey) {
        return field("ordering_key", orderingKey);
    }

    /**
     * One-click unsubscribe (RFC 8058): {@code url} is an https URL that unsubscribes the recipient on a POST;
     * {@code mailto}, an address for the older mailto form, may be null. Required on {@code mail.send.bulk}.
     */
    public MailJobBuilder unsubscribe(String url, String mailto) {
        if (url == null && mailto == null) {
            return field("unsubscribe", null);
        }
        Map<String, String> u = new LinkedHashMap<>();
        u.put("url", url);
        if (mailto != null) {
            u.put("mailto", mailto);
        }
        return field("unsubscribe", u);
    }

    /**
     * An attachment carried in the job (base64 in the document, so within the body limit). A job with attachments is
     * written as {@code schema_version} 2.
     */
    public MailJobBuilder attachment(String filename, String contentType, byte[] content) {
        Map<String, Object> a = attachmentHead(filename, contentType);
        a.put("content_base64", content == null ? null : Base64.getEncoder().encodeToString(content));
        attachments.add(a);
        return this;
    }

    /**
     * An attachment Mailroom fetches at send time from {@code url} (which must be under one of the server's
     * {@code mailroom.attachments.allowed-prefixes}), refusing bytes whose SHA-256 (lower-case hex) or size differ.
     * A job with attachments is written as {@code schema_version} 2.
     */
    public MailJobBuilder attachmentByReference(String filename, String contentType, String url, String sha256,
                                                long size) {
        Map<String, Object> a = attachmentHead(filename, contentType);
        a.put("url", url);
        a.put("sha256", sha256);
        a.put("size", size);
        attachments.add(a);
        return this;
    }

    private static Map<String, Object> attachmentHead(String filename, String contentType) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("filename", filename);
        a.put("content_type", contentType);
        return a;
    }

    public MailJobBuilder priority(MailJob.Priority priority) {
        return field("priority", priority == null ? null : priority.name());
    }

    /** The send queue for this job (else the client's, {@code mail.send} unless configured). */
    public MailJobBuilder queue(String queue) {
        this.queue = queue;
        return this;
    }

    /**
     * The W3C {@code traceparent} of the work that sends this job (sent as the JMS property; Mailroom records its
     * trace id on the job and its dead letter).
     *
     * @throws IllegalArgumentException if it is not a version-00 traceparent
     */
    public MailJobBuilder traceparent(String traceparent) {
        if (traceparent != null && !TRACEPARENT.matcher(traceparent).matches()) {
            throw new IllegalArgumentException("not a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>): " + traceparent);
        }
        this.traceparent = traceparent;
        return this;
    }

    /** The body limit of the Mailroom the job goes to, if it is configured below the default 1 MiB. */
    public MailJobBuilder bodyLimit(int bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("bodyLimit must be positive: " + bytes);
        }
        this.bodyLimit = bytes;
        return this;
    }

    /**
     * The attachment limits of the Mailroom the job goes to ({@code mailroom.attachments.max-bytes} and
     * {@code max-job-bytes}), if they are configured below the defaults (10 MiB and 20 MiB).
     */
    public MailJobBuilder attachmentLimits(long perAttachment, long perJob) {
        if (perAttachment <= 0 || perJob <= 0) {
            throw new IllegalArgumentException("attachment limits must be positive: " + perAttachment + ", " + perJob);
        }
        this.attachmentLimit = perAttachment;
        this.jobAttachmentLimit = perJob;
        return this;
    }

    /**
     * The job, checked by the server's contract on the bytes that will be sent.
     *
     * @throws InvalidJobException naming the reason the server would give and every field that is wrong
     */
    public MailJob build() {
        byte[] body = body();
        JobContract.Verdict verdict = JobContract.check(body, bodyLimit);
        if (verdict instanceof JobContract.Broken broken) {
            throw new InvalidJobException(broken.reason(), broken.violations());
        }
        // the server decides by its setting; a job addressed to the bulk queue is held to the default
        if (queue != null && UnsubscribeRule.decide(queue, UnsubscribeRule.requiredByDefault(queue),
                fields.containsKey("unsubscribe")) instanceof UnsubscribeRule.Refused refused) {
            throw new InvalidJobException(refused.reason(), List.of(refused.violation()));
        }
        // the server decides by its setting and the time the job arrives; the builder holds it to the default now
        if (fields.get("send_at") instanceof String at && SendAtRule.decide(Instant.parse(at),
                SendAtRule.DEFAULT_HORIZON, Instant.now()) instanceof SendAtRule.Refused refused) {
            throw new InvalidJobException(refused.reason(), List.of(refused.violation()));
        }
        if (!attachments.isEmpty() && AttachmentRule.decide(attachmentsOf((JobContract.Kept) verdict), attachmentLimit,
                jobAttachmentLimit) instanceof AttachmentRule.Refused refused) {
            // the server's allowed prefixes are its own: whether a URL is under one is decided there
            throw new InvalidJobException(refused.reason(), List.of(refused.violation()));
        }
        try {
            @SuppressWarnings("unchecked")
            Map<String, Object> read = JobContract.reader().forType(LinkedHashMap.class)
                    .readValue(((JobContract.Kept) verdict).root());
            return new MailJob(read, new String(body, StandardCharsets.UTF_8), queue, traceparent);
        } catch (IOException e) {
            throw new IllegalStateException("a job that kept the contract could not be read back", e);
        }
    }

    private static List<Attachment> attachmentsOf(JobContract.Kept kept) {
        try {
            return JobContract.reader().forType(new com.fasterxml.jackson.core.type.TypeReference<List<Attachment>>() {
            }).readValue(kept.root().get("attachments"));
        } catch (IOException e) {
            throw new IllegalStateException("attachments that kept the contract could not be read back", e);
        }
    }

    /** The body limit {@link #build()} checks against. */
    int bodyLimit() {
        return bodyLimit;
    }

    /** The document as it would be sent, unchecked: what {@link #build()} checks (and what the tests hand the server). */
    byte[] body() {
        try {
            return WRITER.writeValueAsBytes(document());
        } catch (JsonProcessingException e) {
            // a variable Jackson cannot write (a type without properties, a cycle): no JSON to send
            throw new InvalidJobException(RejectReason.not_json,
                    List.of("/variables: cannot be written as JSON (" + e.getOriginalMessage() + ")"));
        }
    }

    private Map<String, Object> document() {
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("schema_version", SchemaVersions.OLDEST); // first in the document; the version is settled below
        document.put("message_id", randomMessageId);
        document.putAll(fields);
        putList(document, "to", to, true);
        putList(document, "cc", cc, false);
        putList(document, "bcc", bcc, false);
        if (variablesGiven || fields.containsKey("template_id")) {
            document.put("variables", new LinkedHashMap<>(variables));
        }
        if (!headers.isEmpty()) {
            document.put("headers", new LinkedHashMap<>(headers));
        }
        if (!metadata.isEmpty()) {
            document.put("metadata", new LinkedHashMap<>(metadata));
        }
        if (!attachments.isEmpty()) {
            document.put("attachments", new ArrayList<>(attachments));
        }
        // the oldest version that has every field used, so a job without new fields stays readable by older servers
        document.put("schema_version", SchemaVersions.needed(document.keySet()));
        return document;
    }

    /** {@code to} is written even when empty, so the refusal says it needs a recipient rather than that it is missing. */
    private static void putList(Map<String, Object> document, String name, List<String> values, boolean always) {
        if (always || !values.isEmpty()) {
            document.put(name, new ArrayList<>(values));
        }
    }

    private MailJobBuilder field(String name, Object value) {
        if (value == null) {
            fields.remove(name);
        } else {
            fields.put(name, value);
        }
        return this;
    }
}
