package dev.mailroom.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.platform.settings.SettingsReader;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class UnsubscribeRequirementTest {

    private static final List<String> QUEUES = List.of("mail.send", "mail.send.bulk", "mail.send.news");

    static Stream<Arguments> settings() {
        return Stream.of(
                Arguments.of(Map.of(), "mail.send.bulk", true),
                Arguments.of(Map.of(), "mail.send", false),
                Arguments.of(Map.of(), "mail.send.news", false),
                Arguments.of(Map.of("mailroom.bulk.require-unsubscribe", "false"), "mail.send.bulk", false),
                // the bare key is about the bulk queue: it never forces a transactional queue
                Arguments.of(Map.of("mailroom.bulk.require-unsubscribe", "true"), "mail.send", false),
                Arguments.of(Map.of("mailroom.bulk.require-unsubscribe.mail.send.news", "true"), "mail.send.news", true),
                // the queue's own key wins over the bare one
                Arguments.of(Map.of("mailroom.bulk.require-unsubscribe", "false",
                        "mailroom.bulk.require-unsubscribe.mail.send.bulk", "true"), "mail.send.bulk", true));
    }

    @ParameterizedTest(name = "{0} on {1}: {2}")
    @MethodSource("settings")
    void whichQueuesRequireAnUnsubscribe(Map<String, String> values, String queue, boolean required) {
        assertThat(UnsubscribeRequirement.read(SettingsReader.of(values), QUEUES).required(queue)).isEqualTo(required);
    }
}
