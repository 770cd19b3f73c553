package dev.mailroom.provider;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link ProviderResponse#summary()}: a provider's answer for people, its code shown once. */
class ProviderResponseTest {

    @ParameterizedTest(name = "{0} / {1} -> {3}")
    @CsvSource(delimiter = '|', nullValues = "null", value = {
            // SMTP: the reply text begins with its own code
            "535  | 535 5.7.8 Authentication credentials invalid | null | 535 5.7.8 Authentication credentials invalid",
            "421  | 421 4.3.0 Try again later                   | null | 421 4.3.0 Try again later",
            "421  | 421-4.3.0 first line of a multi-line reply  | null | 421-4.3.0 first line of a multi-line reply",
            "550  | 550                                          | null | 550",
            // HTTP: the body does not repeat the status
            "401  | invalid api key                              | null | 401 invalid api key",
            "503  | 5030 is not the code                         | null | 503 5030 is not the code",
            // no answer: the fault
            "null | connection reset                             | null | connection reset",
            "null | null                                         | java.net.ConnectException | java.net.ConnectException"})
    void showsTheCodeOnce(String code, String text, String errorType, String expected) {
        ProviderResponse r = new ProviderResponse(ProviderResponse.Status.REJECTED, "relay", code, null, text, null,
                null, errorType);
        assertThat(r.summary()).isEqualTo(expected);
    }
}
