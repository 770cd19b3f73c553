package dev.mailroom.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SchemaVersionsTest {

    static Stream<Arguments> jobs() {
        return Stream.of(
                // declared version, fields, version needed, violations
                Arguments.of(1, List.of("to", "subject", "text"), 1, List.of()),
                Arguments.of(2, List.of("to", "subject", "text"), 1, List.of()),
                Arguments.of(2, List.of("to", "attachments"), 2, List.of()),
                Arguments.of(1, List.of("to", "attachments"), 2,
                        List.of("/attachments: needs schema_version 2 (this job declares schema_version 1)")),
                Arguments.of(2, List.of("to", "send_at"), 2, List.of()),
                Arguments.of(1, List.of("to", "send_at"), 2,
                        List.of("/send_at: needs schema_version 2 (this job declares schema_version 1)")),
                Arguments.of(1, List.of("attachments", "send_at"), 2,
                        List.of("/attachments: needs schema_version 2 (this job declares schema_version 1)",
                                "/send_at: needs schema_version 2 (this job declares schema_version 1)")),
                Arguments.of(3, List.of("to", "ordering_key", "send_at"), 3, List.of()),
                Arguments.of(2, List.of("to", "ordering_key", "send_at"), 3,
                        List.of("/ordering_key: needs schema_version 3 (this job declares schema_version 2)")),
                Arguments.of(1, List.of(), 1, List.of()),
                Arguments.of(1, List.of("no_such_field"), 1, List.of()));
    }

    @ParameterizedTest(name = "version {0} with {1}")
    @MethodSource("jobs")
    void aFieldNeedsTheVersionThatAddedIt(int declared, List<String> fields, int needed, List<String> violations) {
        assertThat(SchemaVersions.needed(fields)).isEqualTo(needed);
        assertThat(SchemaVersions.tooNew(declared, fields)).isEqualTo(violations);
    }

    @Test
    void theVersionsReadAreOneToTheLatest() {
        assertThat(SchemaVersions.isSupported(0)).isFalse();
        assertThat(SchemaVersions.isSupported(1)).isTrue();
        assertThat(SchemaVersions.isSupported(2)).isTrue();
        assertThat(SchemaVersions.isSupported(3)).isTrue();
        assertThat(SchemaVersions.isSupported(4)).isFalse();
        assertThat(SchemaVersions.LATEST).isEqualTo(JobContract.LATEST_SCHEMA_VERSION);
    }

    /** The table and the schema say the same: every added field is a property, and the schema lists the versions. */
    @Test
    void everyAddedFieldIsInTheSchemaAndMarkedWithItsVersion() throws Exception {
        JsonNode schema;
        try (InputStream in = JobContract.class.getResourceAsStream(JobContract.SCHEMA_RESOURCE)) {
            schema = new ObjectMapper().readTree(in);
        }
        JsonNode properties = schema.get("properties");
        SchemaVersions.addedFields().forEach((field, version) -> {
            assertThat(properties.has(field)).as(field).isTrue();
            assertThat(properties.get(field).get("description").textValue()).as(field)
                    .startsWith("schema_version " + version + ".");
        });
        Set<Integer> versions = new java.util.TreeSet<>();
        properties.get("schema_version").get("enum").forEach(v -> versions.add(v.intValue()));
        assertThat(versions).containsExactly(1, 2, 3);
    }
}
