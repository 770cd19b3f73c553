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

    @Test
    void aRedactedDiffComparesTheRedactedSidesAndShowsNoSecret() {
        dev.mailroom.job.PayloadRedaction redaction = dev.mailroom.job.PayloadRedaction.of("variables");
        String before = DeadLetterRevisions.pretty("{\"to\":[\"a@x\"],\"variables\":{\"code\":\"111\"}}");
        String after = DeadLetterRevisions.pretty("{\"to\":[\"b@x\"],\"variables\":{\"code\":\"222\"}}");
        String diff = PayloadDiff.diff(before, after);
        assertThat(diff).contains("111").contains("222");

        String redacted = PayloadDiff.redact(diff, redaction::json);

        assertThat(redacted).doesNotContain("111").doesNotContain("222").contains("[redacted]")
                .contains("-  \"to\" : [ \"a@x\" ]").contains("+  \"to\" : [ \"b@x\" ]");
        assertThat(redacted).as("the code's change is hidden: its line is context")
                .contains("     \"code\" : \"[redacted]\"");
    }

    @Test
    void aDiffWithASideThatIsNotJsonIsWithheld() {
        String diff = PayloadDiff.diff("not json", "{\"text\":\"secret\"}");
        assertThat(PayloadDiff.redact(diff, dev.mailroom.job.PayloadRedaction.of("text")::json)).isNull();
        assertThat(PayloadDiff.redact(null, s -> s)).isNull();
    }
}
