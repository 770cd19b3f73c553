package dev.mailroom.deadletter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** The fingerprint rules, one row each: what varies between occurrences of one cause is normalised away. */
class ErrorFingerprintTest {

    static Stream<Arguments> rows() {
        return Stream.of(
                Arguments.of("numbers", "552 mailbox full after 3 tries", "<n> mailbox full after <n> tries"),
                Arguments.of("address", "550 <alice.b+tag@mail.example.com> unknown", "<n> <<address>> unknown"),
                Arguments.of("uuid", "job 3f1c2d4e-1111-2222-3333-444455556666 failed", "job <id> failed"),
                Arguments.of("long hex id", "provider id 0af3c9e2b7d14e6a9c01 rejected", "provider id <id> rejected"),
                Arguments.of("ISO timestamp", "timeout at 2026-11-30T09:12:44.123Z", "timeout at <time>"),
                Arguments.of("offset timestamp", "at 2026-11-30T09:12:44+01:00 again", "at <time> again"),
                Arguments.of("SQL-style timestamp", "at 2026-11-29 08:00:01 done", "at <time> done"),
                Arguments.of("double quotes", "missing variable \"first_name\"", "missing variable <text>"),
                Arguments.of("single quotes", "template 'welcome-v2' not found", "template <text> not found"),
                Arguments.of("host and port", "connect to 10.0.0.7:587 refused", "connect to <n>.<n>.<n>.<n>:<n> refused"),
                Arguments.of("words with digits stay", "smtp2go said no", "smtp2go said no"),
                Arguments.of("short hex words stay", "bad deadbeef cafe", "bad deadbeef cafe"),
                Arguments.of("surrounding blanks", "  timeout  ", "timeout"),
                Arguments.of("nothing to normalise", "connection refused", "connection refused"),
                Arguments.of("empty", "", ""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void normalises(String what, String error, String fingerprint) {
        assertThat(ErrorFingerprint.of(error)).isEqualTo(fingerprint);
    }

    @Test
    void twoOccurrencesOfOneCauseShareAFingerprint() {
        assertThat(ErrorFingerprint.of("550 5.1.1 <alice@example.com>: mailbox unavailable (id 12)"))
                .isEqualTo(ErrorFingerprint.of("550 5.1.1 <bob@example.org>: mailbox unavailable (id 13)"));
    }

    @Test
    void nullStaysNullAndOnlyTheFirst300CharactersCount() {
        assertThat(ErrorFingerprint.of(null)).isNull();
        String head = "x".repeat(ErrorFingerprint.CONSIDERED_CHARS);
        assertThat(ErrorFingerprint.of(head + " tail one")).isEqualTo(ErrorFingerprint.of(head + " tail two"));
        assertThat(ErrorFingerprint.of("1 ".repeat(1000))).hasSizeLessThanOrEqualTo(ErrorFingerprint.MAX_LENGTH);
    }
}
