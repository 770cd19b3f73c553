package dev.mailroom.redrive;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DeadLetterRevisionsTest {

    @Test
    void prettyPrintsJsonSoTheDiffIsPerField() {
        assertThat(DeadLetterRevisions.pretty("{\"a\":1,\"b\":[2]}")).isEqualTo("{\n  \"a\" : 1,\n  \"b\" : [ 2 ]\n}");
        assertThat(DeadLetterRevisions.pretty("not json {")).isEqualTo("not json {");
    }

    @Test
    void aNewKeyStaysWithinTheColumn() {
        String longKey = "k".repeat(199) + ".r1";
        assertThat(DeadLetterRevisions.boundedKey(longKey)).hasSize(200).endsWith(".r1");
        assertThat(DeadLetterRevisions.boundedKey("order-1.r2")).isEqualTo("order-1.r2");
    }
}
