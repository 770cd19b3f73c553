package dev.mailroom.recoverability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The design's names for the classes, both ways. */
class FailureClassTest {

    @ParameterizedTest(name = "{0} <-> {1}")
    @CsvSource({
            "TRANSIENT, transient", "THROTTLED, throttled", "AMBIGUOUS, ambiguous", "SOFT_BOUNCE, soft_bounce",
            "PERMANENT_RECIPIENT, permanent_recipient", "CONTENT_POLICY, content_policy", "POISON, poison",
            "INTERNAL, internal", "UNKNOWN, unknown", "SYSTEMIC, systemic"})
    void wireNames(FailureClass c, String wire) {
        assertThat(c.wireName()).isEqualTo(wire);
        assertThat(FailureClass.fromWireName(wire)).isSameAs(c);
        assertThat(FailureClass.fromWireName(" " + wire.toUpperCase() + " ")).isSameAs(c);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "soft-bounce", "SOFT BOUNCE", "retry"})
    void anUnknownNameIsRefusedListingTheKnownOnes(String name) {
        assertThatThrownBy(() -> FailureClass.fromWireName(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + name + "'")
                .hasMessageContaining("transient, throttled, ambiguous, soft_bounce");
    }
}
