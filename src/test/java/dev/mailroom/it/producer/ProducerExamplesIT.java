package dev.mailroom.it.producer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.AmqpProducerExample;
import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.JmsClient;
import dev.mailroom.it.support.Programs;
import dev.mailroom.it.support.ProducerWar;
import dev.mailroom.job.JobParser;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The producer examples of docs/producers.md, run as a user runs them against the embedded default: the Java SE
 * program in a JVM of its own on the client jar (Mailroom's own classes are not on its classpath), and the Node.js
 * program over AMQP 1.0 on the broker's port. Each job is sent like any other: once, by the sandbox.
 */
@Tag("default-config")
class ProducerExamplesIT {

    private static final Duration RUN = Duration.ofMinutes(3);

    private static ItEnvironment env;
    private static ApiClient api;

    @BeforeAll
    static void boot() {
        env = ItEnvironment.get();
        api = env.api();
    }

    @Test
    void theJavaSeExampleSendsAJobOnTheClientJarAlone() throws URISyntaxException {
        Path mailroomClasses = Path.of(JobParser.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> java = Programs.java(List.of(ProducerWar.clientJar()), List.of(mailroomClasses),
                "dev.mailroom.examples.JavaSeProducer", "tcp://127.0.0.1:" + env.server().artemisPort(),
                "java-se@example.com");

        String messageId = Programs.run(java, Path.of("."), Map.of(), RUN).succeeded();

        assertSentOnce(messageId, "java-se@example.com");
    }

    @Test
    void theNodeJsExampleSendsAJobOverAmqp() {
        String messageId = AmqpProducerExample.send("amqp://127.0.0.1:" + env.server().artemisPort(), "amqp@example.com",
                JmsClient.DEFAULT_USER, JmsClient.DEFAULT_PASSWORD);

        assertThat(messageId).startsWith("amqp-");
        assertSentOnce(messageId, "amqp@example.com");
    }

    private static void assertSentOnce(String messageId, String recipient) {
        JsonNode job = api.awaitJson("/api/v1/jobs/" + messageId,
                j -> "sent_to_provider".equals(j.path("state").asText()), Duration.ofSeconds(60));
        assertThat(job.path("attempt_count").asInt()).isEqualTo(1);
        JsonNode outbox = api.getJson("/api/v1/sandbox/messages?limit=1000");
        assertThat(StreamSupport.stream(outbox.spliterator(), false)
                .filter(m -> messageId.equals(m.path("message_id").asText())).toList())
                .singleElement().satisfies(m -> {
                    assertThat(m.path("recipients").asText()).isEqualTo(recipient);
                    assertThat(m.path("subject").asText()).isEqualTo("Hello");
                });
    }
}
