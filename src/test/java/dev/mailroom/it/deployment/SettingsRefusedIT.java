package dev.mailroom.it.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.MailroomNodes;
import dev.mailroom.it.support.PostgresServer;
import dev.mailroom.it.support.WildFlyServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The embedded default as a new operator starts it, with one bad setting: a retry policy's delays written as
 * {@code soon}. The deployment is refused at boot with one log line naming the key, the value and the accepted
 * syntax, and nothing answers: no server that runs and then ends its first job {@code unknown}. The server has
 * its own base directory (configuration, deployments, markers), so the refused deployment touches no other server.
 */
@Tag("default-config")
class SettingsRefusedIT {

    /** Above the execution's own server, below the nodes' and the chaos suite's offsets. */
    private static final int OFFSET_ABOVE_THE_EXECUTIONS_SERVER = 250;

    @Test
    void aBadRetryPolicyStopsTheDeploymentWithALineNamingTheSetting() throws Exception {
        Path home = Path.of(System.getProperty("mailroom.it.server-home"));
        Path dir = ItEnvironment.workDir().resolve("settings-refused");
        PostgresServer.deleteTree(dir);
        int offset = ItEnvironment.configuredPortOffset() + OFFSET_ABOVE_THE_EXECUTIONS_SERVER;
        try (WildFlyServer server = WildFlyServer.builder(home)
                .systemProperty("jboss.server.base.dir", MailroomNodes.Builder.ownServerBase(home, dir).toString())
                .portOffset(offset)
                .baseDir(dir)
                .env("MAILROOM_POLICY_DEFAULT_TRANSIENT_DELAYS", "soon")
                .build()) {
            String console = server.startAndAwaitBootEnd();

            assertThat(console).contains("Mailroom setting refused: mailroom.policy.default.transient.delays='soon'"
                    + " is refused: expected a comma-separated list of positive durations");
            assertThat(console).as("the server says its boot ended with a failed deployment").contains("WFLYSRV0026");
            assertThat(dir.resolve("deployments/mailroom.war.failed")).exists();
            assertThat(Files.exists(dir.resolve("deployments/mailroom.war.deployed"))).isFalse();
            HttpResponse<String> health = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(server.baseUrl() + ItEnvironment.HEALTH_PATH))
                            .timeout(Duration.ofSeconds(10)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(health.statusCode()).as("no Mailroom answers").isEqualTo(404);
        }
    }
}
