package dev.mailroom.job;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import dev.mailroom.job.ParseResult.Parsed;
import dev.mailroom.job.ParseResult.Rejected;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Turns the bytes of a send job (the contract: docs/job-contract.md and
 * {@code mailroom-job.schema.json}) into a {@link SendJob}, or says precisely why it cannot.
 *
 * <p>The checks run in this order, and the first failing one decides the {@link RejectReason}:
 * <ol>
 *   <li>{@code too_large}: more bytes than the limit (default 1 MiB). Decided from the length alone;
 *       the body is not decoded or parsed, so a 20 MB body costs nothing.</li>
 *   <li>{@code not_json}: null or empty body, bytes that are not valid UTF-8 (strict decoder, no
 *       replacement characters), text that is not exactly one JSON value (trailing content is an
 *       error), JSON nested deeper than {@value #MAX_NESTING_DEPTH} levels, or a value that is not an
 *       object. One leading UTF-8 byte order mark is ignored (RFC 8259 §8.1 allows it).</li>
 *   <li>{@code schema_violation} for <b>duplicate keys</b> in any object. Such a document is JSON by
 *       RFC 8259 syntax, so it is not {@code not_json}; but which value wins is parser-dependent, so
 *       the job is ambiguous and breaks the contract. Jackson's {@code STRICT_DUPLICATE_DETECTION}
 *       finds it and stops there, so the detail names the first duplicated path.</li>
 *   <li>{@code unsupported_schema_version}: {@code schema_version} present and not 1 (any type, any
 *       number but 1). An <em>absent</em> {@code schema_version} is a {@code schema_violation} (it is
 *       a required property), reported together with any other violation.</li>
 *   <li>{@code schema_violation}: what {@code /schema/mailroom-job.schema.json} rejects, plus an
 *       {@code expires_at} that {@link OffsetDateTime} cannot parse, plus a {@code headers} entry that
 *       names a header Mailroom owns ({@link #isOwnedHeader(String)}). The detail lists every violation
 *       as {@code <json-pointer>: <what is wrong>}, sorted, so equal input gives equal detail.</li>
 * </ol>
 *
 * <p>{@link #parse(byte[])} never throws: a job the consumer cannot read must become a recorded
 * rejection, never an exception that would roll the transaction back and be redelivered forever. If
 * the parser itself fails unexpectedly (a bug), the result is a {@code schema_violation} whose detail
 * says so.
 *
 * <p>Thread-safe and meant to be shared: the Jackson mapper and the compiled schema are immutable and
 * built once per class (the schema is loaded from the classpath when the class initialises, so a
 * broken or missing schema fails deployment rather than the first message).
 *
 * <p>Mapping: a valid document is bound to {@link SendJob} by Jackson (tree binding, snake_case
 * names). Numbers in {@code variables} become {@link Integer}, {@link Long},
 * {@link java.math.BigInteger} or, for fractions, {@link BigDecimal} exactly as written ({@code 12.50}
 * stays {@code 12.50}); {@link SendJob} drops JSON {@code null} inside {@code variables} objects
 * ("absent", at every depth) and makes nested objects and arrays unmodifiable.
 */
public final class JobParser {

    /** Default body limit: 1 MiB. */
    public static final int DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
    /** Deepest JSON nesting accepted; deeper documents are {@code not_json}. */
    public static final int MAX_NESTING_DEPTH = 64;
    /** The only {@code schema_version} this build reads. */
    public static final int SUPPORTED_SCHEMA_VERSION = 1;
    /** Classpath location of the job contract. */
    public static final String SCHEMA_RESOURCE = "/schema/mailroom-job.schema.json";

    private static final int MAX_ENTRY_CHARS = 300;
    private static final int MAX_MESSAGE_ID_CHARS = 200;

    private static final ObjectMapper JOBS = newMapper(true);
    private static final ObjectMapper LENIENT = newMapper(false);
    private static final JsonSchema SCHEMA = loadSchema();

    private final int maxBodyBytes;

    /** A parser with the default 1 MiB body limit. */
    public JobParser() {
        this(DEFAULT_MAX_BODY_BYTES);
    }

    /**
     * @param maxBodyBytes largest accepted body in bytes; larger bodies are {@code too_large}
     * @throws IllegalArgumentException if not positive
     */
    public JobParser(int maxBodyBytes) {
        if (maxBodyBytes <= 0) {
            throw new IllegalArgumentException("maxBodyBytes must be positive: " + maxBodyBytes);
        }
        this.maxBodyBytes = maxBodyBytes;
    }

    /** The body limit in bytes. */
    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    /**
     * Parses and validates one job body. Never throws.
     *
     * @param body the raw message bytes (UTF-8 JSON); may be null
     * @return {@link Parsed} with the job, or {@link Rejected} with the reason, a bounded detail and the
     *     message id when it could be read
     */
    public ParseResult parse(byte[] body) {
        try {
            return parseOrReject(body);
        } catch (RuntimeException | StackOverflowError e) {
            // Not reachable for any known input (depth and size are bounded); kept so that a bug here
            // still yields a recorded rejection instead of an endless redelivery loop.
            return new Rejected(RejectReason.schema_violation,
                    "the job could not be validated (parser error " + e.getClass().getName() + ": "
                            + e.getMessage() + ")",
                    null);
        }
    }

    private ParseResult parseOrReject(byte[] body) {
        Read read = readObject(body);
        if (read.rejected() != null) {
            return read.rejected();
        }
        JsonNode root = read.root();
        String messageId = "/message_id".equals(read.duplicate()) ? null : messageIdOf(root);
        if (read.duplicate() != null) {
            return new Rejected(RejectReason.schema_violation,
                    ParseMessages.displayPath(read.duplicate()) + ": duplicate key (the value is ambiguous)", messageId);
        }

        JsonNode version = root.get("schema_version");
        if (version != null && !isSupportedVersion(version)) {
            return new Rejected(RejectReason.unsupported_schema_version,
                    "schema_version " + ParseMessages.abbreviate(version.toString(), 60) + " is not supported; this consumer reads "
                            + "schema_version " + SUPPORTED_SCHEMA_VERSION,
                    messageId);
        }

        Set<String> violations = violations(root);
        if (!violations.isEmpty()) {
            return new Rejected(RejectReason.schema_violation, ParseMessages.joinBounded(violations), messageId);
        }

        try {
            return new Parsed(JOBS.treeToValue(root, SendJob.class));
        } catch (JacksonException e) {
            // The schema admitted what the record cannot hold: a gap between the two, i.e. a bug here.
            throw new IllegalStateException("a valid job did not bind to SendJob: " + e.getOriginalMessage(), e);
        }
    }

    /** The body read as one JSON object (with the path of a duplicate key, if any), or why it is not one. */
    private record Read(JsonNode root, String duplicate, Rejected rejected) {
        static Read refused(String detail) {
            return new Read(null, null, new Rejected(RejectReason.not_json, detail, null));
        }
    }

    private Read readObject(byte[] body) {
        if (body == null || body.length == 0) {
            return Read.refused("empty body");
        }
        if (body.length > maxBodyBytes) {
            return new Read(null, null, new Rejected(RejectReason.too_large,
                    "body is " + body.length + " bytes; the limit is " + maxBodyBytes + " bytes", null));
        }
        String text;
        try {
            text = decodeUtf8(body);
        } catch (MalformedUtf8 e) {
            return Read.refused("not valid UTF-8: malformed byte sequence at byte offset " + e.offset);
        }
        if (!text.isEmpty() && text.charAt(0) == '\uFEFF') {
            text = text.substring(1);
        }
        JsonNode root;
        String duplicate = null;
        try {
            root = JOBS.readTree(text);
        } catch (JacksonException strict) {
            // JOBS differs from LENIENT only in STRICT_DUPLICATE_DETECTION: if LENIENT reads the text, the
            // strict failure was a duplicate key (and not_json still wins over it, as it always did).
            try {
                root = LENIENT.readTree(text);
            } catch (JacksonException e) {
                return Read.refused("not JSON: " + ParseMessages.describe(e));
            }
            duplicate = duplicatePath(strict);
        }
        if (root == null || root.isMissingNode()) {
            return Read.refused("no JSON value in the body");
        }
        if (!root.isObject()) {
            return Read.refused("expected one JSON object, found " + root.getNodeType().name().toLowerCase(Locale.ROOT));
        }
        return new Read(root, duplicate, null);
    }

    /** What the schema and the checks it cannot express find wrong with {@code root}, sorted and bounded. */
    private Set<String> violations(JsonNode root) {
        Set<String> violations = new TreeSet<>();
        for (ValidationMessage m : SCHEMA.validate(root)) {
            String entry = ParseMessages.describe(m, root);
            if (entry != null) {
                violations.add(ParseMessages.abbreviate(entry, MAX_ENTRY_CHARS));
            }
        }
        JsonNode expires = root.get("expires_at");
        if (expires != null && expires.isTextual()) {
            // Instant is what SendJob holds: what OffsetDateTime cannot read is a violation, whatever the format check says
            try {
                OffsetDateTime.parse(expires.textValue(), DateTimeFormatter.ISO_OFFSET_DATE_TIME);
            } catch (DateTimeException e) {
                violations.add("/expires_at: " + ParseMessages.NOT_A_DATE_TIME);
            }
        }
        JsonNode headers = root.get("headers");
        if (headers != null && headers.isObject()) {
            headers.fieldNames().forEachRemaining(name -> {
                if (isOwnedHeader(name)) {
                    violations.add(ParseMessages.abbreviate(ParseMessages.displayPath("/headers/"
                            + ParseMessages.escapePointer(name)) + ": " + ParseMessages.OWNED_HEADER,
                            MAX_ENTRY_CHARS));
                }
            });
        }
        return violations;
    }

    /**
     * Whether a job header names one Mailroom writes itself (case-insensitive): the addressing and
     * subject headers come from job fields, the MIME headers from the content, {@code X-Mailroom-*} are
     * ours. A job that sets one is refused here, as poison, rather than failing inside a provider and
     * being retried as if the fault were ours.
     */
    public static boolean isOwnedHeader(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return OWNED_HEADERS.contains(lower) || lower.startsWith("content-") || lower.startsWith("x-mailroom-");
    }

    // ---------------------------------------------------------------- checks

    private static boolean isSupportedVersion(JsonNode version) {
        return version.isNumber()
                && version.decimalValue().compareTo(BigDecimal.valueOf(SUPPORTED_SCHEMA_VERSION)) == 0;
    }

    /** The message id if it is a well-formed id (what the schema demands of it), else null. */
    private static String messageIdOf(JsonNode root) {
        JsonNode n = root.get("message_id");
        if (n == null || !n.isTextual()) {
            return null;
        }
        String id = n.textValue();
        if (id.isEmpty() || id.length() > MAX_MESSAGE_ID_CHARS || id.chars().anyMatch(JobParser::isControl)) {
            return null;
        }
        return id;
    }

    /** The JSON pointer of the key {@code STRICT_DUPLICATE_DETECTION} stopped at. */
    private static String duplicatePath(JacksonException strict) {
        if (strict.getProcessor() instanceof JsonParser p && p.getParsingContext() != null) {
            return p.getParsingContext().pathAsPointer().toString();
        }
        return "";
    }

    private static String decodeUtf8(byte[] body) throws MalformedUtf8 {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(body);
        try {
            CharBuffer chars = decoder.decode(in);
            return chars.toString();
        } catch (CharacterCodingException e) {
            throw new MalformedUtf8(in.position());
        }
    }

    private static final class MalformedUtf8 extends Exception {
        private static final long serialVersionUID = 1L;
        final int offset;

        MalformedUtf8(int offset) {
            super(null, null, false, false);
            this.offset = offset;
        }
    }

    // ---------------------------------------------------------------- details

    /** Headers a job may not set, lower case; see {@link #isOwnedHeader(String)} for the prefixes. */
    private static final Set<String> OWNED_HEADERS = Set.of(
            "from", "sender", "to", "cc", "bcc", "reply-to", "subject", "message-id", "date", "mime-version",
            "return-path");

    private static boolean isControl(int c) {
        return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x2028 || c == 0x2029;
    }

    // ---------------------------------------------------------------- set-up

    /**
     * The job mapper: strict duplicate detection, numbers exactly as written ({@code 12.50} stays
     * {@code 12.50}), and binding to {@link SendJob} by the contract's snake_case names. Without
     * {@code strict}, the same mapper tells a duplicate key from text that is not JSON.
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
        try (InputStream in = JobParser.class.getResourceAsStream(SCHEMA_RESOURCE)) {
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
