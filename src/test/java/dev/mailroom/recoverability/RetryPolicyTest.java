package dev.mailroom.recoverability;

import static dev.mailroom.recoverability.FailureClass.AMBIGUOUS;
import static dev.mailroom.recoverability.FailureClass.INTERNAL;
import static dev.mailroom.recoverability.FailureClass.SOFT_BOUNCE;
import static dev.mailroom.recoverability.FailureClass.SYSTEMIC;
import static dev.mailroom.recoverability.FailureClass.THROTTLED;
import static dev.mailroom.recoverability.FailureClass.TRANSIENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** The policy matrix's defaults and its per-queue configuration. */
class RetryPolicyTest {

    private static RetryPolicy load(String queue, Map<String, String> config) {
        return RetryPolicy.forQueue(queue, k -> Optional.ofNullable(config.get(k)));
    }

    private static List<Duration> seconds(long... s) {
        return java.util.Arrays.stream(s).mapToObj(Duration::ofSeconds).toList();
    }

    @Test
    void theIssuesDefaults() {
        RetryPolicy p = RetryPolicy.defaults();
        assertThat(p.of(TRANSIENT)).isEqualTo(new ClassPolicy(seconds(5, 15, 30, 60, 120), 5, Jitter.FULL));
        assertThat(p.of(AMBIGUOUS)).isEqualTo(p.of(TRANSIENT));
        assertThat(p.of(SOFT_BOUNCE)).isEqualTo(new ClassPolicy(
                List.of(Duration.ofMinutes(15), Duration.ofHours(1), Duration.ofHours(6)), 3, Jitter.EQUAL));
        assertThat(p.of(INTERNAL).maxRetries()).isEqualTo(1);
        assertThat(p.of(THROTTLED)).isEqualTo(new ClassPolicy(seconds(30), 50, Jitter.EQUAL));
        assertThat(p.of(SYSTEMIC).baseDelay(0)).isEqualTo(Duration.ofSeconds(30));
        assertThat(p.floor()).isEqualTo(Duration.ofSeconds(1));
    }

    @ParameterizedTest
    @EnumSource(value = FailureClass.class, names = {"PERMANENT_RECIPIENT", "CONTENT_POLICY", "POISON", "UNKNOWN"})
    void classesThatAreNeverRetriedHaveNoBudget(FailureClass c) {
        assertThatThrownBy(() -> RetryPolicy.defaults().of(c))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(c.wireName());
    }

    @Test
    void noConfigurationMeansTheDefaults() {
        RetryPolicy p = load("mail.send", Map.of());
        assertThat(p.queue()).isEqualTo("mail.send");
        assertThat(p.classes()).isEqualTo(RetryPolicy.defaults().classes());
        assertThat(p.floor()).isEqualTo(RetryPolicy.defaults().floor());
    }

    @Test
    void aQueuesKeysOverrideTheDefaultsKeyByKey() {
        RetryPolicy p = load("mail.send", Map.of(
                "mailroom.policy.mail.send.transient.delays", "1s, 2s",
                "mailroom.policy.mail.send.transient.max-retries", "2",
                "mailroom.policy.mail.send.soft_bounce.jitter", "none",
                "mailroom.policy.mail.send.throttled.max-throttles", "7",
                "mailroom.policy.mail.send.systemic.delays", "10s,1m,5m",
                "mailroom.policy.mail.send.min-delay", "250ms"));
        assertThat(p.of(TRANSIENT)).isEqualTo(new ClassPolicy(seconds(1, 2), 2, Jitter.FULL));
        assertThat(p.of(SOFT_BOUNCE).jitter()).isEqualTo(Jitter.NONE);
        assertThat(p.of(SOFT_BOUNCE).maxRetries()).isEqualTo(3);
        assertThat(p.of(THROTTLED).maxRetries()).isEqualTo(7);
        assertThat(p.of(SYSTEMIC).delays()).isEqualTo(List.of(Duration.ofSeconds(10), Duration.ofMinutes(1),
                Duration.ofMinutes(5)));
        assertThat(p.floor()).isEqualTo(Duration.ofMillis(250));
        assertThat(p.of(AMBIGUOUS)).isEqualTo(RetryPolicy.defaults().of(AMBIGUOUS));
    }

    @Test
    void aQueueFallsBackToTheDefaultQueueKeysAndItsOwnWin() {
        Map<String, String> config = new HashMap<>();
        config.put("mailroom.policy.default.transient.max-retries", "8");
        config.put("mailroom.policy.default.internal.delays", "2s");
        config.put("mailroom.policy.mail.bulk.transient.max-retries", "3");
        RetryPolicy bulk = load("mail.bulk", config);
        RetryPolicy send = load("mail.send", config);
        assertThat(bulk.of(TRANSIENT).maxRetries()).isEqualTo(3);
        assertThat(send.of(TRANSIENT).maxRetries()).isEqualTo(8);
        assertThat(bulk.of(INTERNAL).delays()).isEqualTo(seconds(2));
        assertThat(send.of(INTERNAL).delays()).isEqualTo(seconds(2));
    }

    @Test
    void blankValuesCountAsAbsent() {
        RetryPolicy p = load("mail.send", Map.of("mailroom.policy.mail.send.transient.delays", " ",
                "mailroom.policy.default.transient.delays", "3s"));
        assertThat(p.of(TRANSIENT).delays()).isEqualTo(seconds(3));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', value = {
            "mailroom.policy.mail.send.transient.delays     | 5x        | a comma-separated list of positive durations",
            "mailroom.policy.mail.send.transient.delays     | 5s,,10s   | a comma-separated list of positive durations",
            "mailroom.policy.mail.send.soft_bounce.delays   | 0s        | a comma-separated list of positive durations",
            "mailroom.policy.mail.send.ambiguous.delays     | -5s       | a comma-separated list of positive durations",
            "mailroom.policy.mail.send.transient.max-retries| -1        | a whole number of at least 0",
            "mailroom.policy.mail.send.internal.max-retries | three     | a whole number of at least 0",
            "mailroom.policy.mail.send.transient.jitter     | random    | none, full or equal",
            "mailroom.policy.mail.send.throttled.max-throttles | lots   | a whole number of at least 0",
            "mailroom.policy.mail.send.min-delay            | 0ms       | a positive duration",
            "mailroom.policy.default.systemic.delays        | soon      | a comma-separated list of positive durations",
    })
    void aBadValueFailsNamingItsKey(String key, String value, String message) {
        assertThatThrownBy(() -> load("mail.send", Map.of(key, value)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(key + "='" + value + "' is refused: expected " + message);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"500ms, 500", "5s, 5000", "15m, 900000", "1h, 3600000", "2d, 172800000", "PT5S, 5000", "pt1m30s, 90000"})
    void durationsAsOperatorsWriteThem(String text, long millis) {
        RetryPolicy p = load("q", Map.of("mailroom.policy.q.transient.delays", text));
        assertThat(p.of(TRANSIENT).delays()).containsExactly(Duration.ofMillis(millis));
    }

    @Test
    void theLastDelayRepeatsWhenThereAreMoreRetriesThanDelays() {
        ClassPolicy p = new ClassPolicy(seconds(1, 2), 5, Jitter.NONE);
        assertThat(List.of(p.baseDelay(0), p.baseDelay(1), p.baseDelay(2), p.baseDelay(4)))
                .isEqualTo(seconds(1, 2, 2, 2));
    }

    @Test
    void theDefaultQueueReadsOnlyItsOwnKeys() {
        RetryPolicy p = load("default", Map.of("mailroom.policy.default.transient.max-retries", "9"));
        assertThat(p.of(TRANSIENT).maxRetries()).isEqualTo(9);
    }
}
