package dev.mailroom.it.liberty;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.ConsoleBrowser;
import dev.mailroom.it.support.CrashScenario;
import dev.mailroom.it.support.Jobs;
import dev.mailroom.it.support.LibertyEnvironment;
import dev.mailroom.it.support.RedriveScenario;
import dev.mailroom.it.support.RetryScenario;
import dev.mailroom.it.support.StopTheLineScenario;
import dev.mailroom.it.support.Webhooks;
import dev.mailroom.testsupport.SmtpTestServer;
import jakarta.jms.Message;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * The same mailroom.war on Open Liberty (server-config/liberty, laid out by the build), against a standalone Artemis
 * broker and a real SMTP server on loopback ({@link LibertyEnvironment}): what a job goes through, and who may do
 * what. The scenarios the WildFly executions prove run here with the same bodies (the scenario classes of
 * it/support, which take either server); the kill -9 runs last, since it restarts the server.
 */
@Tag("liberty")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LibertyIT {

    /** Smaller than SendPathCrashIT's 1,000 on WildFly: the execution stays a few minutes. */
    static final int CRASH_JOBS = 400;

    static LibertyEnvironment env;
    static SmtpTestServer smtp;
    static ApiClient api;

    @BeforeAll
    static void start() {
        env = LibertyEnvironment.start();
        smtp = env.smtp();
        api = env.api();
    }

    @AfterAll
    static void stop() {
        if (env != null) {
            env.close();
        }
    }

    @Test
    void threeHundredJobsAreEachSentOnceThroughSmtp() {
        List<String> ids = Jobs.ids(Jobs.runPrefix("liberty-300"), 300);
        int before = smtp.receivedCount();
        env.jms().sendAll("mail.send", Jobs.jobs(ids));

        assertThat(smtp.awaitReceived(before + 300, Duration.ofMinutes(5)))
                .as("300 mails at the relay; messages.log:%n%s", tail(env.server().messagesLog())).isTrue();
        Map<String, Integer> counts = smtp.countsByMessageId();
        for (String id : ids) {
            assertThat(counts.get(Jobs.smtpMessageId(id))).as(id).isEqualTo(1);
        }
        Awaitility.await().atMost(Duration.ofMinutes(1))
                .until(() -> ids.stream().allMatch(id -> "sent_to_provider".equals(Jobs.state(api, id))));
    }

    @Test
    void aPoisonJobIsDeadLetteredOnItsQueuesDeadLetterQueueWithItsEnvelopeAndRow() throws Exception {
        String id = Jobs.runPrefix("liberty-poison");
        env.jms().sendText("mail.send", Jobs.job(id).replace("\"schema_version\": 1", "\"schema_version\": 99"));

        JsonNode deadLetter = Jobs.awaitDeadLetter(api, "mail.send", id, Duration.ofMinutes(2));
        assertThat(deadLetter.path("reason").asText()).isEqualTo("poison");
        assertThat(deadLetter.path("error_type").asText()).isEqualTo("unsupported_schema_version");
        Message copy = env.jms().browse("DLQ.mail.send", "mr_message_id = '" + id + "'").stream().findFirst()
                .orElseThrow();
        assertThat(copy.getStringProperty("mr_reason")).isEqualTo("poison");
        assertThat(copy.getStringProperty("mr_source_queue")).isEqualTo("mail.send");
        assertThat(copy.getStringProperty("mr_error")).isNotBlank();
    }

    /**
     * The build configures Liberty with {@code MAILROOM_BROKER_URL=tcp://127.0.0.1:61616?callTimeout=30000}
     * (pom.xml): the parameter is one of the resource adapter's properties (ra.xml declares its type, so a bad value
     * would be refused there), which Liberty took without a word.
     */
    @Test
    void theBrokerUrlsClientParametersAreTheResourceAdaptersProperties() throws Exception {
        Path configured = env.server().configDir().resolve("configDropins/overrides/mailroom-configured.xml");
        assertThat(Files.readString(configured))
                .containsPattern("<resourceAdapter id=\"artemis\">\\s*<properties\\.artemis [^>]*CallTimeout=\"30000\"");
        assertThat(env.server().messagesLog().lines().filter(l -> l.contains("CWWKG")))
                .as("configuration messages (a bad value: CWWKG0075E ... element resourceAdapter, CWWKG0076W ... artemis)")
                .noneMatch(l -> (l.contains("artemis") || l.contains("resourceAdapter")) && l.matches(".* [WE] .*"));
    }

    @Test
    void anOperatorPausesAndResumesAQueueAViewerMayNotAndAStrangerIsNotLetIn() {
        assertThat(api.as("viewer", "wrong").get("/api/v1/queues").statusCode()).isEqualTo(401);
        assertThat(api.asViewer().post("/api/v1/queues/mail.send.bulk/pause?reason=it", "").statusCode())
                .isEqualTo(403);

        JsonNode paused = api.postJson("/api/v1/queues/mail.send.bulk/pause?reason=it", "", 200);
        assertThat(paused.path("paused").asBoolean()).isTrue();
        assertThat(paused.path("consumers")).allSatisfy(c -> assertThat(c.path("delivery_active").asBoolean()).isFalse());
        JsonNode resumed = api.postJson("/api/v1/queues/mail.send.bulk/resume", "", 200);
        assertThat(resumed.path("paused").asBoolean()).isFalse();

        assertThat(api.anonymous().get("/console/login.html").statusCode()).isEqualTo(200);
    }

    @Test
    void anOperatorSignsInToTheConsoleInTheBrowserAndSeesTheSendQueues() {
        try (ConsoleBrowser browser = ConsoleBrowser.start(env.server().baseUrl())) {
            browser.signIn("operator", "operator-pass"); // through the login page, as ConsoleBrowserIT does
            browser.wait(ConsoleBrowser.WAIT).until(ExpectedConditions.visibilityOfElementLocated(
                    By.cssSelector("[data-testid=queue-card][data-queue='mail.send']")));
        }
    }

    @Test
    void aTransientFailureIsRetriedOnTheBrokersScheduleAndThenSent() {
        RetryScenario.retriedOnTheBrokersScheduleThenSent(env, "mail.send.bulk", 451, "4.3.0 Temporary local problem",
                "transient");
    }

    @Test
    void revokedCredentialsStopTheLineAndEveryJobIsSentOnceWhenTheyWorkAgain() {
        new StopTheLineScenario(env).revokedCredentialsStopTheLineUntilTheyWorkAgain();
    }

    @Test
    void afterAnOutageAPlanOfItsDeadLetterGroupReplaysItEachMailOnce() {
        new RedriveScenario(env).afterTheOutageAPlanOfItsGroupSendsTheSampleThenTheRestAtTheSetRate();
    }

    @Test
    void anUnknownSendIsSettledByItsSignedDeliveredEvent() throws Exception {
        Webhooks.anUnknownSendIsSettledByItsSignedDeliveredEvent(env);
    }

    @Test
    @Order(Integer.MAX_VALUE)
    void killedMidBatchTheServerLosesNothingAndSendsNothingTwice() {
        CrashScenario.stoppedMidBatchLosesNothingAndSendsNothingTwice(env, CrashScenario.Stop.KILL_DASH_NINE,
                CRASH_JOBS, 100, 4);
    }

    private static String tail(String log) {
        return log.length() <= 4000 ? log : log.substring(log.length() - 4000);
    }
}
