package dev.mailroom.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PayloadRedactionTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final PayloadRedaction DEFAULT = PayloadRedaction.of(PayloadRedaction.DEFAULT_FIELDS);

    /** payload in, redacted payload out (compared as JSON); '-' = withheld whole. */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            {"to":["a@x"],"subject":"Hi"}                                  | {"to":["a@x"],"subject":"Hi"}
            {"text":"code 123456"}                                         | {"text":"[redacted]"}
            {"html":"<b>secret</b>","text":"secret"}                       | {"html":"[redacted]","text":"[redacted]"}
            {"template_id":"reset","variables":{"code":"123","user":{"n":"A"}}} | {"template_id":"reset","variables":{"code":"[redacted]","user":"[redacted]"}}
            {"metadata":{"order":"4711"}}                                  | {"metadata":{"order":"[redacted]"}}
            {"metadata":{}}                                                | {"metadata":{}}
            {"text":null}                                                  | {"text":null}
            {"variables":[1,2]}                                            | {"variables":"[redacted]"}
            {"nested":{"deep":[{"text":"x","keep":1}]}}                    | {"nested":{"deep":[{"text":"[redacted]","keep":1}]}}
            {"Text":"case matters"}                                        | {"Text":"case matters"}
            {"attachments":[{"filename":"invoice.pdf","content_type":"application/pdf","content_base64":"JVBERg=="}]} | {"attachments":[{"filename":"invoice.pdf","content_type":"application/pdf","content_base64":"[redacted]"}]}
            not json                                                       | -
            [1,2,3]                                                        | -
            "a string"                                                     | -
            {"truncated":                                                  | -
            """)
    void defaultFields(String payload, String expected) throws Exception {
        String redacted = DEFAULT.json(payload);
        if (expected == null) {
            assertThat(redacted).isNull();
            assertThat(DEFAULT.bytes(payload.getBytes(StandardCharsets.UTF_8))).isNull();
        } else {
            assertThat(JSON.readTree(redacted)).isEqualTo(JSON.readTree(expected));
            assertThat(JSON.readTree(DEFAULT.bytes(payload.getBytes(StandardCharsets.UTF_8))))
                    .isEqualTo(JSON.readTree(expected));
        }
    }

    @ParameterizedTest(name = "fields \"{0}\": {1} -> {2}")
    @CsvSource(delimiter = '|', textBlock = """
            ''                      | {"text":"t","subject":"s"}  | {"text":"t","subject":"s"}
            ' subject , '           | {"text":"t","subject":"s"}  | {"text":"t","subject":"[redacted]"}
            'to,variables'          | {"to":["a"],"variables":{}} | {"to":"[redacted]","variables":{}}
            """)
    void configuredFields(String fields, String payload, String expected) throws Exception {
        JsonNode redacted = JSON.readTree(PayloadRedaction.of(fields).json(payload));
        assertThat(redacted).isEqualTo(JSON.readTree(expected));
    }

    @Test
    void nothingIsHiddenWhenNoFieldsAreNamed() {
        assertThat(PayloadRedaction.of(" , ").isEmpty()).isTrue();
        assertThat(PayloadRedaction.of(null).isEmpty()).isTrue();
        assertThat(DEFAULT.isEmpty()).isFalse();
        assertThat(DEFAULT.json(null)).isNull();
        assertThat(DEFAULT.bytes(null)).isNull();
    }
}
