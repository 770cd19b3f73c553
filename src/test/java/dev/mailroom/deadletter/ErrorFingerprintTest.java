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
                Arguments.of("numbers", "mailbox full after 3 tries (size 52)", "mailbox full after <n> tries (size <n>)"),
                Arguments.of("reply code at the start stays", "552 mailbox full after 3 tries", "552 mailbox full after <n> tries"),
                Arguments.of("address", "550 <alice.b+tag@mail.example.com> unknown", "550 <<address>> unknown"),
                Arguments.of("reply and enhanced code stay", "550 5.7.1 Message refused by policy 42",
                        "550 5.7.1 Message refused by policy <n>"),
                Arguments.of("multiline reply code stays", "550-5.7.1 refused", "550-5.7.1 refused"),
                Arguments.of("codes after a provider's prefix stay", "smtp said 421 4.7.0 try again in 30 s",
                        "smtp said 421 4.7.0 try again in <n> s"),
                Arguments.of("enhanced code alone stays", "rejected (5.1.1) for 3 recipients", "rejected (5.1.1) for <n> recipients"),
                Arguments.of("a bare three-digit number mid-text is a number", "retry in 300 seconds", "retry in <n> seconds"),
                Arguments.of("an IP address is not an enhanced code", "connect to 10.4.5.7 failed", "connect to <n>.<n>.<n>.<n> failed"),
                Arguments.of("a version is not an enhanced code", "client 2.4.10.1 refused", "client <n>.<n>.<n>.<n> refused"),
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

    static Stream<Arguments> letters() {
        return Stream.of(
                Arguments.of("poison groups by its error type", "poison", "not_json",
                        "not JSON: Unexpected character ('x' (code 120)) at line 1, column 2", "not_json"),
                Arguments.of("another not_json text, the same group", "poison", "not_json", "empty body", "not_json"),
                Arguments.of("poison of another type", "poison", "schema_violation", "/to: required", "schema_violation"),
                Arguments.of("poison without an error type: its error", "poison", null, "empty body", "empty body"),
                Arguments.of("poison with a blank error type: its error", "poison", " ", "empty body", "empty body"),
                Arguments.of("other classes: the error's fingerprint", "content_policy", "smtp",
                        "550 5.7.1 Message refused <a@b.c>", "550 5.7.1 Message refused <<address>>"),
                Arguments.of("no class: the error's fingerprint", null, "not_json", "empty body", "empty body"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("letters")
    void fingerprintsADeadLetter(String what, String failureClass, String errorType, String error, String fingerprint) {
        assertThat(ErrorFingerprint.of(failureClass, errorType, error)).isEqualTo(fingerprint);
    }

    @Test
    void fourNotJsonLettersAreOneGroup() {
        assertThat(Stream.of("empty body", "no JSON value in the body", "expected one JSON object, found array",
                        "not JSON: Unrecognized token 'abc': was expecting (JSON String, Number) at line 1, column 4")
                .map(error -> ErrorFingerprint.of("poison", "not_json", error)).distinct()).containsExactly("not_json");
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
