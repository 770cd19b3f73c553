package dev.mailroom.recoverability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.provider.ProviderResponse;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A chain of an SMTP relay, a Resend API and a generic HTTP API: each answer is classified by the table and profile
 * of the instance that gave it, whatever {@code mailroom.http.profile} says for the active HTTP provider (here
 * {@code generic}, so a classification by kind would read the Resend answers with the generic rows).
 */
class ClassificationPerInstanceTest {

    private static final FailureClassifier CLASSIFIER =
            new FailureClassifier(MappingTables.fromClasspath(), Map.of("http", "generic"));

    @ParameterizedTest(name = "{0}/{1}: {2} {3} {4} -> {5}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            http | resend  | 429 | daily_quota_exceeded           | quota spent         | systemic
            http | generic | 429 | daily_quota_exceeded           | quota spent         | throttled
            http | resend  | 409 | concurrent_idempotent_requests | still processing    | transient
            http | resend  | 451 | security_error                 | flagged             | content_policy
            smtp | -       | 550 | -                              | 5.1.1 no such user  | permanent_recipient
            smtp | -       | 421 | -                              | 4.7.0 slow down     | throttled
            """)
    void eachAnswerIsReadByItsOwnInstancesTable(String table, String profile, String code, String apiError,
                                                 String text, String expected) {
        ProviderResponse r = "smtp".equals(table) ? MappingCases.smtp(code, text.split(" ")[0], code + " " + text)
                : MappingCases.http(code, apiError, text, null);
        assertThat(CLASSIFIER.classify(r, table, Optional.ofNullable(profile)).failureClass().wireName())
                .isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}/{1}")
    @CsvSource({"mailgun, -", "http, postmark"})
    void aTableOrProfileNobodyShipsIsRefused(String table, String profile) {
        assertThatThrownBy(() -> CLASSIFIER.requireTable(table, Optional.ofNullable("-".equals(profile) ? null : profile)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-".equals(profile) ? table : profile);
    }
}
