package dev.mailroom.it.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mailroom.it.support.ItEnvironment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The README's quick start, word for word: its {@code artemis producer} command is run with the Artemis distribution's
 * own {@code bin/artemis}, and each of its {@code curl} lines with curl, against the embedded default (only the ports
 * move by the tests' offset); each answers what the README says: the job in the state its comment names, the sandbox
 * outbox holding the job.
 */
@Tag("default-config")
class QuickStartIT {

    private static final Pattern CURL = Pattern.compile("(?m)^    (curl [^#\\n]*?)\\s*(?:#(.*))?$");
    private static final Pattern STATE = Pattern.compile("\"state\": \"(\\w+)\"");
    private static final Pattern MESSAGE_ID = Pattern.compile("\"message_id\":\"([^\"]+)\"");

    @Test
    void theQuickStartCommandsRunAndAnswerWhatTheReadmeShows() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        String readme = Files.readString(Path.of("README.md"));
        int http = env.server().httpPort();
        String producer = ports(command(readme, "    artemis producer"), env);
        Matcher id = MESSAGE_ID.matcher(producer);
        assertThat(id.find()).as("the producer command's message_id").isTrue();

        Result sent = run(System.getProperty("mailroom.it.artemis-home") + "/bin/" + producer);
        assertThat(sent.exit()).as("artemis producer: " + sent.output()).isZero();

        Matcher curls = CURL.matcher(readme);
        List<String> run = new ArrayList<>();
        while (curls.find()) {
            String curl = curls.group(1).replace("127.0.0.1:8080", "127.0.0.1:" + http);
            String comment = curls.group(2) == null ? "" : curls.group(2);
            run.add(curl);
            JsonNode answer = awaitAnswer(curl, comment);
            if (curl.contains("/jobs/")) {
                assertThat(curl).as("the job the README looks at is the one it sent").endsWith("/jobs/" + id.group(1));
                Matcher state = STATE.matcher(comment);
                assertThat(state.find()).as("the README says which state the job is in: " + comment).isTrue();
                assertThat(answer.path("state").asText()).isEqualTo(state.group(1));
            } else if (curl.contains("/sandbox/messages")) {
                assertThat(answer.findValuesAsText("message_id")).contains(id.group(1));
            }
        }
        assertThat(run).as("the README's curl lines").hasSize(2);
    }

    /** The command starting at {@code start}, its continuation lines joined. */
    private static String command(String readme, String start) {
        int at = readme.indexOf(start);
        assertThat(at).as("the README has " + start.trim()).isNotNegative();
        StringBuilder c = new StringBuilder();
        for (String line : readme.substring(at).split("\n")) {
            String l = line.strip();
            c.append(l.endsWith("\\") ? l.substring(0, l.length() - 1) : l).append(' ');
            if (!l.endsWith("\\")) {
                break;
            }
        }
        return c.toString().trim();
    }

    private static String ports(String command, ItEnvironment env) {
        return command.replace("tcp://127.0.0.1:61616", "tcp://127.0.0.1:" + env.server().artemisPort());
    }

    /** Runs {@code curl} until it answers JSON that says what the comment says (the job takes a moment to be sent). */
    private static JsonNode awaitAnswer(String curl, String comment) throws Exception {
        ObjectMapper json = new ObjectMapper();
        Instant until = Instant.now().plus(Duration.ofSeconds(60));
        Matcher state = STATE.matcher(comment);
        String wanted = state.find() ? state.group(1) : null;
        while (true) {
            Result r = run(curl + " -w '\\n%{http_code}'");
            int cut = r.output().lastIndexOf('\n');
            String status = r.output().substring(cut + 1).trim();
            JsonNode body = json.readTree(r.output().substring(0, Math.max(cut, 0)));
            // a refusal other than "not there yet" will not change by waiting
            boolean refused = status.startsWith("4") && !status.equals("404");
            boolean done = refused || status.equals("200") && (wanted == null || wanted.equals(body.path("state").asText()));
            if (done || Instant.now().isAfter(until)) {
                assertThat(status).as(curl + " answered " + r.output()).isEqualTo("200");
                return body;
            }
            Thread.sleep(250);
        }
    }

    private record Result(int exit, String output) {
    }

    private static Result run(String shellCommand) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("bash", "-c", shellCommand).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as(shellCommand).isTrue();
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
