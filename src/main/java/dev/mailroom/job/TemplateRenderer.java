package dev.mailroom.job;

import dev.mailroom.contract.RejectReason;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

import com.github.mustachejava.Mustache;
import com.github.mustachejava.MustacheException;
import com.github.mustachejava.MustacheFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.regex.Pattern;

/**
 * Produces the content of a {@link SendJob}: a job with rendered content passes through unchanged; a
 * job with a {@code template_id} is rendered from a template and the job's {@code variables}.
 *
 * <p><b>Templates.</b> A template is a JSON file {@code <template_id>.json} holding an object
 * {@code {"subject": "...", "text": "...", "html": "..."}} (subject required, at least one of text and
 * html, no other keys). It is looked up first in the templates directory given to the constructor (the
 * directory that contains the {@code .json} files; may be null), then on the classpath under
 * {@value #CLASSPATH_DIR}, so an operator can override a bundled template without a rebuild. Template
 * ids must match {@code [A-Za-z0-9._-]{1,100}}; anything else (for example {@code ../x}) is reported as
 * a missing template and never touches the file system. Templates are parsed once and cached for the
 * life of the renderer (restart, or build a new renderer, to pick up an edited file); ids that were not
 * found are not cached, so a template added later is found.
 *
 * <p><b>Placeholders.</b> Templates are Mustache, compiled and rendered by mustache.java, restricted
 * to variables: {@code {{name}}} or {@code {{ name }}}; dotted paths such as {@code {{user.name}}}
 * walk nested objects of {@code variables}. Sections, partials, inheritance, comments, raw values
 * ({@code {{{x}}}}, {@code {{&x}}}) and delimiter changes are refused when the template is compiled:
 * a template that needs logic belongs to the producer, and every value must go through the part's
 * escaping. Values are inserted as text: strings as they are, numbers as written in the job, booleans
 * as {@code true}/{@code false}. Substituted text is not scanned again, so a variable cannot inject a
 * placeholder. In the html part values are HTML-escaped ({@code & < > " '}); in text and subject they
 * are not. In the subject, control characters in values (CR, LF, ...) become spaces, so a variable
 * cannot inject a mail header. Mustache renders a missing value as nothing; here it is refused.
 *
 * <p><b>Failures.</b> Faults of the job are {@link TemplateException}s: an unknown template is
 * {@link RejectReason#missing_template}; a placeholder without a value (absent, null, or an object or
 * array instead of a value) is {@link RejectReason#missing_template_variable}, naming every such
 * placeholder. Faults of the deployment are unchecked: a template file that is not a valid template (bad
 * JSON, wrong keys, a Mustache tag that is not a placeholder, larger than 1 MiB) is an
 * {@link IllegalStateException}, an unreadable file an {@link UncheckedIOException}; the jobs that hit
 * them are not at fault and must not be dead-lettered as poison.
 *
 * <p>Thread-safe.
 */
public final class TemplateRenderer {

    /** Where bundled templates live on the classpath. */
    public static final String CLASSPATH_DIR = "/templates/";
    /** What a template id must look like (whole string). */
    public static final Pattern TEMPLATE_ID = Pattern.compile("[A-Za-z0-9._-]{1,100}");

    static final Pattern PLACEHOLDER_NAME = Pattern.compile("[A-Za-z0-9_-]+(?:\\.[A-Za-z0-9_-]+)*");
    static final Pattern CONTROL = Pattern.compile("[\\x00-\\x1F\\x7F-\\x9F\\u2028\\u2029]");
    private static final int MAX_TEMPLATE_BYTES = 1024 * 1024;
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private final Path templatesDir;
    private final ConcurrentMap<String, Template> cache = new ConcurrentHashMap<>();

    /** A renderer that finds templates on the classpath only. */
    public TemplateRenderer() {
        this(null);
    }

    /**
     * @param templatesDir directory holding {@code <template_id>.json} files, searched before the
     *                     classpath; null for classpath only
     */
    public TemplateRenderer(Path templatesDir) {
        this.templatesDir = templatesDir == null ? null : templatesDir.toAbsolutePath().normalize();
    }

    /**
     * The content to send for a job.
     *
     * @throws TemplateException        the template is missing, or a placeholder has no value
     * @throws IllegalArgumentException the job has neither rendered content nor a template (a
     *                                  {@link JobParser} job always has exactly one)
     * @throws IllegalStateException    the template file is not a valid template (deployment fault)
     */
    public RenderedContent render(SendJob job) throws TemplateException {
        if (job.templateId() == null) {
            if (job.subject() == null) {
                throw new IllegalArgumentException("job " + job.messageId() + " has neither content nor a template");
            }
            return new RenderedContent(job.subject(), job.text(), job.html());
        }
        Template template = template(job.templateId());

        PlaceholderFactory.MissingNames missing = new PlaceholderFactory.MissingNames(new LinkedHashSet<>());
        String subject = template.subject.render(job.variables(), missing);
        String text = template.text == null ? null : template.text.render(job.variables(), missing);
        String html = template.html == null ? null : template.html.render(job.variables(), missing);
        if (!missing.names().isEmpty()) {
            throw new TemplateException(RejectReason.missing_template_variable,
                    "template '" + job.templateId() + "' needs variables the job does not give: "
                            + String.join(", ", missing.names()));
        }
        return new RenderedContent(subject, text, html);
    }

    // ---------------------------------------------------------------- lookup

    private Template template(String id) throws TemplateException {
        if (!TEMPLATE_ID.matcher(id).matches()) {
            throw new TemplateException(RejectReason.missing_template,
                    "'" + abbreviate(id) + "' is not a valid template id ([A-Za-z0-9._-]{1,100})");
        }
        Template cached = cache.get(id);
        if (cached != null) {
            return cached;
        }
        byte[] bytes = readFromDirectory(id);
        String source = templatesDir + "/" + id + ".json";
        if (bytes == null) {
            bytes = readFromClasspath(id);
            source = "classpath:" + CLASSPATH_DIR + id + ".json";
        }
        if (bytes == null) {
            throw new TemplateException(RejectReason.missing_template,
                    "no template '" + id + "' (looked in "
                            + (templatesDir == null ? "" : templatesDir + " and ")
                            + "classpath:" + CLASSPATH_DIR + ")");
        }
        Template parsed = Template.parse(source, bytes);
        Template raced = cache.putIfAbsent(id, parsed);
        return raced == null ? parsed : raced;
    }

    private byte[] readFromDirectory(String id) {
        if (templatesDir == null) {
            return null;
        }
        Path file = templatesDir.resolve(id + ".json").normalize();
        if (!file.getParent().equals(templatesDir) || !Files.isRegularFile(file)) {
            return null;
        }
        try {
            if (Files.size(file) > MAX_TEMPLATE_BYTES) {
                throw new IllegalStateException("template " + file + " is larger than " + MAX_TEMPLATE_BYTES + " bytes");
            }
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read template " + file, e);
        }
    }

    private static byte[] readFromClasspath(String id) {
        String resource = CLASSPATH_DIR + id + ".json";
        try (InputStream in = TemplateRenderer.class.getResourceAsStream(resource)) {
            if (in == null) {
                return null;
            }
            byte[] bytes = in.readNBytes(MAX_TEMPLATE_BYTES + 1);
            if (bytes.length > MAX_TEMPLATE_BYTES) {
                throw new IllegalStateException("template classpath:" + resource + " is larger than "
                        + MAX_TEMPLATE_BYTES + " bytes");
            }
            return bytes;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read template classpath:" + resource, e);
        }
    }

    static String abbreviate(String s) {
        return s.length() <= 100 ? s : s.substring(0, 97) + "...";
    }

    // ---------------------------------------------------------------- templates

    /** A parsed template file. */
    private record Template(Part subject, Part text, Part html) {

        static Template parse(String source, byte[] bytes) {
            JsonNode root;
            try {
                root = MAPPER.readTree(bytes);
            } catch (JacksonException e) {
                throw new IllegalStateException("template " + source + " is not JSON: " + e.getOriginalMessage(), e);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read template " + source, e);
            }
            if (root == null || !root.isObject()) {
                throw new IllegalStateException("template " + source + " is not a JSON object");
            }
            root.fieldNames().forEachRemaining(name -> {
                if (!Set.of("subject", "text", "html").contains(name)) {
                    throw new IllegalStateException("template " + source + " has an unknown key '" + name
                            + "' (allowed: subject, text, html)");
                }
            });
            Part subject = part(source, root, "subject", TemplateEscaping.SUBJECT);
            Part text = part(source, root, "text", TemplateEscaping.NONE);
            Part html = part(source, root, "html", TemplateEscaping.HTML);
            if (subject == null || (text == null && html == null)) {
                throw new IllegalStateException("template " + source + " needs a subject and a text or html part");
            }
            if (CONTROL.matcher(subject.source).find()) {
                throw new IllegalStateException("template " + source + " has a control character in its subject");
            }
            return new Template(subject, text, html);
        }

        private static Part part(String source, JsonNode root, String key, TemplateEscaping escaping) {
            JsonNode n = root.get(key);
            if (n == null) {
                return null;
            }
            if (!n.isTextual()) {
                throw new IllegalStateException("template " + source + ": '" + key + "' must be a string");
            }
            return Part.compile(source + " " + key, n.textValue(), escaping.factory);
        }
    }

    /** One part of a template, compiled once. */
    private record Part(String source, Mustache mustache) {

        static Part compile(String where, String source, MustacheFactory factory) {
            if (source.contains("{{=")) {
                throw new IllegalStateException("template " + where + " changes the Mustache delimiters; "
                        + "only {{name}} and {{path.to.name}} placeholders are allowed");
            }
            try {
                return new Part(source, factory.compile(new StringReader(source), where));
            } catch (MustacheException e) {
                throw new IllegalStateException("template " + where + ": " + e.getMessage(), e);
            }
        }

        String render(Map<String, Object> variables, PlaceholderFactory.MissingNames missing) {
            StringWriter out = new StringWriter(source.length() + 64);
            // scopes are searched from the last; the collector is first and, not being a map, never matches
            mustache.execute(out, List.of(missing, variables));
            return out.toString();
        }
    }
}
