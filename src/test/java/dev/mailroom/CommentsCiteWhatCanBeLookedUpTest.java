package dev.mailroom;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Comments say the reason itself, in words a reader of the repository can check: none cites an issue number, "the
 * issue's" numbers or the history of a session, which a reader cannot look up. Applied SQL migrations are left as
 * they are: Flyway checksums their text, so editing one would stop every database that ran it from migrating.
 */
class CommentsCiteWhatCanBeLookedUpTest {

    static final Pattern UNCHECKABLE = Pattern.compile(
            "(?i)\\bissues? #?\\d+|the issue's|\\bthird pass\\b|\\bthis session\\b|\\blast session\\b");
    private static final List<String> READ = List.of(".java", ".js", ".css", ".html", ".properties", ".cli", ".sh",
            ".xml", ".json", ".yaml", ".yml");
    private static final Pattern APPLIED_MIGRATION = Pattern.compile(".*/db/migration/V\\d+__[^/]*\\.sql");

    @Test
    void noCommentCitesAnIssueNumberOrASession() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path root : List.of(Path.of("src"), Path.of("server-config"), Path.of("docker"), Path.of("bench"),
                Path.of("chaos"), Path.of("pom.xml"))) {
            if (!Files.exists(root)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(root)) {
                files.filter(Files::isRegularFile)
                        .filter(f -> READ.stream().anyMatch(f.toString()::endsWith))
                        .filter(f -> !APPLIED_MIGRATION.matcher(f.toString().replace('\\', '/')).matches())
                        .filter(f -> !f.getFileName().toString().equals("CommentsCiteWhatCanBeLookedUpTest.java"))
                        .forEach(f -> scan(f, found));
            }
        }
        assertThat(found).as("lines citing what a reader cannot look up; say the reason itself").isEmpty();
    }

    @Test
    void thePatternFindsWhatItIsFor() {
        assertThat(UNCHECKABLE.matcher("// see issue 11 §5").find()).isTrue();
        assertThat(UNCHECKABLE.matcher("<!-- the issue's sizes -->").find()).isTrue();
        assertThat(UNCHECKABLE.matcher("(bench/README.md, third pass)").find()).isTrue();
        assertThat(UNCHECKABLE.matcher("an issue with the relay, 5 retries").find()).isFalse();
    }

    private static void scan(Path file, List<String> found) {
        try {
            List<String> lines = Files.readAllLines(file);
            for (int i = 0; i < lines.size(); i++) {
                if (UNCHECKABLE.matcher(lines.get(i)).find()) {
                    found.add(file + ":" + (i + 1) + ": " + lines.get(i).trim());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(file.toString(), e);
        }
    }
}
