package dev.mailroom.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.platform.settings.InvalidSetting;
import dev.mailroom.platform.settings.SettingsReader;
import dev.mailroom.recoverability.KeyOrderPolicy.AfterDeadLetter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KeyOrderSettingsTest {

    private static final List<String> QUEUES = List.of("mail.send", "mail.send.bulk");

    @Test
    void continueUnlessSetForEveryQueueOrForOne() {
        assertThat(KeyOrderSettings.read(SettingsReader.of(Map.of()), QUEUES).afterDeadLetter("mail.send"))
                .isEqualTo(AfterDeadLetter.CONTINUE);
        KeyOrderSettings s = KeyOrderSettings.read(SettingsReader.of(Map.of(
                "mailroom.ordering.after-dead-letter", "hold",
                "mailroom.ordering.after-dead-letter.mail.send.bulk", "continue")), QUEUES);
        assertThat(s.afterDeadLetter("mail.send")).isEqualTo(AfterDeadLetter.HOLD);
        assertThat(s.afterDeadLetter("mail.send.bulk")).isEqualTo(AfterDeadLetter.CONTINUE);
        assertThat(s.afterDeadLetter("mail.send.other")).as("a queue not read: the one for every queue")
                .isEqualTo(AfterDeadLetter.HOLD);
    }

    @Test
    void aValueThatIsNeitherStopsTheDeploymentNamingItsKey() {
        assertThatThrownBy(() -> KeyOrderSettings.read(SettingsReader.of(Map.of(
                "mailroom.ordering.after-dead-letter.mail.send", "block")), QUEUES))
                .isInstanceOf(InvalidSetting.class)
                .hasMessageContaining("mailroom.ordering.after-dead-letter.mail.send")
                .hasMessageContaining("block")
                .hasMessageContaining("continue or hold");
    }
}
