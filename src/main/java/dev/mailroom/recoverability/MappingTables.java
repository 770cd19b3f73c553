package dev.mailroom.recoverability;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The per-provider mapping tables (from what a provider said to a {@link FailureClass}), loaded from
 * JSON: data an operator can change without a build. Validated completely on load; every error names
 * the source and the entry ({@code providers.smtp.rules[3] (id 'mailbox-full')}) so a bad file fails at
 * start-up with a message that says where.
 *
 * <p>File format ({@code schema_version} 1):
 * <pre>{@code
 * { "schema_version": 1,
 *   "providers": {
 *     "<provider name>": {                       // as ProviderResponse.provider(): smtp, http, sandbox
 *       "kind": "smtp" | "http" | "none",        // which conditions its rows may use
 *       "unmatched": "unknown",                  // class when no row matches (optional, default unknown)
 *       "default_profile": "generic",            // http only: profile used when none is chosen
 *       "profiles": { "<profile>": { "rules": [ ... ] } },   // http only: tried before "rules"
 *       "rules": [
 *         { "id": "mailbox-full",                // required, unique within the provider
 *           "status": "rejected",                // rejected (default) | not_connected | ambiguous
 *           "code": "552" or ["550", "4xx"],     // reply code / HTTP status; x = any digit
 *           "enhanced": "5.2.2" or ["5.7.*", "none"],  // smtp only: RFC 3463, * = any component
 *           "api_error": ["validation_error"],   // http only: error code from the body
 *           "text": "(?i)rate limit",            // regex found in the text (always case-insensitive)
 *           "error_type": "java.net.ConnectException",  // exception class of a network fault
 *           "class": "soft_bounce",              // required: the design's class name
 *           "note": "why" } ] } } }
 * }</pre>
 * Rows are tried in order and the first match wins; a row with no condition is a catch-all and must
 * be the last row for its status.
 */
public final class MappingTables {

    /** The tables shipped in the WAR. */
    public static final String DEFAULT_RESOURCE = "recoverability/provider-mappings.json";
    public static final int SCHEMA_VERSION = 1;

    /** Which conditions a table's rows may use. */
    public enum Kind {
        /** SMTP reply codes and RFC 3463 enhanced codes ({@code enhanced}). */
        SMTP,
        /** HTTP status and the API's error code from the body ({@code api_error}), per profile. */
        HTTP,
        /** A provider that does not fail (the sandbox): rows use only status, code and text. */
        NONE
    }

    /**
     * One provider's table.
     *
     * @param name           the provider name it applies to
     * @param kind           which conditions its rows use
     * @param unmatched      the class of a failure no row matches
     * @param defaultProfile the profile used when none is chosen (HTTP), else null
     * @param rules          rows that apply whatever the profile, tried after the profile's
     * @param profiles       per-profile rows, tried first
     */
    public record ProviderTable(
            String name,
            Kind kind,
            FailureClass unmatched,
            String defaultProfile,
            List<MappingRule> rules,
            Map<String, List<MappingRule>> profiles) {

        public ProviderTable {
            rules = List.copyOf(rules);
            Map<String, List<MappingRule>> copy = new LinkedHashMap<>();
            profiles.forEach((k, v) -> copy.put(k, List.copyOf(v)));
            profiles = Collections.unmodifiableMap(copy);
        }

        /**
         * The rows in the order they are tried for {@code profile}: the profile's, then the common ones.
         *
         * @param profile a profile name, or null for the default profile (or none)
         * @throws IllegalArgumentException for a profile the table does not have
         */
        public List<MappingRule> rulesFor(String profile) {
            String p = profile != null ? profile.trim().toLowerCase(Locale.ROOT) : defaultProfile;
            if (p == null) {
                return rules;
            }
            List<MappingRule> own = profiles.get(p);
            if (own == null) {
                throw new IllegalArgumentException("provider '" + name + "' has no mapping profile '" + profile
                        + "', known: " + profiles.keySet());
            }
            List<MappingRule> all = new ArrayList<>(own);
            all.addAll(rules);
            return List.copyOf(all);
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private final String source;
    private final Map<String, ProviderTable> providers;

    private MappingTables(String source, Map<String, ProviderTable> providers) {
        this.source = source;
        this.providers = Collections.unmodifiableMap(new LinkedHashMap<>(providers));
    }

    /** The shipped tables ({@value #DEFAULT_RESOURCE} on the class path). */
    public static MappingTables fromClasspath() {
        return fromClasspath(DEFAULT_RESOURCE);
    }

    /** Tables from a class-path resource. */
    public static MappingTables fromClasspath(String resource) {
        ClassLoader loader = MappingTables.class.getClassLoader();
        try (InputStream in = loader.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("mapping tables: no class-path resource " + resource);
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), "classpath:" + resource);
        } catch (IOException e) {
            throw new UncheckedIOException("mapping tables: cannot read classpath:" + resource, e);
        }
    }

    /** Tables from a file, e.g. an operator's copy of the shipped one. */
    public static MappingTables fromFile(Path file) {
        Objects.requireNonNull(file, "file");
        try {
            return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
        } catch (IOException e) {
            throw new IllegalArgumentException("mapping tables: cannot read " + file + ": " + e, e);
        }
    }

    /**
     * Tables from JSON text.
     *
     * @param source what the text is, for error messages
     * @throws IllegalArgumentException naming the source and the bad entry
     */
    public static MappingTables parse(String json, String source) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(source + ": not valid JSON: " + e.getOriginalMessage()
                    + (e.getLocation() != null ? " at line " + e.getLocation().getLineNr() : ""), e);
        }
        return new MappingTables(source, new MappingTablesReader(source).tables(root));
    }

    /** The table for a provider name, if there is one. */
    public Optional<ProviderTable> provider(String name) {
        return name == null ? Optional.empty() : Optional.ofNullable(providers.get(name.trim().toLowerCase(Locale.ROOT)));
    }

    /** All tables, by provider name, in file order. */
    public Map<String, ProviderTable> providers() {
        return providers;
    }

    /** Where the tables came from. */
    public String source() {
        return source;
    }
}
