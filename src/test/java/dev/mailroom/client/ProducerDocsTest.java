package dev.mailroom.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * docs/producers.md and README.md show the examples the integration tests run, as they are: every code block marked
 * {@code <!-- from: <file> -->} is lines of that file (indentation aside), so an example cannot drift from the code the
 * tests run.
 */
class ProducerDocsTest {

    private static final Path PAGE = Path.of("docs/producers.md");
    private static final Path README = Path.of("README.md");
    private static final Pattern QUOTED = Pattern.compile("<!-- from: (\\S+) -->\\s*\\n```\\w*\\n(.*?)\\n```", Pattern.DOTALL);

    @Test
    void everyQuotedBlockOfTheProducersPageIsInTheFileItNames() throws IOException {
        assertThat(quotedAsTheyAre(PAGE)).as("quoted examples").contains(
                "src/test/java/dev/mailroom/examples/JavaSeProducer.java",
                "src/test/java/dev/mailroom/examples/producer/Orders.java", "examples/amqp-node/send-job.js");
    }

    @Test
    void theReadmeShowsTheJavaSeAndTheAmqpExampleAsTheyAre() throws IOException {
        assertThat(quotedAsTheyAre(README)).as("quoted examples").contains(
                "src/test/java/dev/mailroom/examples/JavaSeProducer.java", "examples/amqp-node/send-job.js");
    }

    /** The files {@code page} quotes, each block checked against its file. */
    private static List<String> quotedAsTheyAre(Path page) throws IOException {
        List<String> checked = new ArrayList<>();
        Matcher m = QUOTED.matcher(Files.readString(page));
        while (m.find()) {
            Path file = Path.of(m.group(1));
            assertThat(file).as("the file a block of %s quotes", page).isRegularFile();
            assertThat(normalised(Files.readString(file))).as("%s quotes %s", page, file)
                    .contains(normalised(m.group(2)));
            checked.add(m.group(1));
        }
        return checked;
    }

    @Test
    void aChangedExampleIsFound() {
        assertThat(normalised("  a();\n    b();\n")).contains(normalised("a();\nb();"));
        assertThat(normalised("  a();\n    b();\n")).doesNotContain(normalised("a();\nc();"));
    }

    private static String normalised(String code) {
        return code.lines().map(String::strip).collect(Collectors.joining("\n"));
    }
}
