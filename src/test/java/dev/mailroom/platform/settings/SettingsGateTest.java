package dev.mailroom.platform.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.enterprise.inject.spi.DeploymentException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SettingsGateTest {

    @Test
    void everyConcernIsCheckedEvenAfterOneFailsAndTheDeploymentIsRefusedWithAllOfThem() {
        List<String> checked = new ArrayList<>();
        CheckedAtBoot badDuration = () -> {
            checked.add("a");
            SettingsReader.of(Map.of("mailroom.x.window", "soon")).duration(Duration.ZERO, "mailroom.x.window");
        };
        CheckedAtBoot fine = () -> checked.add("b");
        // the container wraps what a bean's construction throws; the reason is still the setting's
        CheckedAtBoot wrapped = () -> {
            checked.add("c");
            throw new RuntimeException("creating bean", new InvalidSetting("mailroom.y.port", "smtp", "a whole number"));
        };

        assertThatThrownBy(() -> SettingsGate.check(List.of(badDuration, fine, wrapped)))
                .isInstanceOf(DeploymentException.class)
                .hasMessageContaining("2 settings cannot be used")
                .hasMessageContaining("mailroom.x.window='soon' is refused: expected a duration such as 500ms, 5s")
                .hasMessageContaining("mailroom.y.port='smtp' is refused: expected a whole number");
        assertThat(checked).containsExactly("a", "b", "c");
    }

    @Test
    void goodSettingsPass() {
        assertThatCode(() -> SettingsGate.check(List.of(() -> { }))).doesNotThrowAnyException();
    }

    @Test
    void aConcernsOwnArgumentErrorIsTheReasonWhenNoSettingIsNamedTheOutermostOneWhichAddsTheKey() {
        assertThat(SettingsGate.reason(new RuntimeException("creating bean",
                new IllegalArgumentException("mailroom.lease.heartbeat 5s must be below mailroom.lease.ttl 8s",
                        new IllegalArgumentException("too close")))))
                .isEqualTo("mailroom.lease.heartbeat 5s must be below mailroom.lease.ttl 8s");
    }

    @ParameterizedTest
    @CsvSource({
            "30s, PT30S", "5m, PT5M", "2h, PT2H", "500ms, PT0.5S", "2d, PT48H", "PT30S, PT30S", "pt1m, PT1M", "P3D, PT72H",
    })
    void oneDurationSyntaxForEverySettingAndEveryConfigPropertyField(String text, String expected) {
        assertThat(DurationText.parse(text)).isEqualTo(Duration.parse(expected));
        assertThat(new DurationConverter().convert(text)).isEqualTo(Duration.parse(expected));
    }

    @ParameterizedTest
    @CsvSource({"soon", "30", "1 minute", "-5s", "PT"})
    void aBadDurationIsRefusedWithTheAcceptedSyntax(String text) {
        assertThatThrownBy(() -> new DurationConverter().convert(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("500ms, 5s, 15m, 1h, 2d or ISO-8601");
    }

    @Test
    void readsTakeTheFirstKeyThatHasAValueAndNameItWhenItIsBad() {
        SettingsReader r = SettingsReader.of(Map.of("q.default.limit", "7", "q.mail.limit", " ", "q.bulk.limit", "x"));
        assertThat(r.integer(1, 0, 10, "q.mail.limit", "q.default.limit")).isEqualTo(7);
        assertThat(r.integer(1, 0, 10, "q.none.limit")).isEqualTo(1);
        assertThatThrownBy(() -> r.integer(1, 0, 10, "q.bulk.limit", "q.default.limit"))
                .isInstanceOf(InvalidSetting.class)
                .hasMessage("q.bulk.limit='x' is refused: expected a whole number from 0 to 10");
        assertThatThrownBy(() -> r.integer(1, 0, 5, "q.default.limit"))
                .hasMessage("q.default.limit='7' is refused: expected a whole number from 0 to 5");
    }

    @ParameterizedTest
    @CsvSource({"yes", "1", "on"})
    void onlyTrueOrFalseIsABoolean(String text) {
        assertThatThrownBy(() -> SettingsReader.of(Map.of("k", text)).bool(true, "k"))
                .hasMessage("k='" + text + "' is refused: expected true or false");
    }
}
