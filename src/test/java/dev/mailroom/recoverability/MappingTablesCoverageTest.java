package dev.mailroom.recoverability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.recoverability.MappingCases.Case;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The case tables reach every row of the shipped mapping tables: a new row needs a new case. */
class MappingTablesCoverageTest {

    private static final MappingTables SHIPPED = MappingTables.fromClasspath();

    @Test
    void everyShippedRowIsDecisiveForAtLeastOneCase() {
        Set<String> reached = new TreeSet<>();
        Stream.concat(MappingCases.smtpCases().stream(), MappingCases.httpCases().stream()).forEach((Case c) -> {
            FailureClassifier classifier = c.profile() == null ? new FailureClassifier(SHIPPED)
                    : new FailureClassifier(SHIPPED, Map.of("http", c.profile()));
            classifier.matchingRule(c.response()).ifPresent(r -> reached.add(c.response().provider() + "/" + r.id()));
        });
        Set<String> all = new TreeSet<>();
        SHIPPED.providers().forEach((name, table) -> {
            table.rules().forEach(r -> all.add(name + "/" + r.id()));
            table.profiles().values().forEach(rows -> rows.forEach(r -> all.add(name + "/" + r.id())));
        });
        assertThat(all).hasSizeGreaterThan(30);
        assertThat(reached).isEqualTo(all);
    }

    @Test
    void theShippedTablesCoverTheProvidersThatExist() {
        assertThat(SHIPPED.providers().keySet()).containsExactlyInAnyOrder("smtp", "http", "sandbox");
        assertThat(SHIPPED.provider("http").orElseThrow().profiles().keySet())
                .containsExactlyInAnyOrder("generic", "resend");
        assertThat(SHIPPED.provider("http").orElseThrow().defaultProfile()).isEqualTo("generic");
    }
}
