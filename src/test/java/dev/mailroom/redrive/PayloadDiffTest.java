package dev.mailroom.redrive;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PayloadDiffTest {

    @Test
    void anAddedLineIsAPlusAndTheRestIsContext() {
        String diff = PayloadDiff.diff("{\n  \"a\" : 1\n}", "{\n  \"a\" : 1,\n  \"to\" : [ \"b@x\" ]\n}");
        assertThat(diff).isEqualTo("""
                --- original
                +++ revision
                 {
                -  "a" : 1
                +  "a" : 1,
                +  "to" : [ "b@x" ]
                 }
                """);
    }

    @Test
    void equalTextsHaveOnlyContext() {
        assertThat(PayloadDiff.diff("x\ny", "x\ny")).isEqualTo("--- original\n+++ revision\n x\n y\n");
    }

    @Test
    void aRemovedLineIsAMinus() {
        assertThat(PayloadDiff.diff("a\nb\nc", "a\nc")).isEqualTo("--- original\n+++ revision\n a\n-b\n c\n");
    }

    @Test
    void hugeTextsAreReplacedWholeInsteadOfComparedLineByLine() {
        String big = "x\n".repeat(PayloadDiff.MAX_LINES + 1);
        String diff = PayloadDiff.diff(big, "y");
        assertThat(diff).endsWith("+y\n").contains("-x\n");
    }
}
