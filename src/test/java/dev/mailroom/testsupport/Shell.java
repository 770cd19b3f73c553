package dev.mailroom.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one of server-config's shell scripts (or a line sourcing it) as the servers' tools do, with no MAILROOM_
 * variable of the test's environment leaking in, for the tests of what the scripts print and refuse.
 */
public final class Shell {

    private Shell() {
    }

    /** What the command did: its exit status, standard output and standard error. */
    public record Result(int exit, String out, String err) {
    }

    /** Runs {@code command} with these variables added to a clean environment, waiting at most 30 s. */
    public static Result run(List<String> command, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().keySet().removeIf(k -> k.startsWith("MAILROOM_"));
        pb.environment().putAll(env);
        Process p = pb.start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("%s ended", command).isTrue();
        return new Result(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }
}
