package dev.mailroom.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alerting rules as Prometheus itself reads them: {@code promtool check rules} parses them, and
 * {@code promtool test rules} runs their unit tests ({@code mailroom.rules.test.yml}: each alert fires on the series
 * that should raise it, with the labels and summary Alertmanager and the on-call read, and stays quiet otherwise).
 * {@code promtool} comes with Debian's {@code prometheus} package, which {@code .ci/run} installs; without it (a
 * developer's machine) these tests are skipped, never in CI.
 */
class PromtoolRulesTest {

    private static final Path RULES = Path.of("server-config/prometheus/rules");

    @BeforeAll
    static void promtool() {
        boolean present = Files.isExecutable(Path.of("/usr/bin/promtool"));
        if (System.getenv("CI") != null) {
            assertThat(present).as("promtool (Debian's prometheus package, installed by .ci/run)").isTrue();
        }
        assumeTrue(present, "promtool is not installed (apt-get install prometheus)");
    }

    @Test
    void prometheusParsesTheRules() throws Exception {
        Result r = promtool(RULES, "check", "rules", "mailroom.rules.yml");
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).contains("SUCCESS");
    }

    @Test
    void theRulesUnitTestsPass() throws Exception {
        Result r = promtool(RULES, "test", "rules", "mailroom.rules.test.yml");
        assertThat(r.exit()).as(r.output()).isZero();
    }

    @Test
    void aRuleThatNoLongerFiresAsItsTestExpectsIsFound(@TempDir Path dir) throws Exception {
        Files.copy(RULES.resolve("mailroom.rules.test.yml"), dir.resolve("mailroom.rules.test.yml"));
        // the stopped-line rule raised only at 2 instead of 1: the test's paused queue no longer pages
        Files.writeString(dir.resolve("mailroom.rules.yml"), Files.readString(RULES.resolve("mailroom.rules.yml"))
                .replace("(mailroom_queue_paused) == 1", "(mailroom_queue_paused) == 2"));
        Result r = promtool(dir, "test", "rules", "mailroom.rules.test.yml");
        assertThat(r.exit()).isNotZero();
        assertThat(r.output()).contains("QueuePaused");
    }

    private record Result(int exit, String output) { }

    private static Result promtool(Path dir, String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of("/usr/bin/promtool"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("promtool answered").isTrue();
        return new Result(p.exitValue(), output);
    }
}
