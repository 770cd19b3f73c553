package dev.mailroom.redrive;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mailroom.job.PayloadRedaction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ViewRedactionTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ViewRedaction VIEW = new ViewRedaction(PayloadRedaction.of(PayloadRedaction.DEFAULT_FIELDS));

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    /** member, value in; whether the secret is gone, whether the member is withheld (null). */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            payload_base64 | B64:{"to":["a"],"variables":{"code":"SECRET"}} | false
            payload_base64 | B64:not json SECRET                              | true
            payload_base64 | %%%not base64%%%                                 | true
            payload        | {"text":"SECRET","subject":"s"}                  | false
            payload        | SECRET                                           | true
            diff           | DIFF                                             | false
            """)
    void everyPayloadDerivedMemberIsRedactedOrWithheld(String member, String value, boolean withheld)
            throws Exception {
        String v = value.startsWith("B64:") ? b64(value.substring(4))
                : value.equals("DIFF") ? PayloadDiff.diff(DeadLetterRevisions.pretty("{\"text\":\"SECRET\"}"),
                        DeadLetterRevisions.pretty("{\"text\":\"SECRET2\"}")) : value;
        JsonNode tree = JSON.createObjectNode().put("id", 7).put(member, v).put("reason", "SECRET is not here");
        JsonNode out = VIEW.apply(tree);
        assertThat(out.path(ViewRedaction.FLAG).asBoolean()).isTrue();
        assertThat(out.path("reason").asText()).as("other members untouched").isEqualTo("SECRET is not here");
        if (withheld) {
            assertThat(out.get(member).isNull()).isTrue();
        } else {
            String shown = member.equals("payload_base64")
                    ? new String(Base64.getDecoder().decode(out.get(member).asText()), StandardCharsets.UTF_8)
                    : out.get(member).asText();
            assertThat(shown).doesNotContain("SECRET").contains(PayloadRedaction.MASK);
        }
    }

    @Test
    void nestedAnswersAreRedactedEverywhereAndTheDeadLettersShownAreNamed() throws Exception {
        JsonNode record = JSON.readTree("""
                {"id":"r1","entries":[
                  {"dead_letter_id":3,"diff":null},
                  {"dead_letter_id":4,"diff":"--- original\\n+++ revision\\n-{\\"text\\":\\"SECRET\\"}\\n+{\\"text\\":\\"S2\\"}\\n"}
                ]}""");
        assertThat(ViewRedaction.deadLetterIds(record)).containsExactly(4L);
        JsonNode out = VIEW.apply(record);
        assertThat(out.toString()).doesNotContain("SECRET").doesNotContain("S2");
        assertThat(out.path("entries").get(0).has(ViewRedaction.FLAG)).as("nothing to redact, no flag").isFalse();
        assertThat(out.path("entries").get(1).path(ViewRedaction.FLAG).asBoolean()).isTrue();
        JsonNode envelope = JSON.createObjectNode().put("id", 9).put("payload_base64", b64("{}"));
        assertThat(ViewRedaction.deadLetterIds(envelope)).containsExactly(9L);
    }
}
