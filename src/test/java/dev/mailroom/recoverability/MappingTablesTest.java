package dev.mailroom.recoverability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.provider.ProviderResponse.Status;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Loading mapping tables: a bad file fails with a message that names the entry. */
class MappingTablesTest {

    /** A valid document whose smtp rules are {@code rules} (JSON array text). */
    private static String smtp(String rules) {
        return "{\"schema_version\":1,\"providers\":{\"smtp\":{\"kind\":\"smtp\",\"rules\":" + rules + "}}}";
    }

    private static String http(String providerBody) {
        return "{\"schema_version\":1,\"providers\":{\"http\":{\"kind\":\"http\"," + providerBody + "}}}";
    }

    static Stream<Arguments> badFiles() {
        return Stream.of(
                Arguments.of("not JSON", "{\"schema_version\":1,", "not valid JSON"),
                Arguments.of("wrong schema version", "{\"schema_version\":2,\"providers\":{}}", "schema_version: must be 1"),
                Arguments.of("unknown top-level field",
                        "{\"schema_version\":1,\"providers\":{},\"extra\":1}", "unknown field 'extra'"),
                Arguments.of("no providers", "{\"schema_version\":1,\"providers\":{}}", "providers: no provider tables"),
                Arguments.of("bad kind",
                        "{\"schema_version\":1,\"providers\":{\"smtp\":{\"kind\":\"x400\",\"rules\":[]}}}",
                        "providers.smtp.kind: 'x400' is not one of smtp, http, none"),
                Arguments.of("rules missing",
                        "{\"schema_version\":1,\"providers\":{\"smtp\":{\"kind\":\"smtp\"}}}",
                        "providers.smtp.rules: required"),
                Arguments.of("row without id", smtp("[{\"code\":\"550\",\"class\":\"unknown\"}]"),
                        "providers.smtp.rules[0].id: required"),
                Arguments.of("unknown class", smtp("[{\"id\":\"x\",\"code\":\"550\",\"class\":\"transiant\"}]"),
                        "providers.smtp.rules[0] (id 'x').class: unknown class 'transiant'"),
                Arguments.of("missing class", smtp("[{\"id\":\"x\",\"code\":\"550\"}]"),
                        "providers.smtp.rules[0] (id 'x').class: required"),
                Arguments.of("bad code pattern", smtp("[{\"id\":\"x\",\"code\":\"55\",\"class\":\"unknown\"}]"),
                        "providers.smtp.rules[0] (id 'x').code: '55' is not three digits or x"),
                Arguments.of("bad enhanced pattern", smtp("[{\"id\":\"x\",\"enhanced\":\"5.1\",\"class\":\"unknown\"}]"),
                        "providers.smtp.rules[0] (id 'x').enhanced: '5.1' is not class.subject.detail"),
                Arguments.of("code of the wrong type", smtp("[{\"id\":\"x\",\"code\":550,\"class\":\"unknown\"}]"),
                        "providers.smtp.rules[0] (id 'x').code: must be a string or a non-empty array"),
                Arguments.of("bad regex", smtp("[{\"id\":\"x\",\"text\":\"(rate\",\"class\":\"throttled\"}]"),
                        "providers.smtp.rules[0] (id 'x').text: not a regular expression"),
                Arguments.of("misspelt field", smtp("[{\"id\":\"x\",\"code\":\"550\",\"clas\":\"unknown\"}]"),
                        "providers.smtp.rules[0] (id 'x'): unknown field 'clas'"),
                Arguments.of("accepted status", smtp("[{\"id\":\"x\",\"status\":\"accepted\",\"class\":\"unknown\"}]"),
                        "providers.smtp.rules[0] (id 'x').status: 'accepted' is not one of rejected"),
                Arguments.of("id used twice", smtp("[{\"id\":\"x\",\"code\":\"550\",\"class\":\"unknown\"},"
                        + "{\"id\":\"x\",\"code\":\"551\",\"class\":\"unknown\"}]"),
                        "providers.smtp.rules[1]: id 'x' is used twice"),
                Arguments.of("row behind a catch-all", smtp("[{\"id\":\"all\",\"class\":\"unknown\"},"
                        + "{\"id\":\"late\",\"code\":\"550\",\"class\":\"permanent_recipient\"}]"),
                        "row 'late' can never match: row 'all' before it has no condition"),
                Arguments.of("same conditions twice", smtp("[{\"id\":\"a\",\"code\":\"550\",\"class\":\"unknown\"},"
                        + "{\"id\":\"b\",\"code\":\"550\",\"class\":\"permanent_recipient\"}]"),
                        "row 'b' can never match: row 'a' before it has the same conditions"),
                Arguments.of("enhanced in an http table", http("\"rules\":[{\"id\":\"x\",\"enhanced\":\"5.1.1\","
                        + "\"class\":\"unknown\"}]"), "providers.http.rules[0] (id 'x').enhanced: only an smtp table"),
                Arguments.of("api_error in an smtp table", smtp("[{\"id\":\"x\",\"api_error\":\"e\",\"class\":\"unknown\"}]"),
                        "providers.smtp.rules[0] (id 'x').api_error: only an http table"),
                Arguments.of("profiles without a default", http("\"profiles\":{\"p\":{\"rules\":[]}},\"rules\":[]"),
                        "providers.http.default_profile: required when there are profiles"),
                Arguments.of("default profile that does not exist",
                        http("\"default_profile\":\"q\",\"profiles\":{\"p\":{\"rules\":[]}},\"rules\":[]"),
                        "providers.http.default_profile: 'q' is not one of its profiles"),
                Arguments.of("profiles in an smtp table",
                        "{\"schema_version\":1,\"providers\":{\"smtp\":{\"kind\":\"smtp\",\"profiles\":{},\"rules\":[]}}}",
                        "providers.smtp.profiles: only an http table has profiles"),
                Arguments.of("a profile's catch-all hides the common rows",
                        http("\"default_profile\":\"p\",\"profiles\":{\"p\":{\"rules\":[{\"id\":\"all\",\"class\":\"poison\"}]}},"
                                + "\"rules\":[{\"id\":\"r\",\"code\":\"429\",\"class\":\"throttled\"}]"),
                        "row 'r' can never match: row 'all'"),
                Arguments.of("duplicate JSON key", smtp("[{\"id\":\"x\",\"class\":\"unknown\",\"class\":\"poison\"}]"),
                        "Duplicate field 'class'"),
                Arguments.of("bad unmatched class",
                        "{\"schema_version\":1,\"providers\":{\"smtp\":{\"kind\":\"smtp\",\"unmatched\":\"meh\",\"rules\":[]}}}",
                        "providers.smtp.unmatched: unknown class 'meh'"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badFiles")
    void aBadFileFailsNamingTheEntry(String what, String json, String message) {
        assertThatThrownBy(() -> MappingTables.parse(json, "test.json"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("test.json: ")
                .hasMessageContaining(message);
    }

    @Test
    void aTableFromAFileReplacesTheShippedOne(@TempDir Path dir) throws Exception {
        // an operator decides that a teapot is transient: data, no build
        Path file = dir.resolve("mappings.json");
        Files.writeString(file, http("\"rules\":[{\"id\":\"teapot\",\"code\":\"418\",\"class\":\"transient\"},"
                + "{\"id\":\"rest\",\"class\":\"unknown\"}]"), StandardCharsets.UTF_8);
        MappingTables tables = MappingTables.fromFile(file);
        assertThat(tables.source()).isEqualTo(file.toString());
        FailureClassifier classifier = new FailureClassifier(tables);
        assertThat(classifier.classify(MappingCases.http("418", null, null, null)).failureClass())
                .isEqualTo(FailureClass.TRANSIENT);
        assertThat(classifier.classify(MappingCases.http("429", null, null, null)).failureClass())
                .isEqualTo(FailureClass.UNKNOWN);
        // smtp has no table in this file at all
        assertThat(classifier.classify(MappingCases.smtp("421", null, "421 busy")).failureClass())
                .isEqualTo(FailureClass.UNKNOWN);
    }

    @Test
    void aMissingFileIsNamed(@TempDir Path dir) {
        Path missing = dir.resolve("nope.json");
        assertThatThrownBy(() -> MappingTables.fromFile(missing))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(missing.toString());
        assertThatThrownBy(() -> MappingTables.fromClasspath("recoverability/nope.json"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("recoverability/nope.json");
    }

    @Test
    void anUnmatchedClassOtherThanUnknownIsHonoured() {
        MappingTables t = MappingTables.parse("{\"schema_version\":1,\"providers\":{\"smtp\":{\"kind\":\"smtp\","
                + "\"unmatched\":\"transient\",\"rules\":[]}}}", "t");
        assertThat(new FailureClassifier(t).classify(MappingCases.smtp("599", null, "599 ?")).failureClass())
                .isEqualTo(FailureClass.TRANSIENT);
    }

    @Test
    void wildcardsAndLeadingZeros() {
        assertThat(MappingRule.codeMatches("4xx", "451")).isTrue();
        assertThat(MappingRule.codeMatches("4xx", "551")).isFalse();
        assertThat(MappingRule.codeMatches("4xx", "45")).isFalse();
        assertThat(MappingRule.codeMatches("55x", "553")).isTrue();
        assertThat(MappingRule.enhancedMatches("5.7.*", "5.7.26")).isTrue();
        assertThat(MappingRule.enhancedMatches("5.7.*", "4.7.1")).isFalse();
        assertThat(MappingRule.enhancedMatches("5.1.1", "5.1.01")).isTrue();
        assertThat(MappingRule.enhancedMatches("5.1.1", "5.1.10")).isFalse();
        assertThat(MappingRule.enhancedMatches(MappingRule.NONE, null)).isTrue();
        assertThat(MappingRule.enhancedMatches(MappingRule.NONE, "5.1.1")).isFalse();
    }

    @Test
    void rowsMatchOnTextCaseInsensitivelyAndOnErrorTypeExactly() {
        MappingTables t = MappingTables.parse(smtp("[{\"id\":\"rate\",\"code\":\"4xx\",\"text\":\"rate limit\","
                + "\"class\":\"throttled\"},{\"id\":\"tls\",\"status\":\"not_connected\",\"error_type\":"
                + "\"javax.net.ssl.SSLHandshakeException\",\"class\":\"systemic\"}]"), "t");
        FailureClassifier c = new FailureClassifier(t, Map.of());
        assertThat(c.classify(MappingCases.smtp("421", null, "421 RATE LIMIT exceeded")).failureClass())
                .isEqualTo(FailureClass.THROTTLED);
        assertThat(c.classify(MappingCases.fault("smtp", Status.NOT_CONNECTED, "javax.net.ssl.SSLHandshakeException",
                "x")).failureClass()).isEqualTo(FailureClass.SYSTEMIC);
        assertThat(c.classify(MappingCases.fault("smtp", Status.NOT_CONNECTED, "SSLHandshakeException", "x"))
                .failureClass()).isEqualTo(FailureClass.UNKNOWN);
        ProviderResponse ambiguous = MappingCases.fault("smtp", Status.AMBIGUOUS,
                "javax.net.ssl.SSLHandshakeException", "x");
        assertThat(c.matchingRule(ambiguous)).isEmpty();
    }
}
