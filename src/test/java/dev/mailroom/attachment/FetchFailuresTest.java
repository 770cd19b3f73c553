package dev.mailroom.attachment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.recoverability.Failure;
import dev.mailroom.recoverability.FailureClass;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class FetchFailuresTest {

    static Stream<Arguments> outcomes() {
        return Stream.of(
                Arguments.of(new FetchOutcome.Answered(404, "no such file"), FailureClass.CONTENT_POLICY, FetchFailures.NOT_FOUND, "answered 404 (not there): no such file"),
                Arguments.of(new FetchOutcome.Answered(410, ""), FailureClass.CONTENT_POLICY, FetchFailures.NOT_FOUND, "answered 410"),
                Arguments.of(new FetchOutcome.Mismatch("SHA-256 ab, the job declared cd"), FailureClass.CONTENT_POLICY, FetchFailures.MISMATCH, "the job declared"),
                Arguments.of(new FetchOutcome.Refused("a redirect to http://x/: under none"), FailureClass.CONTENT_POLICY, FetchFailures.REFUSED, "a redirect to"),
                Arguments.of(new FetchOutcome.Answered(403, "forbidden"), FailureClass.CONTENT_POLICY, FetchFailures.REJECTED, "answered 403"),
                Arguments.of(new FetchOutcome.Answered(500, "oops"), FailureClass.TRANSIENT, FetchFailures.UNAVAILABLE, "answered 500"),
                Arguments.of(new FetchOutcome.Answered(503, null), FailureClass.TRANSIENT, FetchFailures.UNAVAILABLE, "answered 503"),
                Arguments.of(new FetchOutcome.Answered(408, null), FailureClass.TRANSIENT, FetchFailures.UNAVAILABLE, "answered 408"),
                Arguments.of(new FetchOutcome.Answered(429, null), FailureClass.TRANSIENT, FetchFailures.UNAVAILABLE, "answered 429"),
                Arguments.of(new FetchOutcome.Unreachable("java.net.http.HttpTimeoutException", "timed out"), FailureClass.TRANSIENT, FetchFailures.UNAVAILABLE, "timed out"),
                Arguments.of(new FetchOutcome.Unreachable("java.net.ConnectException", "refused"), FailureClass.TRANSIENT, FetchFailures.UNAVAILABLE, "refused"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("outcomes")
    void aFailedFetchIsAFailureOfItsClassNamingTheAttachment(FetchOutcome outcome, FailureClass expected, String code,
                                                            String text) {
        Failure f = FetchFailures.classify(1, "invoice.pdf", "https://files.example/i.pdf", outcome);
        assertThat(f.failureClass()).isEqualTo(expected);
        assertThat(f.enhancedCode()).isEqualTo(code);
        assertThat(f.text()).startsWith("attachment 1 (invoice.pdf) from https://files.example/i.pdf: ").contains(text);
    }

    @Test
    void aFetchedFileIsNoFailure() {
        assertThatThrownBy(() -> FetchFailures.classify(0, "a", "u", new FetchOutcome.Fetched(new byte[0])))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
