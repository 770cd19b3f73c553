package dev.mailroom.it.support;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The Node.js producer of docs/producers.md ({@code examples/amqp-node/send-job.js}, rhea over AMQP 1.0), run as a user
 * runs it: {@code npm ci} once when its {@code node_modules} is missing (Node.js and npm are the machine's), then
 * {@code node send-job.js <url> <recipient>} with the broker user in its environment.
 */
public final class AmqpProducerExample {

    private static final Path DIR = Path.of("examples/amqp-node");
    private static final Duration RUN = Duration.ofMinutes(3);

    private AmqpProducerExample() {
    }

    /** Sends one job; returns the message id the program printed once the broker accepted it. */
    public static synchronized String send(String amqpUrl, String recipient, String user, String password) {
        if (!Files.isDirectory(DIR.resolve("node_modules/rhea"))) {
            Programs.run(List.of("npm", "ci", "--no-audit", "--no-fund"), DIR, Map.of(), RUN).succeeded();
        }
        return Programs.run(List.of("node", "send-job.js", amqpUrl, recipient), DIR,
                Map.of("MAILROOM_AMQP_USER", user, "MAILROOM_AMQP_PASSWORD", password), RUN).succeeded();
    }
}
