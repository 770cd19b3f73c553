package dev.mailroom.contract;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.PathType;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Whether the bytes of a send job keep the contract (docs/job-contract.md: {@code mailroom-job.schema.json} and the rules
 * below), and if not, which {@link RejectReason} and which violations. The server's parser and the producers' client
 * both decide here.
 *
 * <p>The checks run in this order, and the first failing one decides the reason:
 * <ol>
 *   <li>{@code too_large}: more bytes than the limit (default 1 MiB). Decided from the length alone; the body is not
 *       decoded or parsed, so a 20 MB body costs nothing.</li>
 *   <li>{@code not_json}: null or empty body, bytes that are not valid UTF-8 (strict decoder, no replacement
 *       characters), text that is not exactly one JSON value (trailing content is an error), JSON nested deeper than
 *       {@value #MAX_NESTING_DEPTH} levels, or a value that is not an object. One leading UTF-8 byte order mark is
 *       ignored (RFC 8259 §8.1 allows it).</li>
 *   <li>{@code schema_violation} for <b>duplicate keys</b> in any object. Such a document is JSON by RFC 8259 syntax,
 *       so it is not {@code not_json}; but which value wins is parser-dependent, so the job is ambiguous and breaks
 *       the contract. Jackson's {@code STRICT_DUPLICATE_DETECTION} finds it and stops there, so the violation names
 *       the first duplicated path.</li>
 *   <li>{@code unsupported_schema_version}: {@code schema_version} present and not a version this build reads (1 to
 *       3; any other type or number). An <em>absent</em> {@code schema_version} is a {@code schema_violation} (it is
 *       a required property), reported together with any other violation.</li>
 *   <li>{@code schema_violation}: what the schema rejects, plus an {@code expires_at} or {@code send_at} that
 *       {@link OffsetDateTime} cannot parse, plus a {@code send_at} after {@code expires_at} (it would expire before
 *       its time), plus a {@code headers} entry that names a header Mailroom owns ({@link #isOwnedHeader}), plus
 *       a field newer than the job's declared {@code schema_version} ({@link SchemaVersions#tooNew}). Every
 *       violation is {@code <json-pointer>: <what is wrong>}, sorted, so equal input gives equal violations.</li>
 * </ol>
 *
 * <p>Thread-safe: the mappers and the compiled schema are immutable and built once (the schema is read from the
 * classpath when the class initialises, so a broken or missing schema fails deployment rather than the first job).
 */
public final class JobContract {

    /** Default body limit: 1 MiB. */
    public static final int DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
    /** Deepest JSON nesting accepted; deeper documents are {@code not_json}. */
    public static final int MAX_NESTING_DEPTH = 64;
    /** The newest {@code schema_version} this build reads (it reads every one from 1 up to it). */
    public static final int LATEST_SCHEMA_VERSION = SchemaVersions.LATEST;
    /** Classpath location of the job contract (the one source file; the client jar ships the same resource). */
    public static final String SCHEMA_RESOURCE = "/schema/mailroom-job.schema.json";
    /** Upper bound of a refusal's detail, in characters; details are stored and shown verbatim. */
    public static final int MAX_DETAIL_CHARS = 2_000;

    private static final int MAX_ENTRY_CHARS = 300;
    private static final int MAX_MESSAGE_ID_CHARS = 200;

    private static final ObjectMapper JOBS = newMapper(true);
    private static final ObjectMapper LENIENT = newMapper(false);
    private static final JsonSchema SCHEMA = loadSchema();

    /** Headers a job may not set, lower case; see {@link #isOwnedHeader(String)} for the prefixes. */
    private static final Set<String> OWNED_HEADERS = Set.of(
            "from", "sender", "to", "cc", "bcc", "reply-to", "subject", "message-id", "date", "mime-version",
            "return-path", "list-unsubscribe", "list-unsubscribe-post");

    private JobContract() {
    }

    /** The verdict on one body. */
    public sealed interface Verdict {
    }

    /** The body keeps the contract; {@code root} is the job document as read. */
    public record Kept(JsonNode root) implements Verdict {
        public Kept {
            Objects.requireNonNull(root, "root");
        }
    }

    /**
     * The body breaks the contract.
     *
     * @param reason     the first failing check
     * @param violations what is wrong, each naming its JSON path (for a schema violation: sorted, every one found);
     *                   never empty
     * @param messageId  the job's {@code message_id} when the body was an object whose {@code message_id} is a
     *                   well-formed id (1..200 characters without control characters), else null
     */
    public record Broken(RejectReason reason, List<String> violations, String messageId) implements Verdict {
        public Broken {
            Objects.requireNonNull(reason, "reason");
            violations = List.copyOf(violations);
            if (violations.isEmpty()) {
                throw new IllegalArgumentException("a broken contract names what is wrong");
            }
        }

        /** The violations in one bounded line ({@code ; }-separated). */
        public String detail() {
            return violations.size() == 1 ? violations.get(0) : ParseMessages.joinBounded(violations);
        }
    }

    /**
     * Checks one job body against the contract. Throws only on a bug of its own (the server's parser turns that into
     * a refusal too).
     *
     * @param body         the raw bytes (UTF-8 JSON); may be null
     * @param maxBodyBytes largest accepted body in bytes
     */
    public static Verdict check(byte[] body, int maxBodyBytes) {
        if (body == null || body.length == 0) {
            return notJson("empty body");
        }
        if (body.length > maxBodyBytes) {
            return new Broken(RejectReason.too_large,
                    List.of("body is " + body.length + " bytes; the limit is " + maxBodyBytes + " bytes"), null);
        }
        String text;
        ByteBuffer in = ByteBuffer.wrap(body);
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(in).toString();
        } catch (CharacterCodingException e) {
            return notJson("not valid UTF-8: malformed byte sequence at byte offset " + in.position());
        }
        if (!text.isEmpty() && text.charAt(0) == '\uFEFF') {
            text = text.substring(1);
        }
        return checkText(text);
    }

    private static Verdict checkText(String text) {
        JsonNode root;
        String duplicate = null;
        try {
            root = JOBS.readTree(text);
        } catch (JacksonException strict) {
            // JOBS differs from LENIENT only in STRICT_DUPLICATE_DETECTION: if LENIENT reads the text, the strict
            // failure was a duplicate key (and not_json still wins over it)
            try {
                root = LENIENT.readTree(text);
            } catch (JacksonException e) {
                return notJson("not JSON: " + ParseMessages.describe(e));
            }
            duplicate = duplicatePath(strict);
        }
        if (root == null || root.isMissingNode()) {
            return notJson("no JSON value in the body");
        }
        if (!root.isObject()) {
            return notJson("expected one JSON object, found " + root.getNodeType().name().toLowerCase(Locale.ROOT));
        }
        String messageId = "/message_id".equals(duplicate) ? null : messageIdOf(root);
        if (duplicate != null) {
            return new Broken(RejectReason.schema_violation,
                    List.of(ParseMessages.displayPath(duplicate) + ": duplicate key (the value is ambiguous)"), messageId);
        }
        JsonNode version = root.get("schema_version");
        if (version != null && !isSupportedVersion(version)) {
            return new Broken(RejectReason.unsupported_schema_version,
                    List.of("schema_version " + ParseMessages.abbreviate(version.toString(), 60)
                            + " is not supported; this consumer reads schema_version " + SchemaVersions.OLDEST
                            + " to " + SchemaVersions.LATEST),
                    messageId);
        }
        Set<String> violations = violations(root);
        if (!violations.isEmpty()) {
            return new Broken(RejectReason.schema_violation, List.copyOf(violations), messageId);
        }
        return new Kept(root);
    }

    /** What the schema and the checks it cannot express find wrong with {@code root}, sorted. */
    private static Set<String> violations(JsonNode root) {
        Set<String> violations = new TreeSet<>();
        for (ValidationMessage m : SCHEMA.validate(root)) {
            String entry = ParseMessages.describe(m, root);
            if (entry != null) {
                violations.add(ParseMessages.abbreviate(entry, MAX_ENTRY_CHARS));
            }
        }
        Instant expiresAt = instant(root, "expires_at", violations);
        Instant sendAt = instant(root, "send_at", violations);
        if (sendAt != null && expiresAt != null && sendAt.isAfter(expiresAt)) {
            violations.add("/send_at: is after expires_at (" + expiresAt + "): the job would expire before its send"
                    + " time; move send_at before expires_at or expires_at after it");
        }
        JsonNode attachments = root.get("attachments");
        if (attachments != null && attachments.isArray()) {
            violations.addAll(AttachmentRule.undecodable(attachments));
        }
        JsonNode version = root.get("schema_version");
        if (version != null && version.isNumber()) {
            // checkText let through only a supported version, so this is 1 to 3 (1.0 reads as 1)
            List<String> fields = new java.util.ArrayList<>();
            root.fieldNames().forEachRemaining(fields::add);
            violations.addAll(SchemaVersions.tooNew(version.decimalValue().intValue(), fields));
        }
        JsonNode headers = root.get("headers");
        if (headers != null && headers.isObject()) {
            headers.fieldNames().forEachRemaining(name -> {
                if (isOwnedHeader(name)) {
                    violations.add(ParseMessages.abbreviate(ParseMessages.displayPath("/headers/"
                            + ParseMessages.escapePointer(name)) + ": " + ParseMessages.OWNED_HEADER, MAX_ENTRY_CHARS));
                }
            });
        }
        return violations;
    }

    /**
     * The date-time at {@code field} as an instant, or null when absent or not text (the schema reports that) or
     * unreadable: an Instant is what the server holds, so what {@link OffsetDateTime} cannot read is a violation,
     * whatever the schema's format check says.
     */
    private static Instant instant(JsonNode root, String field, Set<String> violations) {
        JsonNode value = root.get(field);
        if (value == null || !value.isTextual()) {
            return null;
        }
        try {
            return OffsetDateTime.parse(value.textValue(), DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
        } catch (DateTimeException e) {
            violations.add("/" + field + ": " + ParseMessages.NOT_A_DATE_TIME);
            return null;
        }
    }

    /**
     * Whether a job header names one Mailroom writes itself (case-insensitive): the addressing and subject headers
     * come from job fields, the MIME headers from the content, {@code X-Mailroom-*} are ours. A job that sets one is
     * refused, as poison, rather than failing inside a provider and being retried as if the fault were ours.
     */
    public static boolean isOwnedHeader(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return OWNED_HEADERS.contains(lower) || lower.startsWith("content-") || lower.startsWith("x-mailroom-");
    }

    /**
     * Reads a document that kept the contract into a type whose properties are the contract's names in camelCase
     * (numbers exactly as written: {@code 12.50} stays {@code 12.50}).
     */
    public static ObjectReader reader() {
        return JOBS.reader();
    }

    // ---------------------------------------------------------------- details

    private static Broken notJson(String detail) {
        return new Broken(RejectReason.not_json, List.of(detail), null);
    }

    private static boolean isSupportedVersion(JsonNode version) {
        if (!version.isNumber()) {
            return false;
        }
        BigDecimal v = version.decimalValue();
        return v.signum() > 0 && v.stripTrailingZeros().scale() <= 0 && v.compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) <= 0
                && SchemaVersions.isSupported(v.intValueExact());
    }

    /** The message id if it is a well-formed id (what the schema demands of it), else null. */
    private static String messageIdOf(JsonNode root) {
        JsonNode n = root.get("message_id");
        if (n == null || !n.isTextual()) {
            return null;
        }
        String id = n.textValue();
        if (id.isEmpty() || id.length() > MAX_MESSAGE_ID_CHARS || id.chars().anyMatch(JobContract::isControl)) {
            return null;
        }
        return id;
    }

    private static boolean isControl(int c) {
        return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x2028 || c == 0x2029;
    }

    /** The JSON pointer of the key {@code STRICT_DUPLICATE_DETECTION} stopped at. */
    private static String duplicatePath(JacksonException strict) {
        if (strict.getProcessor() instanceof JsonParser p && p.getParsingContext() != null) {
            return p.getParsingContext().pathAsPointer().toString();
        }
        return "";
    }

    // ---------------------------------------------------------------- set-up

    /**
     * The job mapper: strict duplicate detection, numbers exactly as written, and binding by the contract's
     * snake_case names. Without {@code strict}, the same mapper tells a duplicate key from text that is not JSON.
     */
    private static ObjectMapper newMapper(boolean strict) {
        JsonFactory factory = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(MAX_NESTING_DEPTH)
                        .maxNumberLength(100)
                        .maxNameLength(10_000)
                        .build())
                .configure(StreamReadFeature.STRICT_DUPLICATE_DETECTION, strict)
                .build();
        return JsonMapper.builder(factory)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
                .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .addModule(new JavaTimeModule())
                .build();
    }

    private static JsonSchema loadSchema() {
        SchemaValidatorsConfig config = SchemaValidatorsConfig.builder()
                .pathType(PathType.JSON_POINTER)
                .formatAssertionsEnabled(true)
                .locale(Locale.ROOT)
                .build();
        try (InputStream in = JobContract.class.getResourceAsStream(SCHEMA_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("job schema not on the classpath: " + SCHEMA_RESOURCE);
            }
            JsonSchema schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
                    .getSchema(LENIENT.readTree(in), config);
            schema.initializeValidators();
            return schema;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the job schema " + SCHEMA_RESOURCE, e);
        }
    }
}
