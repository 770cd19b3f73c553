package dev.mailroom.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.docs.DocDrift.Pages;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Docs that cannot drift: every configuration key, environment variable, metric, alert name and paused reason the
 * code has is in docs/reference.md, each alert and paused reason has its runbook section, and nothing listed there
 * is gone from the code; the links between the pages lead somewhere; the README's two commands are the ones CI and the
 * run profile use.
 */
class DocsReferenceTest {

    @Test
    void theReferenceAndTheRunbookNameWhatTheCodeHasAndNothingElse() {
        assertThat(DocDrift.problems(Pages.read())).isEmpty();
    }

    @Test
    void aPlantedOmissionOrARetiredNameIsFound() {
        Pages real = Pages.read();
        String reference = real.reference()
                .replaceAll("(?m)^\\| `mailroom_jobs_total` \\|.*\\n", "")
                .replaceAll("(?m)^\\| `mailroom.smtp.helo-name` .*\\n", "")
                .replace("| `mailroom_attempts_total` |", "| `mailroom_gone_total` | counter | | retired |\n| `mailroom_attempts_total` |");
        String runbook = real.runbook().replace("### `QueuePaused`", "### QueuePaused").replace("### `database`", "### database");

        String all = real.all() + "\nA job that vanished answers 410 `job_vanished`.\n";

        List<String> problems = DocDrift.problems(new Pages(reference, runbook, all));

        assertThat(problems).containsExactlyInAnyOrder(
                "metric `mailroom_jobs_total` is in the code but not in docs/reference.md",
                "metric `mailroom_gone_total` is in docs/reference.md but no longer in the code",
                "configuration key `mailroom.smtp.helo-name` is in the code but not in docs/reference.md",
                "alert `QueuePaused` has no section in docs/runbook.md",
                "paused_reason `database` has no section in docs/runbook.md",
                "error code `job_vanished` is documented but nothing in the code answers it");
    }

    @Test
    void aDocumentedKeyCoversTheCodeKeysItsPlaceholdersStandFor() {
        assertThat(DocDrift.keyMatches("mailroom.policy.<queue>.<class>.delays", "mailroom.policy.mail.send.transient.delays")).isTrue();
        assertThat(DocDrift.keyMatches("mailroom.policy.<queue>.<class>.delays", "mailroom.policy.<queue>.transient.max-retries")).isFalse();
        assertThat(DocDrift.keyMatches("mailroom.providers.<queue>", "mailroom.providers.")).isTrue();
        assertThat(DocDrift.keyMatches("mailroom.smtp.host", "mailroom.smtp.")).isTrue();
        assertThat(DocDrift.keyMatches("mailroom.smtp.host", "mailroom.smtp.port")).isFalse();
        assertThat(DocDrift.documentedErrorCodes("404 `job_not_found`; (`webhook_stale` 409); 403 {\"error\": \"forbidden\"}"))
                .containsExactlyInAnyOrder("job_not_found", "webhook_stale", "forbidden");
        assertThat(DocDrift.environmentForm("mailroom.stop-the-line.probe-interval")).isEqualTo("MAILROOM_STOP_THE_LINE_PROBE_INTERVAL");
        assertThat(DocDrift.firstColumn("| `h` | x |\n|---|---|\n| `a`, `b` | `c` |\n| x | `d` |")).isEqualTo(Set.of("a", "b"));
    }

    @Test
    void everyLinkBetweenThePagesLeadsToAFileAndAHeading() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(Path.of("README.md"), Path.of("bench/README.md"), Path.of("chaos/README.md")));
        try (var docs = Files.list(Path.of("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).forEach(pages::add);
        }
        List<String> broken = new ArrayList<>();
        pages.forEach(p -> broken.addAll(DocLinks.broken(p, CodeNames.read(p))));
        assertThat(broken).isEmpty();
    }

    @Test
    void aLinkToAMissingHeadingOrFileIsFound() {
        String page = "# Runbook\n\n## Stop the line\n\nSee [it](#stop-the-line), [gone](#recovering), "
                + "[ref](reference.md#alerts), [none](nowhere.md).\n";
        assertThat(DocLinks.broken(Path.of("docs/runbook.md"), page)).containsExactly(
                "docs/runbook.md: link #recovering names no heading of docs/runbook.md",
                "docs/runbook.md: link nowhere.md names no file");
        assertThat(DocLinks.anchors("### `paused_reason`: `dead_letter_rate`")).containsExactly("paused_reason-dead_letter_rate");
    }

    @Test
    void theReadmesTwoCommandsAreTheOnesCiAndTheRunProfileUse() {
        String readme = CodeNames.read(Path.of("README.md"));
        assertThat(readme).contains("\n    mvn -Prun package\n").contains("\n    mvn clean verify\n");
        assertThat(CodeNames.read(Path.of(".ci/run"))).containsPattern("(?m)^exec mvn( -[A-Za-z]+)* clean verify$");
        assertThat(CodeNames.read(Path.of("pom.xml"))).contains("<id>run</id>");
    }

    @Test
    void theDevelopmentPageNamesEveryPackageThatHasAPackageInfo() throws IOException {
        Set<String> packages = new java.util.TreeSet<>();
        try (var files = Files.walk(CodeNames.MAIN)) {
            files.filter(f -> f.getFileName().toString().equals("package-info.java"))
                    .forEach(f -> packages.add(CodeNames.MAIN.relativize(f.getParent()).toString().replace('/', '.')));
        }
        String architecture = DocDrift.section(CodeNames.read(Path.of("docs/development.md")), "## Architecture");
        assertThat(packages).as("packages with a package-info").contains("dev.mailroom.send", "dev.mailroom.ops.api");
        assertThat(DocDrift.firstColumn(architecture)).isEqualTo(packages);
    }
}
