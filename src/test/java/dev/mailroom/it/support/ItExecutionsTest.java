package dev.mailroom.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every integration test runs somewhere: each {@code *IT} class has a JUnit tag, and each tag is in the groups of a
 * failsafe execution of pom.xml (an IT whose tag no execution runs would pass by never running). The development page's table
 * of executions names each execution and its tags as the pom has them.
 */
class ItExecutionsTest {

    private static final Pattern EXECUTION = Pattern.compile(
            "<execution>\\s*<id>(it-[\\w-]+)</id>.*?<groups>([^<]*)</groups>", Pattern.DOTALL);
    private static final Pattern TAG = Pattern.compile("@Tag\\(\"([\\w-]+)\"\\)");

    /** Execution id -> the tags its groups expression names (properties resolved from the pom's own). */
    static Map<String, Set<String>> executions() throws IOException {
        String pom = Files.readString(Path.of("pom.xml"));
        Map<String, Set<String>> out = new LinkedHashMap<>();
        Matcher m = EXECUTION.matcher(pom);
        while (m.find()) {
            String groups = m.group(2).trim();
            Matcher property = Pattern.compile("\\$\\{([\\w.-]+)}").matcher(groups);
            if (property.matches()) {
                Matcher value = Pattern.compile("<" + Pattern.quote(property.group(1)) + ">([^<]*)<").matcher(pom);
                assertThat(value.find()).as("pom property " + property.group(1)).isTrue();
                groups = value.group(1);
            }
            out.put(m.group(1), Stream.of(groups.split("\\|")).map(String::trim).filter(s -> !s.isEmpty())
                    .collect(Collectors.toCollection(java.util.TreeSet::new)));
        }
        return out;
    }

    /** IT class (relative path) -> its tags. */
    static Map<String, List<String>> integrationTests() throws IOException {
        Path root = Path.of("src/test/java/dev/mailroom/it");
        Map<String, List<String>> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith("IT.java")).toList()) {
                out.put(root.relativize(f).toString(), TAG.matcher(Files.readString(f)).results()
                        .map(r -> r.group(1)).toList());
            }
        }
        return out;
    }

    @Test
    void everyIntegrationTestHasATagThatAnExecutionRuns() throws IOException {
        Map<String, Set<String>> executions = executions();
        assertThat(executions).as("failsafe executions found in pom.xml").containsKeys("it-default", "it-h2",
                "it-postgres", "it-chaos");
        Set<String> run = executions.values().stream().flatMap(Set::stream).collect(Collectors.toSet());
        Map<String, List<String>> tests = integrationTests();
        assertThat(tests).as("integration tests found").hasSizeGreaterThan(30);
        assertThat(tests).allSatisfy((test, tags) -> {
            assertThat(tags).as(test + " has a tag").isNotEmpty();
            assertThat(tags).as(test + "'s tags, run by some execution of " + run).anyMatch(run::contains);
        });
    }

    @Test
    void theDevelopmentPageTableNamesEachExecutionWithItsTags() throws IOException {
        String readme = Files.readString(Path.of("docs/development.md"));
        executions().forEach((id, tags) -> assertThat(readme)
                .as("docs/development.md names " + id + " with its tags").contains("| `" + id + "` | " + tags.stream()
                        .map(t -> "`" + t + "`").collect(Collectors.joining(", ")) + " |"));
    }
}
