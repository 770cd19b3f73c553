package dev.mailroom.recoverability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.provider.ProviderResponse.Status;
import dev.mailroom.recoverability.MappingCases.Case;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every row of the shipped SMTP and HTTP mapping tables, by the answers that reach it. */
class FailureClassifierTest {

    private static final MappingTables SHIPPED = MappingTables.fromClasspath();

    static Stream<Case> smtpCases() {
        return MappingCases.smtpCases().stream();
    }

    static Stream<Case> httpCases() {
        return MappingCases.httpCases().stream();
    }

    static FailureClassifier classifierFor(Case c) {
        return c.profile() == null ? new FailureClassifier(SHIPPED)
                : new FailureClassifier(SHIPPED, Map.of("http", c.profile()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("smtpCases")
    void smtpTable(Case c) {
        assertClassified(c);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("httpCases")
    void httpTable(Case c) {
        assertClassified(c);
    }

    private static void assertClassified(Case c) {
        FailureClassifier classifier = classifierFor(c);
        Failure f = classifier.classify(c.response());
        assertThat(f.failureClass()).as("class").isEqualTo(c.expected());
        assertThat(classifier.matchingRule(c.response()).map(MappingRule::id)).as("deciding row")
                .isEqualTo(Optional.ofNullable(c.rule()));
        // the provider's words travel verbatim
        assertThat(f.provider()).isEqualTo(c.response().provider());
        assertThat(f.code()).isEqualTo(c.response().code());
        assertThat(f.enhancedCode()).isEqualTo(c.response().enhancedCode());
        assertThat(f.text()).isEqualTo(c.response().text());
        assertThat(f.errorType()).isEqualTo(c.response().errorType());
        assertThat(f.retryAfter()).isEqualTo(c.response().retryAfter());
    }

    @Test
    void theDefaultHttpProfileIsGeneric() {
        ProviderResponse r = MappingCases.http("422", "recipient_rejected", null, null);
        assertThat(new FailureClassifier(SHIPPED).classify(r).failureClass()).isEqualTo(FailureClass.PERMANENT_RECIPIENT);
        assertThat(new FailureClassifier(SHIPPED, Map.of("http", "resend")).classify(r).failureClass())
                .isEqualTo(FailureClass.UNKNOWN);
    }

    @Test
    void retryAfterIsKeptOnTheFailure() {
        ProviderResponse r = MappingCases.http("429", null, "slow down", Duration.ofSeconds(42));
        assertThat(new FailureClassifier(SHIPPED).classify(r).retryAfter()).isEqualTo(Duration.ofSeconds(42));
    }

    @Test
    void theSandboxHasNoRowsSoAnyFailureFromItIsUnknown() {
        ProviderResponse r = new ProviderResponse(Status.REJECTED, "sandbox", "500", null, "?", null, null, null);
        assertThat(new FailureClassifier(SHIPPED).classify(r).failureClass()).isEqualTo(FailureClass.UNKNOWN);
        assertThat(SHIPPED.provider("sandbox").orElseThrow().rulesFor(null)).isEmpty();
    }

    @Test
    void aProviderWithoutATableIsUnknown() {
        ProviderResponse r = new ProviderResponse(Status.REJECTED, "mailgun", "550", "5.1.1", "550 5.1.1 no", null,
                null, null);
        Failure f = new FailureClassifier(SHIPPED).classify(r);
        assertThat(f.failureClass()).isEqualTo(FailureClass.UNKNOWN);
        assertThat(f.provider()).isEqualTo("mailgun");
        ProviderResponse noName = new ProviderResponse(Status.NOT_CONNECTED, null, null, null, "x", null, null,
                "java.net.ConnectException");
        assertThat(new FailureClassifier(SHIPPED).classify(noName).failureClass()).isEqualTo(FailureClass.UNKNOWN);
    }

    @Test
    void anAcceptedResponseIsNotAFailure() {
        ProviderResponse ok = ProviderResponse.accepted("http", "202", "{}", "id-1");
        assertThatThrownBy(() -> new FailureClassifier(SHIPPED).classify(ok))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("accepted");
    }

    @Test
    void choosingAnUnknownProfileOrProviderFailsAtConstruction() {
        assertThatThrownBy(() -> new FailureClassifier(SHIPPED, Map.of("http", "mailgun")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("mailgun")
                .hasMessageContaining("generic").hasMessageContaining("resend");
        assertThatThrownBy(() -> new FailureClassifier(SHIPPED, Map.of("carrier-pigeon", "x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("carrier-pigeon");
    }

    @Test
    void aLongTextIsBoundedOnTheFailure() {
        String huge = "550 5.1.1 " + "x".repeat(5000);
        // ProviderResponse bounds it already; Failure bounds whatever it is given
        Failure f = new Failure(FailureClass.UNKNOWN, "smtp", "550", "5.1.1", huge, null, null);
        assertThat(f.text()).hasSize(ProviderResponse.MAX_TEXT).startsWith("550 5.1.1 x");
    }
}
