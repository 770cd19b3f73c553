package dev.mailroom.it.ops;

import dev.mailroom.it.support.Webhooks;
import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ConsoleScreenshots;
import dev.mailroom.it.support.ConsoleBrowser;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.testsupport.SmtpTestServer;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web console in a real headless Chromium (Debian's {@code chromium} + {@code chromium-driver}, which
 * {@code .ci/run} installs): an operator signs in, sees the queue on the dashboard, filters the dead letters by
 * reason, opens one (payload as text and hex), discards one with a reason, plans a redrive of the rest, reviews
 * the exact cohort, runs it, watches it and reads the recovery record; a viewer sees every action disabled and
 * the server refuses a viewer's write.
 *
 * <p>Dead letters are made the way production makes them: the loopback SMTP server answers {@code 550 5.7.1}
 * (content policy: dead-lettered at once as {@code manual_review}) and {@code 554 5.9.99} (unmapped); once no
 * failure is scripted any more it accepts, so the replay sends. Every job carries a campaign no other test uses,
 * so counts are exact on the shared server.
 */
@Tag("console")
class ConsoleBrowserIT {

    static final Duration WAIT = ConsoleBrowser.WAIT;
    static final Duration DEAD_LETTERED = Duration.ofSeconds(120);
    static final Duration REDRIVE = Duration.ofMinutes(4);

    private final ItEnvironment env = ItEnvironment.get();
    private final SmtpTestServer smtp = env.smtp();
    private ConsoleBrowser browser;
    private WebDriver driver;

    /**
     * A screenshot and the page source of the failing moment, in {@code target/console-screenshots} (taken right
     * after the test method, before {@code @AfterEach} closes the browser).
     */
    @RegisterExtension
    final AfterTestExecutionCallback screenshots = context -> {
        if (driver != null && context.getExecutionException().isPresent()) {
            ConsoleScreenshots.failure(driver, context.getRequiredTestMethod().getName());
        }
    };

    @AfterEach
    void quitBrowser() {
        quit();
    }

    // ------------------------------------------------------------------------------------------ the scenarios

    @Test
    void anOperatorTriagesDiscardsAndRedrivesDeadLettersInTheConsole() {
        String prefix = Jobs.runPrefix("console");
        String campaign = prefix + "campaign";
        List<String> ids = Jobs.ids(prefix, 5);
        // the SMTP server refuses these five (four for content policy, one with a code nobody knows; which job
        // gets which reply depends on the consumers' order), then accepts everything again
        for (int i = 0; i < 4; i++) {
            smtp.enqueueReply(550, "5.7.1 Message rejected: content violates policy");
        }
        smtp.enqueueReply(554, "5.9.99 something nobody has seen");
        for (String id : ids) {
            env.jms().sendText("mail.send", job(id, campaign));
        }

        startBrowser();
        signIn("operator", "operator-pass");

        // the dashboard shows the queue with its open dead letters and their arrivals
        waitFor(d -> {
            List<WebElement> cards = d.findElements(By.cssSelector("[data-testid=queue-card][data-queue='mail.send']"));
            return !cards.isEmpty() && number(cards.get(0).findElement(testId("open-count")).getText()) >= 5;
        }, DEAD_LETTERED, "dashboard: mail.send with at least 5 open dead letters (it refreshes itself)", false);
        // the dashboard repaints itself: each check finds the card afresh (a repaint between two checks is fine)
        By card = By.cssSelector("[data-testid=queue-card][data-queue='mail.send']");
        waitFor(d -> !d.findElement(card).findElement(testId("oldest-age")).getText().isBlank()
                && !"—".equals(d.findElement(card).findElement(testId("oldest-age")).getText())
                && Integer.parseInt(d.findElement(card).findElement(testId("arrivals-chart")).getAttribute("data-total")) >= 5
                && !d.findElement(card).findElements(By.cssSelector("[data-testid=failure-group][data-reason=manual_review]"))
                        .isEmpty(), WAIT, "dashboard: oldest age, arrivals and the manual_review group", false);

        // the list, filtered by campaign, then by reason
        click(testId("nav-dead-letters"));
        setField("filter-status", "");
        setField("filter-campaign_id", campaign);
        click(testId("dl-filter-submit"));
        List<WebElement> all = waitForRows(5, "campaign_id=" + campaign);
        assertThat(all).extracting(r -> r.getAttribute("data-reason"))
                .containsExactlyInAnyOrder("manual_review", "manual_review", "manual_review", "manual_review",
                        "unmapped_error");
        setField("filter-reason", "manual_review");
        click(testId("dl-filter-submit"));
        List<WebElement> rows = waitForRows(4, "reason=manual_review");
        assertThat(rows).allSatisfy(r -> assertThat(r.getAttribute("data-reason")).isEqualTo("manual_review"));
        List<String> policy = rows.stream().map(r -> r.getAttribute("data-message-id")).toList();
        assertThat(ids).containsAll(policy);
        String unmapped = ids.stream().filter(id -> !policy.contains(id)).findFirst().orElseThrow();
        assertThat(driver.getCurrentUrl()).contains("reason=manual_review").contains("campaign_id=");

        // one dead letter in detail: envelope, payload as text and as hex, attempts, timeline
        String discardId = rows.get(0).getAttribute("data-id");
        rows.get(0).findElement(testId("dl-link")).click();
        WebElement text = wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("payload-text")));
        String messageId = driver.findElement(testId("env-message-id")).getText();
        assertThat(policy).contains(messageId);
        assertThat(text.getText()).contains("\"message_id\": \"" + messageId + "\"");
        assertThat(driver.findElement(testId("payload-hex")).getText()).startsWith("00000000  7b");
        assertThat(driver.findElement(testId("env-reason")).getText()).isEqualTo("manual_review");
        assertThat(driver.findElement(testId("env-failure-class")).getText()).isEqualTo("content_policy");
        assertThat(driver.findElement(testId("attempts")).getText()).contains("550");
        assertThat(driver.findElement(testId("timeline")).getText()).isNotBlank();
        assertThat(driver.findElement(testId("dl-status")).getText()).isEqualTo("open");

        // an edit the job schema refuses shows the server's reason and saves nothing
        WebElement payload = driver.findElement(testId("edit-payload"));
        payload.clear();
        payload.sendKeys("{\"schema_version\": 1, \"message_id\": \"" + messageId + "\"}");
        driver.findElement(testId("edit-reason")).sendKeys("console test: an invalid edit");
        click(testId("edit-button"));
        WebElement refused = wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("edit-errors")));
        assertThat(refused.getText()).startsWith("The payload was refused: ");
        assertThat(driver.findElement(testId("edit-new-key")).isSelected()).as("new idempotency key: off by default")
                .isFalse();

        // discard it with a reason
        driver.findElement(testId("discard-reason")).sendKeys("console test: the customer cancelled");
        click(testId("discard-button"));
        wait(WAIT).until(ExpectedConditions.textToBe(testId("dl-status"), "discarded"));
        assertThat(driver.findElement(testId("history")).getText())
                .contains("discarded").contains("console test: the customer cancelled").contains("operator");
        assertThat(driver.findElement(testId("discard-button")).isEnabled()).isFalse();

        // plan a redrive of the open manual_review ones of this campaign: a dry run, reviewed first
        click(testId("nav-new-redrive"));
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("redrive-filter")));
        new Select(driver.findElement(testId("redrive-action"))).selectByValue("replay");
        setField("filter-reason", "manual_review");
        setField("filter-campaign_id", campaign);
        setField("opt-sample_size", "1");
        setField("opt-rate_per_second", "10");
        driver.findElement(testId("redrive-reason")).sendKeys("console test: the policy was a false positive");
        click(testId("redrive-filter-submit"));
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("review")));
        assertThat(driver.findElement(testId("redrive-status")).getText()).isEqualTo("planned");
        assertThat(driver.findElement(testId("cohort-count")).getText()).isEqualTo("3");
        assertThat(driver.findElement(By.cssSelector("[data-testid=by-reason] tr[data-key=manual_review]")).getText())
                .contains("3");
        assertThat(driver.findElement(By.cssSelector("[data-testid=by-queue] tr[data-key='mail.send']")).getText())
                .contains("3");
        List<WebElement> planned = driver.findElements(By.cssSelector("[data-testid=review-entries] [data-testid=entry-row]"));
        assertThat(planned).extracting(r -> r.getAttribute("data-dead-letter-id")).hasSize(3).doesNotContain(discardId);
        String redriveUrl = driver.getCurrentUrl();

        // run it and watch the live progress until every entry is sent
        click(testId("run-button"));
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("progress")));
        waitFor(d -> d.findElement(testId("redrive-progress")).getText().startsWith("3 of 3"), REDRIVE,
                "progress: 3 of 3 entries reached", false);
        waitFor(d -> {
            List<WebElement> entries = d.findElements(By.cssSelector("[data-testid=record-entries] [data-testid=entry-row]"));
            return entries.size() == 3 && entries.stream().allMatch(e -> "sent".equals(e.getAttribute("data-outcome")));
        }, REDRIVE, "recovery record: 3 entries, every one sent", false);
        assertThat(driver.findElement(testId("redrive-status")).getText()).isEqualTo("completed");
        assertThat(driver.findElement(By.cssSelector("[data-testid=outcomes] tr[data-outcome=sent]")).getText())
                .contains("3");
        assertThat(driver.getCurrentUrl()).isEqualTo(redriveUrl);

        // the recovery record stays readable afterwards, from the list of redrives
        String redriveId = redriveUrl.substring(redriveUrl.lastIndexOf('/') + 1);
        click(testId("nav-redrives"));
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("[data-testid=redrive-row][data-id='" + redriveId + "']")));

        // and the SMTP server got exactly the three replayed mails, under their original idempotency keys
        Set<String> expected = policy.stream().filter(id -> !id.equals(messageId)).map(Jobs::smtpMessageId)
                .collect(Collectors.toSet());
        assertThat(smtp.received()).extracting(SmtpTestServer.ReceivedMail::messageId)
                .containsAll(expected)
                .doesNotContain(Jobs.smtpMessageId(messageId), Jobs.smtpMessageId(unmapped));
    }

    @Test
    void aStoppedLineShowsItsReasonOnTheDashboardAndAnOperatorResumesIt() {
        String bulk = "mail.send.bulk";
        assertThat(env.api().post("/api/v1/queues/" + bulk + "/pause", null).statusCode()).isEqualTo(200);
        try {
            startBrowser();
            signIn("operator", "operator-pass");
            By card = By.cssSelector("[data-testid=queue-card][data-queue='" + bulk + "']");
            waitFor(d -> !d.findElements(card).isEmpty() && !d.findElement(card).findElements(testId("paused-badge")).isEmpty(),
                    WAIT, "dashboard: " + bulk + " shows it is paused (it refreshes itself)", false);
            WebElement banner = driver.findElement(card).findElement(testId("paused-banner"));
            assertThat(banner.getAttribute("data-reason")).isEqualTo("operator");
            assertThat(banner.findElement(testId("paused-badge")).getText()).contains("operator");
            assertThat(banner.findElement(testId("paused-detail")).getText()).contains("paused by operator");
            banner.findElement(testId("queue-resume-button")).click();
            waitFor(d -> d.findElements(card).size() == 1 && d.findElement(card).findElements(testId("paused-banner")).isEmpty(),
                    WAIT, "dashboard: " + bulk + " consuming again", false);
            assertThat(env.api().getJson("/api/v1/queues").findValuesAsText("paused")).doesNotContain("true");
        } finally {
            env.api().post("/api/v1/queues/" + bulk + "/resume", null);
        }
    }

    /**
     * The dashboard shows a new dead letter by itself (no reload: a marker set on the page
     * survives), with its provider answer in the last hour's failures, in a chart whose range is in the URL; its bar
     * opens the dead-letter list of exactly its time bucket.
     */
    @Test
    void theDashboardUpdatesByItselfAndAChartBarOpensItsBucketsDeadLetters() {
        String prefix = Jobs.runPrefix("console-live");
        String campaign = prefix + "campaign";
        String messageId = prefix + "0";
        By card = By.cssSelector("[data-testid=queue-card][data-queue='mail.send']");

        startBrowser();
        signIn("operator", "operator-pass");
        new Select(wait(WAIT).until(ExpectedConditions.elementToBeClickable(testId("arrivals-range"))))
                .selectByValue("1:PT5M");
        wait(WAIT).until(ExpectedConditions.urlContains("range=1%3APT5M"));
        waitFor(d -> !d.findElements(card).isEmpty()
                && "1:PT5M".equals(new Select(d.findElement(testId("arrivals-range"))).getFirstSelectedOption()
                        .getAttribute("value")), WAIT, "dashboard with the 1 h range", false);
        int openBefore = number(driver.findElement(card).findElement(testId("open-count")).getText());
        int failedBefore = number(driver.findElement(card).findElement(testId("failed-last-hour")).getText());
        String asOfBefore = driver.findElement(testId("as-of")).getAttribute("data-as-of");
        ((JavascriptExecutor) driver).executeScript("window.mailroomNotReloaded = true;");

        smtp.enqueueReply(550, "5.7.1 Message rejected: content violates policy");
        env.jms().sendText("mail.send", job(messageId, campaign));

        waitFor(d -> number(d.findElement(card).findElement(testId("open-count")).getText()) > openBefore
                        && number(d.findElement(card).findElement(testId("failed-last-hour")).getText()) > failedBefore,
                DEAD_LETTERED, "dashboard: a new open dead letter and a failed provider call, without a reload", false);
        assertThat(((JavascriptExecutor) driver).executeScript("return window.mailroomNotReloaded === true;"))
                .as("the page was not reloaded").isEqualTo(true);
        assertThat(driver.findElement(testId("as-of")).getAttribute("data-as-of")).isGreaterThan(asOfBefore);
        assertThat(driver.findElement(testId("as-of")).findElement(By.tagName("time")).getAttribute("title"))
                .as("the exact UTC instant on hover").endsWith("Z (UTC)");
        assertThat(driver.findElement(card).findElement(By.cssSelector(
                "[data-testid=failed-by-class] li[data-class=content_policy]")).getText()).startsWith("content_policy: ");
        for (String id : List.of("send-rate", "accepted-last-hour", "retry-backlog", "in-flight")) {
            assertThat(driver.findElement(card).findElement(testId(id)).getText()).as(id).isNotBlank();
        }

        // the bar of the bucket the new dead letter arrived in: stacked by reason, with a legend and axes
        JsonNode dl = env.api().getJson("/api/v1/dead-letters?campaign_id=" + campaign).get("items").get(0);
        Instant failedAt = Instant.parse(dl.get("failed_at").asText());
        By bars = By.cssSelector("[data-testid=queue-card][data-queue='mail.send'] [data-testid=arrivals-bar]");
        String from = wait(WAIT).until(d -> d.findElements(bars).stream()
                .filter(b -> !Instant.parse(b.getAttribute("data-start")).isAfter(failedAt)
                        && Instant.parse(b.getAttribute("data-end")).isAfter(failedAt))
                .map(b -> b.getAttribute("data-start")).findFirst().orElse(null));
        By bar = By.cssSelector("[data-testid=queue-card][data-queue='mail.send'] [data-testid=arrivals-bar][data-start='"
                + from + "']");
        String to = driver.findElement(bar).getAttribute("data-end");
        assertThat(Duration.between(Instant.parse(from), Instant.parse(to))).isEqualTo(Duration.ofMinutes(5));
        assertThat(driver.findElement(bar).findElements(By.cssSelector("rect[data-reason=manual_review]"))).hasSize(1);
        assertThat(driver.findElement(card).findElement(By.cssSelector(
                "[data-testid=arrivals-legend] [data-reason=manual_review]")).getText()).isEqualTo("manual_review");
        assertThat(driver.findElement(card).findElements(testId("y-tick")).size()).isGreaterThanOrEqualTo(2);
        assertThat(driver.findElement(card).findElements(testId("x-tick")).size()).isGreaterThanOrEqualTo(2);
        ConsoleScreenshots.save(driver, "dashboard");

        // the chart redraws itself every few seconds: a click that lands while something covers the bar is tried again
        wait(WAIT).ignoring(org.openqa.selenium.ElementClickInterceptedException.class).until(d -> {
            WebElement b = d.findElement(bar);
            ((JavascriptExecutor) d).executeScript("arguments[0].scrollIntoView({block: 'center'})", b);
            b.click();
            return true;
        });
        List<WebElement> rows = waitForListed(messageId);
        assertThat(driver.getCurrentUrl()).contains("#/dead-letters?").contains("queue=mail.send");
        assertThat(driver.findElement(testId("filter-from")).getAttribute("value")).isEqualTo(from);
        assertThat(driver.findElement(testId("filter-to")).getAttribute("value")).isEqualTo(to);
        List<String> inBucket = new java.util.ArrayList<>();
        env.api().getJson("/api/v1/dead-letters?queue=mail.send&limit=50&from=" + from + "&to=" + to).get("items")
                .forEach(i -> inBucket.add(i.get("id").asText()));
        assertThat(rows).extracting(r -> r.getAttribute("data-id")).as("exactly the bucket's dead letters")
                .containsExactlyInAnyOrderElementsOf(inBucket);
    }

    /** Pause then Resume from the dashboard; the badge changes and the API agrees each time. */
    @Test
    void anOperatorPausesAndResumesAQueueFromTheDashboard() {
        String bulk = "mail.send.bulk";
        By card = By.cssSelector("[data-testid=queue-card][data-queue='" + bulk + "']");
        try {
            startBrowser();
            signIn("operator", "operator-pass");
            waitFor(d -> !d.findElements(card).isEmpty(), WAIT, "dashboard: " + bulk, false);
            assertThat(driver.findElement(card).findElement(testId("queue-state")).getAttribute("data-state"))
                    .isEqualTo("consuming");
            driver.findElement(card).findElement(testId("queue-pause-button")).click();
            driver.findElement(card).findElement(testId("queue-pause-cancel")).click();
            assertThat(driver.findElement(card).findElement(testId("queue-pause-panel")).isDisplayed()).isFalse();
            assertThat(paused(bulk)).as("Cancel pauses nothing").isFalse();
            driver.findElement(card).findElement(testId("queue-pause-button")).click();
            driver.findElement(card).findElement(testId("queue-pause-reason")).sendKeys("relay maintenance");
            driver.findElement(card).findElement(testId("queue-pause-confirm")).click();
            waitFor(d -> "paused".equals(d.findElement(card).findElement(testId("queue-state")).getAttribute("data-state")),
                    WAIT, "dashboard: " + bulk + " paused", false);
            assertThat(driver.findElement(card).findElement(testId("paused-badge")).getText()).contains("operator");
            assertThat(driver.findElement(card).findElement(testId("paused-detail")).getText())
                    .isEqualTo("paused by operator: relay maintenance");
            assertThat(paused(bulk)).as("the API: paused").isTrue();

            driver.findElement(card).findElement(testId("queue-resume-button")).click();
            waitFor(d -> "consuming".equals(d.findElement(card).findElement(testId("queue-state")).getAttribute("data-state")),
                    WAIT, "dashboard: " + bulk + " consuming again", false);
            assertThat(driver.findElement(card).findElements(testId("paused-banner"))).isEmpty();
            assertThat(paused(bulk)).as("the API: consuming").isFalse();
        } finally {
            env.api().post("/api/v1/queues/" + bulk + "/resume", null);
        }
    }

    @Test
    void aViewerSeesEveryActionDisabledAndTheServerRefusesAViewersWrite() {
        String prefix = Jobs.runPrefix("console-viewer");
        String campaign = prefix + "campaign";
        smtp.enqueueReply(550, "5.7.1 Message rejected: content violates policy");
        env.jms().sendText("mail.send", job(prefix + "0", campaign));

        startBrowser();
        driver.get(env.server().baseUrl() + "/console/login.html");
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("login-username"))).sendKeys("viewer");
        driver.findElement(testId("login-password")).sendKeys("not-the-password");
        click(testId("login-submit"));
        wait(WAIT).until(ExpectedConditions.textToBe(testId("login-error"), "Wrong user name or password."));
        signIn("viewer", "viewer-pass");
        assertThat(driver.findElement(testId("whoami")).getText()).contains("viewer");

        click(testId("nav-dead-letters"));
        setField("filter-campaign_id", campaign);
        click(testId("dl-filter-submit"));
        List<WebElement> rows = waitForRows(1, "campaign_id=" + campaign);
        String id = rows.get(0).getAttribute("data-id");
        rows.get(0).findElement(testId("dl-link")).click();
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("payload-hex")));
        assertThat(driver.findElement(testId("dl-status")).getText()).isEqualTo("open");
        assertThat(driver.findElement(testId("viewer-note")).isDisplayed()).isTrue();
        for (String button : List.of("discard-button", "edit-button", "replay-button")) {
            assertThat(driver.findElement(testId(button)).isEnabled()).as(button).isFalse();
        }

        click(testId("nav-new-redrive"));
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("redrive-filter")));
        assertThat(driver.findElement(testId("redrive-filter-submit")).isEnabled()).isFalse();
        assertThat(driver.findElement(testId("viewer-note")).getText()).contains("operator");

        // the buttons are only a courtesy: the server itself refuses the viewer's discard
        @SuppressWarnings("unchecked")
        Map<String, Object> answer = (Map<String, Object>) ((JavascriptExecutor) driver).executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                fetch('../api/v1/dead-letters/' + arguments[0] + '/discard', {method: 'POST', credentials: 'same-origin',
                    headers: {'Content-Type': 'application/json', 'X-Mailroom-Console': '1',
                              'X-CSRF-Token': sessionStorage.getItem('mailroom.csrf') || ''},
                    body: JSON.stringify({reason: 'a viewer tries'})})
                  .then(r => r.json().then(b => done({status: r.status, error: b.error})))
                  .catch(e => done({status: -1, error: String(e)}));
                """, id);
        assertThat(answer).containsEntry("status", 403L).containsEntry("error", "forbidden");

        // the chart's endpoint refuses a bucket it cannot draw, with a reason
        @SuppressWarnings("unchecked")
        Map<String, Object> chart = (Map<String, Object>) ((JavascriptExecutor) driver).executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                fetch('../api/v1/dead-letters/arrivals?bucket=PT1S', {headers: {'X-Mailroom-Console': '1'}})
                  .then(r => r.json().then(b => done({status: r.status, error: b.error})))
                  .catch(e => done({status: -1, error: String(e)}));
                """);
        assertThat(chart).containsEntry("status", 400L).containsEntry("error", "invalid_bucket");
        driver.get(env.server().baseUrl() + "/console/index.html#/dead-letters/" + id);
        wait(WAIT).until(ExpectedConditions.textToBe(testId("dl-status"), "open"));
    }

    /**
     * Two failure groups that differ only in their error text are two objects; opening one
     * lists exactly its dead letters (by its fingerprint, not only its reason), and a plan of it has exactly them.
     */
    @Test
    void aFailureGroupOpensExactlyItsMembersAndPlansThem() {
        String prefix = Jobs.runPrefix("console-group");
        String campaign = prefix + "campaign";
        String token = letters();
        List<String> ids = refusedJobs(prefix, campaign, "5.7.1 Rejected by policy " + token + " alpha",
                "5.7.1 Rejected by policy " + token + " alpha", "5.7.1 Rejected by policy " + token + " beta");
        listCampaignAsOperator(campaign, 3);

        click(testId("nav-groups"));
        By alpha = By.xpath("//tr[@data-testid='group-row'][contains(@data-fingerprint, '" + token + " alpha')]");
        By beta = By.xpath("//tr[@data-testid='group-row'][contains(@data-fingerprint, '" + token + " beta')]");
        waitFor(d -> !d.findElements(alpha).isEmpty() && !d.findElements(beta).isEmpty(), WAIT, "groups: alpha and beta",
                true);
        WebElement alphaRow = driver.findElement(alpha);
        assertThat(alphaRow.getAttribute("data-count")).isEqualTo("2");
        assertThat(driver.findElement(beta).getAttribute("data-count")).isEqualTo("1");
        assertThat(alphaRow.getAttribute("data-reason")).isEqualTo(driver.findElement(beta).getAttribute("data-reason"));
        assertThat(alphaRow.getText()).contains("Plan a redrive").contains("Plan a discard");
        assertThat(alphaRow.findElements(testId("fix-may-have-shipped"))).as("failed under the running version").isEmpty();

        // the group's link lists exactly its two members
        alphaRow.findElement(testId("group-open")).click();
        List<WebElement> members = waitForRows(2, "fingerprint=");
        List<String> memberIds = members.stream().map(r -> r.getAttribute("data-id")).toList();
        assertThat(driver.findElement(testId("dl-total")).getText()).isEqualTo("2");
        assertThat(members).extracting(r -> r.getAttribute("data-message-id")).allMatch(ids::contains).doesNotHaveDuplicates();
        assertThat(members).allSatisfy(r -> assertThat(r.findElement(testId("dl-error-short")).getAttribute("title"))
                .contains(token + " alpha"));
        screenshot("group");

        // "plan a redrive of this group": the plan has exactly those two
        click(testId("nav-groups"));
        wait(WAIT).until(d -> !d.findElements(alpha).isEmpty());
        driver.findElement(alpha).findElement(testId("group-plan-replay")).click();
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("redrive-filter")));
        assertThat(driver.findElement(testId("filter-fingerprint")).getAttribute("value")).contains(token + " alpha");
        driver.findElement(testId("redrive-reason")).sendKeys("console test: plan a group");
        click(testId("redrive-filter-submit"));
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("review")));
        assertThat(driver.findElement(testId("cohort-count")).getText()).isEqualTo("2");
        assertThat(driver.findElements(By.cssSelector("[data-testid=review-entries] [data-testid=entry-row]")))
                .extracting(r -> r.getAttribute("data-dead-letter-id"))
                .containsExactlyInAnyOrderElementsOf(memberIds);
        abandonPlan();
    }

    /**
     * "Plan a redrive of the open ones matching this filter" carries the list's whole filter: filtered by queue and
     * one recipient the list shows 1 of 4 dead letters on the queue, and so does the plan, whose review names that
     * recipient; filtered by message id alone, the plan is that one dead letter too.
     */
    @Test
    void aPlanMadeFromTheListsFilterHoldsItsRecipientAndMessageId() {
        String prefix = Jobs.runPrefix("console-plan-filter");
        String campaign = prefix + "campaign";
        String token = letters();
        List<String> recipients = java.util.stream.IntStream.rangeClosed(1, 4)
                .mapToObj(i -> "policy" + token + "-" + i + "@example.test").toList();
        List<String> ids = Jobs.ids(prefix, recipients.size());
        for (int i = 0; i < ids.size(); i++) {
            smtp.enqueueReply(550, "5.7.1 Message refused by policy");
        }
        for (int i = 0; i < ids.size(); i++) {
            env.jms().sendText("mail.send", job(ids.get(i), campaign, recipients.get(i)));
        }
        listCampaignAsOperator(campaign, 4);

        // queue and one recipient: 1 of the 4 (and of every other dead letter of the queue)
        String recipient = recipients.get(1);
        setField("filter-campaign_id", "");
        setField("filter-queue", "mail.send");
        setField("filter-recipient", recipient);
        planTheListsOneRow("recipient", recipient);
        assertThat(driver.findElements(testId("cohort-recipient"))).extracting(WebElement::getText)
                .containsExactly(recipient);
        assertThat(driver.findElement(testId("entry-recipients")).getText()).isEqualTo(recipient);
        assertThat(driver.findElement(testId("redrive-filter-text")).getText()).contains("queue=mail.send")
                .contains("recipient=" + recipient);
        screenshot("plan-from-recipient-filter");
        abandonPlan();

        // the message id alone: that one dead letter
        click(testId("nav-dead-letters"));
        setField("filter-status", "");
        setField("filter-message_id", ids.get(2));
        planTheListsOneRow("message_id", ids.get(2));
        assertThat(driver.findElements(testId("cohort-recipient"))).extracting(WebElement::getText)
                .containsExactly(recipients.get(2));
        abandonPlan();
    }

    /**
     * Shows the list with the filter set in the form (one row, {@code field} = {@code value}), follows "Plan a redrive
     * of the open ones matching this filter" and plans it: the plan form holds the field, the review exactly that row.
     */
    private void planTheListsOneRow(String field, String value) {
        click(testId("dl-filter-submit"));
        String listed = waitForRows(1, field + "=").get(0).getAttribute("data-id");
        click(testId("plan-from-filter"));
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("redrive-filter")));
        assertThat(driver.findElement(testId("filter-" + field)).getAttribute("value")).isEqualTo(value);
        driver.findElement(testId("redrive-reason")).sendKeys("console test: the list's filter, all of it");
        click(testId("redrive-filter-submit"));
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("review")));
        assertThat(driver.findElement(testId("cohort-count")).getText()).isEqualTo("1");
        assertThat(driver.findElements(By.cssSelector("[data-testid=review-entries] [data-testid=entry-row]")))
                .extracting(r -> r.getAttribute("data-dead-letter-id")).containsExactly(listed);
    }

    /**
     * Item 3: a replay whose sample dead-letters again stops, and every view says so: the headline and its colour,
     * the bar, the re-failed entry's new error with a link to its next lap, the old dead letter's badge, and the
     * list of redrives (sent / failed again / not run).
     */
    @Test
    void aRedriveThatStopsAfterItsSampleShowsAsStoppedWithTheNewErrorsAndLapLinks() {
        String prefix = Jobs.runPrefix("console-stop");
        String campaign = prefix + "campaign";
        String token = letters();
        String policy = "5.7.1 Message rejected: content violates policy";
        refusedJobs(prefix, campaign, policy, policy, policy);
        startBrowser();
        signIn("operator", "operator-pass");
        click(testId("nav-dead-letters"));
        setField("filter-campaign_id", campaign);
        click(testId("dl-filter-submit"));
        waitForRows(3, "campaign_id=");

        click(testId("nav-new-redrive"));
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("redrive-filter")));
        setField("filter-campaign_id", campaign);
        setField("opt-sample_size", "1");
        driver.findElement(testId("redrive-reason")).sendKeys("console test: a replay that fails again");
        click(testId("redrive-filter-submit"));
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("review")));
        assertThat(driver.findElement(testId("cohort-count")).getText()).isEqualTo("3");
        String redriveUrl = driver.getCurrentUrl();
        String redriveId = redriveUrl.substring(redriveUrl.lastIndexOf('/') + 1);
        // the sample's send is refused again, with a new error
        smtp.enqueueReply(550, "5.7.1 Still rejected " + token + " on the second lap");
        click(testId("run-button"));

        By failedEntry = By.cssSelector("[data-testid=record-entries] [data-testid=entry-row][data-outcome=dead_lettered_again]");
        waitFor(d -> "stopped".equals(d.findElement(testId("redrive-status")).getText())
                && !d.findElements(failedEntry).isEmpty(), REDRIVE, "the run stops with one entry dead-lettered again", true);
        WebElement headline = driver.findElement(testId("redrive-headline"));
        assertThat(headline.getAttribute("data-tone")).isEqualTo("bad");
        assertThat(headline.getText()).startsWith("Stopped").contains("0 sent").contains("1 failed again")
                .contains("2 not run");
        WebElement bar = driver.findElement(testId("progress-bar"));
        assertThat(bar.getAttribute("data-failed")).isEqualTo("1");
        assertThat(bar.getAttribute("data-not-run")).isEqualTo("2");
        assertThat(bar.getAttribute("data-sent")).isEqualTo("0");
        assertThat(driver.findElement(testId("stop-reason-now")).getText()).contains("1 failed again");
        WebElement entry = driver.findElement(failedEntry);
        assertThat(entry.findElement(testId("entry-next-error")).getText()).contains(token);
        String oldId = entry.getAttribute("data-dead-letter-id");
        String nextHref = entry.findElement(testId("entry-next-lap")).getAttribute("href");
        String nextId = nextHref.substring(nextHref.lastIndexOf('/') + 1);
        assertThat(nextId).isNotEqualTo(oldId);
        assertThat(driver.findElements(By.cssSelector("[data-testid=record-entries] [data-testid=entry-row][data-outcome=not_run]")))
                .hasSize(2);
        screenshot("redrive-stopped");

        // the next lap is a dead letter of its own, pointing back
        entry.findElement(testId("entry-next-lap")).click();
        wait(WAIT).until(ExpectedConditions.textToBe(testId("dl-status"), "open"));
        assertThat(driver.findElement(testId("env-error")).getText()).contains(token);
        assertThat(driver.getCurrentUrl()).endsWith("/dead-letters/" + nextId);

        // the old dead letter says it was replayed and failed again, and links to the next lap
        driver.get(env.server().baseUrl() + "/console/index.html#/dead-letters/" + oldId);
        WebElement badge = wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("dl-status")));
        wait(WAIT).until(d -> d.findElement(testId("dl-status")).getText().startsWith("replayed → failed again"));
        assertThat(driver.findElement(testId("dl-status")).getAttribute("href")).endsWith("#/dead-letters/" + nextId);

        // and the list of redrives tells the same story
        click(testId("nav-redrives"));
        By row = By.cssSelector("[data-testid=redrive-row][data-id='" + redriveId + "']");
        WebElement listed = wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(row));
        assertThat(listed.findElement(testId("rl-sent")).getText()).isEqualTo("0");
        assertThat(listed.findElement(testId("rl-failed-again")).getText()).isEqualTo("1");
        assertThat(listed.findElement(testId("rl-not-run")).getText()).isEqualTo("2");
        assertThat(listed.getText()).contains("stopped").doesNotContain("published");
    }

    /**
     * Items 4, 5 and 8: the list answers "why" and "to whom" with a total; campaign and recipient match as
     * case-insensitive substrings; a bad date is explained at its field; three selected rows, or all matching,
     * feed a plan (a dry run); "back to the list" keeps the filter; a replay of poison without a revision warns
     * and waits before it can run.
     */
    @Test
    void anOperatorSelectsRowsAndPlansThemAndABadDateIsExplainedAtItsField() {
        String prefix = Jobs.runPrefix("console-select");
        String campaign = prefix + "Campaign";
        String carol = "Carol." + letters() + "@Example.com";
        List<String> ids = Jobs.ids(prefix, 4);
        for (int i = 0; i < 4; i++) {
            smtp.enqueueReply(550, "5.7.1 Message rejected: content violates policy");
        }
        for (int i = 0; i < 4; i++) {
            env.jms().sendText("mail.send", job(ids.get(i), campaign, i == 0 ? carol : "alice@example.com"));
        }
        String poisonId = prefix + "poison";
        env.jms().sendText("mail.send", "{\"schema_version\":1,\"message_id\":\"" + poisonId + "\","
                + "\"from\":\"a@example.com\",\"to\":[\"b@example.com\"],\"subject\":\"s\",\"text\":\"t\","
                + "\"headers\":{\"bcc\":\"hidden@example.net\"}}");
        startBrowser();
        signIn("operator", "operator-pass");

        // campaign: a part of it, in another case
        click(testId("nav-dead-letters"));
        setField("filter-status", "open");
        setField("filter-campaign_id", campaign.substring(4).toUpperCase());
        click(testId("dl-filter-submit"));
        List<WebElement> rows = waitForRows(4, "campaign_id=");
        assertThat(driver.findElement(testId("dl-total")).getText()).isEqualTo("4");
        assertThat(rows).extracting(r -> r.getAttribute("data-message-id")).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(rows).allSatisfy(r -> {
            assertThat(r.findElement(testId("dl-error-short")).getText()).contains("5.7.1");
            assertThat(r.findElement(testId("dl-subject")).getText()).startsWith("Hello " + prefix);
        });
        assertThat(rows).extracting(r -> r.findElement(testId("dl-recipient")).getText())
                .containsExactlyInAnyOrder(carol, "alice@example.com", "alice@example.com", "alice@example.com");
        assertThat(new Select(driver.findElement(testId("filter-queue"))).getOptions())
                .extracting(WebElement::getText).contains("mail.send", "mail.send.bulk");

        // recipient: a part of the address, in another case
        setField("filter-recipient", carol.substring(2, carol.indexOf('@') + 4).toUpperCase());
        click(testId("dl-filter-submit"));
        assertThat(waitForRows(1, "recipient=").get(0).getAttribute("data-message-id")).isEqualTo(ids.get(0));
        setField("filter-recipient", "");

        // a bad date is explained next to its field; the form and the page stay
        setField("filter-from", "2026-11-31 25:00");
        click(testId("dl-filter-submit"));
        WebElement fieldError = wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("field-error-from")));
        assertThat(fieldError.getText()).contains("from").contains("ISO-8601");
        assertThat(driver.findElements(testId("dl-error"))).isEmpty();
        assertThat(driver.findElement(testId("dl-filter")).isDisplayed()).isTrue();
        assertThat(driver.findElement(testId("filter-from")).getAttribute("value")).isEqualTo("2026-11-31 25:00");
        // a local time without a zone is understood; a preset fills the field
        setField("filter-from", "2020-01-01 00:00");
        click(testId("dl-filter-submit"));
        waitForRows(4, "from=20");
        assertThat(driver.getCurrentUrl()).containsPattern("from=20(19-12-31|20-01-01)T");
        click(testId("preset-24h"));
        waitForRows(4, "from=");
        assertThat(driver.findElements(testId("field-error-from"))).isEmpty();

        // three rows selected: a plan of exactly them
        List<WebElement> boxes = driver.findElements(testId("dl-select"));
        List<String> chosen = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            boxes.get(i).click();
            chosen.add(driver.findElements(testId("dl-row")).get(i).getAttribute("data-id"));
        }
        assertThat(driver.findElement(testId("bulk-count")).getText()).isEqualTo("3 selected");
        String listUrl = driver.getCurrentUrl();
        click(testId("bulk-replay"));
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("redrive-filter")));
        assertThat(new Select(driver.findElement(testId("redrive-action"))).getFirstSelectedOption().getAttribute("value"))
                .isEqualTo("replay");
        click(testId("redrive-filter-submit"));
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("review")));
        assertThat(driver.findElement(testId("redrive-status")).getText()).isEqualTo("planned");
        assertThat(driver.findElement(testId("cohort-count")).getText()).isEqualTo("3");
        assertThat(driver.findElements(By.cssSelector("[data-testid=review-entries] [data-testid=entry-row]")))
                .extracting(r -> r.getAttribute("data-dead-letter-id")).containsExactlyInAnyOrderElementsOf(chosen);
        assertThat(driver.findElements(testId("poison-warning"))).isEmpty();
        assertThat(driver.findElement(testId("run-button")).isEnabled()).isTrue();
        abandonPlan();

        // all matching the filter: a discard plan of the four
        driver.get(listUrl);
        waitForRows(4, "campaign_id=");
        click(testId("select-all-matching"));
        wait(WAIT).until(ExpectedConditions.textToBe(testId("bulk-count"), "all 4 matching the filter"));
        click(testId("bulk-discard"));
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("redrive-filter")));
        driver.findElement(testId("redrive-reason")).sendKeys("console test: discard all matching");
        click(testId("redrive-filter-submit"));
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("review")));
        assertThat(driver.findElement(testId("redrive-action-value")).getText()).isEqualTo("discard");
        assertThat(driver.findElement(testId("cohort-count")).getText()).isEqualTo("4");
        abandonPlan();

        // "back to the list" keeps the filter
        driver.get(listUrl);
        waitForRows(4, "campaign_id=").get(1).findElement(testId("dl-link")).click();
        click(testId("back-to-list"));
        waitForRows(4, "campaign_id=");
        assertThat(driver.getCurrentUrl()).isEqualTo(listUrl);

        // poison without a revision: the plan warns, and its run waits for the operator's word
        click(testId("nav-dead-letters"));
        setField("filter-status", "");
        setField("filter-message_id", poisonId);
        click(testId("dl-filter-submit"));
        WebElement poison = waitForRows(1, "message_id=").get(0);
        assertThat(poison.getAttribute("data-reason")).isEqualTo("poison");
        poison.findElement(testId("dl-select")).click();
        click(testId("bulk-replay"));
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("redrive-filter")));
        click(testId("redrive-filter-submit"));
        WebElement warning = wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("poison-warning")));
        assertThat(warning.getText()).contains("poison").contains("revision");
        assertThat(driver.findElement(testId("run-button")).isEnabled()).isFalse();
        click(testId("poison-ack"));
        assertThat(driver.findElement(testId("run-button")).isEnabled()).isTrue();
        abandonPlan();
    }

    @Test
    void aBouncedPermanentJobIsFoundByItsRecipientAndOpenedAndBackKeepsTheSearch() {
        String prefix = Jobs.runPrefix("console-jobs");
        String recipient = prefix + "gone@example.com";
        String bounced = prefix + "bounced";
        String sent = prefix + "sent";
        // the relay refuses the first one for good (no such mailbox: bounced_permanent, no retry), takes the second
        smtp.enqueueReply(550, "5.1.1 <" + recipient + ">: Recipient address rejected: User unknown");
        env.jms().sendText("mail.send", jobTo(bounced, recipient));
        env.api().awaitJson("/api/v1/jobs/" + bounced, j -> "bounced_permanent".equals(j.path("state").asText()), DEAD_LETTERED);
        env.jms().sendText("mail.send", jobTo(sent, recipient));
        env.api().awaitJson("/api/v1/jobs/" + sent, j -> "sent_to_provider".equals(j.path("state").asText()), DEAD_LETTERED);

        startBrowser();
        signIn("operator", "operator-pass");
        click(testId("nav-jobs"));
        // as support types it: a display name and capitals; the search normalises it
        setField("filter-recipient", "Gone Person <" + recipient.toUpperCase(java.util.Locale.ROOT) + ">");
        click(testId("job-filter-submit"));
        waitFor(d -> d.findElements(testId("job-row")).size() == 2, WAIT, "two jobs to " + recipient, false);
        assertThat(driver.findElements(testId("job-row"))).extracting(r -> r.getAttribute("data-message-id"))
                .containsExactly(sent, bounced);
        setField("filter-state", "bounced_permanent");
        click(testId("job-filter-submit"));
        waitFor(d -> d.getCurrentUrl().contains("state=bounced_permanent") && d.findElements(testId("job-row")).size() == 1
                && bounced.equals(d.findElement(testId("job-row")).getAttribute("data-message-id")), WAIT,
                "only the bounced_permanent job", false);
        assertThat(driver.findElement(testId("job-table")).getText()).contains("Recipients").contains(recipient);

        driver.findElement(testId("job-row")).findElement(testId("job-link")).click();
        wait(WAIT).until(ExpectedConditions.textToBe(testId("job-page-state"), "bounced_permanent"));
        assertThat(driver.findElement(testId("job-attempts")).getText()).contains("550").contains("5.1.1")
                .contains("permanent_recipient");
        assertThat(driver.findElements(testId("recipient-row"))).extracting(r -> r.getAttribute("data-address"))
                .containsExactly(recipient);
        assertThat(driver.findElements(testId("timeline-row"))).isNotEmpty();
        ConsoleScreenshots.save(driver, "job-page-bounced-permanent");

        click(testId("back-to-jobs"));
        waitFor(d -> d.getCurrentUrl().contains("state=bounced_permanent") && d.getCurrentUrl().contains("recipient=")
                && d.findElements(testId("job-row")).size() == 1, WAIT, "back on the same search", false);
        assertThat(driver.findElement(testId("filter-recipient")).getAttribute("value")).containsIgnoringCase(recipient);

        // a bad value is explained next to the form, the form stays
        setField("filter-from", "2026-11-30 23:00");
        click(testId("job-filter-submit"));
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("job-search-error")));
        assertThat(driver.findElement(testId("job-search-error")).getText()).contains("from");
        assertThat(driver.findElements(testId("job-filter"))).hasSize(1);
    }

    @Test
    void aJobPageShowsTheDeliveryEventsOfItsTimeline() throws Exception {
        String prefix = Jobs.runPrefix("console-delivery");
        String recipient = prefix + "reader@example.com";
        String id = prefix + "1";
        env.jms().sendText("mail.send", jobTo(id, recipient));
        env.api().awaitJson("/api/v1/jobs/" + id, j -> "sent_to_provider".equals(j.path("state").asText()), DEAD_LETTERED);
        var answer = Webhooks.post("generic", "msg_" + java.util.UUID.randomUUID(), Webhooks.serverNow(),
                "{\"event_type\":\"delivered\",\"message_id\":\"" + id + "\",\"recipient\":\"" + recipient
                        + "\",\"description\":\"250 2.0.0 OK console\"}", ItEnvironment.WEBHOOK_SECRET);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);
        env.api().awaitJson("/api/v1/jobs/" + id, j -> "delivered".equals(j.path("state").asText()), DEAD_LETTERED);

        startBrowser();
        signIn("viewer", "viewer-pass");
        click(testId("nav-jobs"));
        setField("filter-message_id", id);
        click(testId("job-filter-submit"));
        waitFor(d -> d.findElements(testId("job-row")).size() == 1, WAIT, "the job by its message id", false);
        assertThat(driver.findElement(testId("job-row")).getAttribute("data-state")).isEqualTo("delivered");
        driver.findElement(testId("job-row")).findElement(testId("job-link")).click();
        wait(WAIT).until(ExpectedConditions.textToBe(testId("job-page-state"), "delivered"));
        WebElement delivery = driver.findElement(By.cssSelector("[data-testid=timeline-row][data-type=delivery_delivered]"));
        assertThat(delivery.getText()).contains(recipient).contains("250 2.0.0 OK console");
        ConsoleScreenshots.save(driver, "job-page-delivered");
    }

    /**
     * A job with a send time shows as scheduled with its time in the list and on its page, and an operator cancels it
     * there: asked why in the page, then the job is cancelled and its timeline says who and why. Its time is near
     * enough that its copy comes and is ignored before the test ends: no scheduled message is left on the shared
     * server for a later test's "send queues drained".
     */
    @Test
    void aScheduledJobShowsItsSendTimeAndAnOperatorCancelsItOnItsPage() {
        String id = Jobs.runPrefix("console-send-at") + "1";
        java.time.Instant sendAt = java.time.Instant.now().plus(Duration.ofSeconds(45)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        env.jms().sendText("mail.send", """
                {"schema_version": 2, "message_id": "%s", "from": "noreply@example.com", "to": ["alice@example.com"],
                 "subject": "Reminder", "text": "Tomorrow at 9:00.", "send_at": "%s"}""".formatted(id, sendAt));
        env.api().awaitJson("/api/v1/jobs/" + id, j -> "scheduled".equals(j.path("state").asText()), DEAD_LETTERED);

        startBrowser();
        signIn("operator", "operator-pass");
        click(testId("nav-jobs"));
        setField("filter-message_id", id);
        click(testId("job-filter-submit"));
        waitFor(d -> d.findElements(testId("job-row")).size() == 1, WAIT, "the scheduled job by its message id", false);
        assertThat(driver.findElement(testId("job-row")).getAttribute("data-state")).isEqualTo("scheduled");
        assertThat(driver.findElement(testId("job-row")).getText()).contains("until");
        driver.findElement(testId("job-row")).findElement(testId("job-link")).click();
        wait(WAIT).until(ExpectedConditions.textToBe(testId("job-page-state"), "scheduled"));
        assertThat(driver.findElement(testId("job-scheduled-note")).getText()).contains("Waits on the broker until");
        assertThat(driver.findElement(testId("job-field-send-at")).getText()).isNotBlank().isNotEqualTo("—");

        click(testId("job-cancel-button"));
        driver.findElement(testId("job-cancel-reason")).sendKeys("the customer cancelled the appointment");
        click(testId("job-cancel-confirm"));
        wait(WAIT).until(ExpectedConditions.textToBe(testId("job-page-state"), "cancelled"));
        WebElement cancelled = driver.findElement(By.cssSelector("[data-testid=timeline-row][data-type=cancelled]"));
        assertThat(cancelled.getText()).contains("the customer cancelled the appointment").contains("operator");
        ConsoleScreenshots.save(driver, "job-page-cancelled");
        JsonNode after = env.api().awaitJson("/api/v1/jobs/" + id, j -> Jobs.types(j).contains("redelivery_ignored"),
                Duration.ofSeconds(90));
        assertThat(after.path("state").asText()).isEqualTo("cancelled");
        assertThat(after.path("attempts")).isEmpty();
    }

    /**
     * An ordering key whose head is dead-lettered on a queue set to hold ({@code mail.send} on the IT server): its two
     * later jobs wait, shown in the API ({@code waiting_for_key}, the held key with its reason and count) and on the
     * console's Held keys page, where an operator releases the key; then they reach the relay, in order.
     */
    @Test
    void aKeyHeldAfterADeadLetteredHeadIsShownAndAnOperatorReleasesItsJobsInOrder() {
        String key = Jobs.runPrefix("console-key") + "order-7";
        List<String> ids = List.of(key + "-confirmed", key + "-shipped", key + "-delivered");
        smtp.refuse(Jobs.smtpMessageId(ids.get(0)), 1, 550, "5.7.1 Message content rejected");
        env.jms().sendAll("mail.send", ids.stream().map(id -> """
                {"schema_version": 3, "message_id": "%s", "ordering_key": "%s", "from": "noreply@example.com",
                 "to": ["alice@example.com"], "subject": "Your order", "text": "%s"}""".formatted(id, key, id)).toList(),
                body -> Map.of("JMSXGroupID", key));
        JsonNode held = env.api().awaitJson("/api/v1/keys?state=held&queue=mail.send", k -> {
            for (JsonNode one : k.path("keys")) {
                if (key.equals(one.path("ordering_key").asText()) && one.path("waiting").asInt() == 2) {
                    return true;
                }
            }
            return false;
        }, DEAD_LETTERED);
        assertThat(held.toString()).contains(ids.get(0), "dead_lettered");
        for (String waiting : ids.subList(1, 3)) {
            assertThat(env.api().getJson("/api/v1/jobs/" + waiting).path("state").asText()).isEqualTo("waiting_for_key");
        }
        assertThat(smtp.countsByMessageId()).doesNotContainKeys(Jobs.smtpMessageId(ids.get(1)), Jobs.smtpMessageId(ids.get(2)));

        startBrowser();
        signIn("operator", "operator-pass");
        click(testId("nav-keys"));
        By row = By.cssSelector("[data-testid=key-row][data-key='" + key + "']");
        waitFor(d -> !d.findElements(row).isEmpty(), WAIT, "the held key's row", false);
        assertThat(driver.findElement(row).findElement(testId("key-why")).getText()).contains(ids.get(0));
        assertThat(driver.findElement(row).findElement(testId("key-waiting")).getText()).isEqualTo("2 waiting");
        ConsoleScreenshots.save(driver, "held-keys");
        driver.findElement(row).findElement(testId("key-release-button")).click();
        driver.findElement(row).findElement(testId("key-release-reason")).sendKeys("the confirmation was sent by hand");
        driver.findElement(row).findElement(testId("key-release-confirm")).click();
        waitFor(d -> d.findElements(row).isEmpty(), WAIT, "the released key gone from the page", false);

        org.awaitility.Awaitility.await("the released jobs at the relay").atMost(DEAD_LETTERED).until(() ->
                smtp.countsByMessageId().containsKey(Jobs.smtpMessageId(ids.get(2))));
        List<String> order = smtp.received().stream().map(SmtpTestServer.ReceivedMail::messageId)
                .filter(m -> m.equals(Jobs.smtpMessageId(ids.get(1))) || m.equals(Jobs.smtpMessageId(ids.get(2)))).toList();
        assertThat(order).containsExactly(Jobs.smtpMessageId(ids.get(1)), Jobs.smtpMessageId(ids.get(2)));
        JsonNode released = env.api().getJson("/api/v1/jobs/" + ids.get(1));
        assertThat(Jobs.types(released)).containsSubsequence("waiting_for_key", "key_hold_released", "released_by_key");
        assertThat(released.toString()).contains("the confirmation was sent by hand", "operator");
    }

    /**
     * Support finds a person by a part of her address (her own address and a list's alias of it, one job each), opens
     * the job the relay refused and reads what happened (subject, queued and received times, "refused" for its
     * recipient, no retry used) and follows its link straight to the dead letter, whose attempts show local times.
     */
    @Test
    void aPersonIsFoundByAPartOfHerAddressAndHerRefusedJobLinksStraightToItsDeadLetter() {
        JobSearchIT.Person her = JobSearchIT.Person.withTwoJobs(Jobs.runPrefix("console-person"), "Your invoice",
                "Welcome", DEAD_LETTERED);
        String person = her.person();
        String refused = her.refused();
        String sent = her.sent();

        startBrowser();
        signIn("viewer", "viewer-pass");
        click(testId("nav-jobs"));
        setField("filter-recipient", person);
        click(testId("job-filter-submit"));
        // the list before the search may show the same two jobs (the newest): wait for the search's own answer
        waitFor(d -> !d.findElements(By.cssSelector("[data-testid=job-count][data-list='recipient=" + person + "']")).isEmpty()
                && d.findElements(testId("job-row")).size() == 2, WAIT, "both of " + person + "'s jobs", false);
        assertThat(driver.findElements(testId("job-row"))).extracting(r -> r.getAttribute("data-message-id"))
                .containsExactly(sent, refused);
        ConsoleScreenshots.save(driver, "jobs-found-by-part-of-address");

        driver.findElement(By.cssSelector("[data-testid=job-row][data-message-id='" + refused + "']"))
                .findElement(testId("job-link")).click();
        wait(WAIT).until(ExpectedConditions.textToBe(testId("job-page-state"), "dead_lettered"));
        assertThat(driver.findElement(testId("job-field-subject")).getText()).isEqualTo("Your invoice");
        assertThat(driver.findElement(testId("job-headline")).getText()).contains("Your invoice").contains("queued");
        assertThat(driver.findElement(testId("job-field-queued")).findElements(By.tagName("time"))).hasSize(1);
        assertThat(driver.findElement(testId("job-field-received")).findElements(By.tagName("time"))).hasSize(1);
        WebElement recipient = driver.findElement(testId("recipient-row"));
        assertThat(recipient.getAttribute("data-delivery")).isEqualTo("refused");
        assertThat(recipient.getText()).doesNotContain("not yet known").contains("550");
        assertThat(driver.findElements(testId("attempt-row"))).extracting(r -> r.getAttribute("data-used-retry"))
                .containsExactly("false");
        ConsoleScreenshots.save(driver, "job-page-refused-with-dead-letter-link");

        click(testId("job-dead-letter-link"));
        wait(WAIT).until(ExpectedConditions.textToBe(testId("env-message-id"), refused));
        WebElement attempts = driver.findElement(testId("attempts"));
        assertThat(attempts.findElements(By.tagName("time"))).as("attempt times in local time, like every other")
                .isNotEmpty();
        assertThat(attempts.findElement(By.tagName("tbody")).getText()).doesNotContainPattern("\\d{4}-\\d{2}-\\d{2}T");
        ConsoleScreenshots.save(driver, "dead-letter-attempts-local-time");

        driver.navigate().back();
        wait(WAIT).until(ExpectedConditions.textToBe(testId("job-page-state"), "dead_lettered"));
        driver.get(env.server().baseUrl() + "/console/index.html#/jobs/" + sent);
        wait(WAIT).until(ExpectedConditions.textToBe(testId("job-page-state"), "sent_to_provider"));
        assertThat(driver.findElements(testId("attempt-row"))).extracting(r -> r.getAttribute("data-used-retry"))
                .as("accepted at its first call: no retry used").containsExactly("false");
        assertThat(driver.findElement(testId("job-field-retries-used")).getText()).isEqualTo("0");
    }

    /** The jobs waiting on a paused queue, listed from the Jobs page without taking them; they go out on resume. */
    @Test
    void theJobsWaitingOnAPausedQueueAreListedAndSentAfterItResumes() {
        String bulk = "mail.send.bulk";
        String prefix = Jobs.runPrefix("console-waiting");
        List<String> ids = Jobs.ids(prefix, 2);
        try {
            assertThat(env.api().post("/api/v1/queues/" + bulk + "/pause", null).statusCode()).isEqualTo(200);
            for (String id : ids) {
                env.jms().sendText(bulk, JobSearchIT.jobTo(id, prefix + "waiter@example.com", "Waiting " + id));
            }
            startBrowser();
            signIn("viewer", "viewer-pass");
            By depth = By.cssSelector("[data-testid=queue-card][data-queue='" + bulk + "'] [data-testid=depth] a");
            waitFor(d -> !d.findElements(depth).isEmpty(), WAIT, "the dashboard's waiting figure of " + bulk, false);
            assertThat(driver.findElement(depth).getAttribute("href")).endsWith("#/waiting?queue=" + bulk);
            click(testId("nav-jobs"));
            click(By.cssSelector("[data-testid=waiting-link][data-queue='" + bulk + "']"));
            waitFor(d -> ids.stream().allMatch(id -> !d.findElements(By.cssSelector(
                    "[data-testid=waiting-row][data-message-id='" + id + "']")).isEmpty()), WAIT,
                    "both jobs waiting on " + bulk, true);
            assertThat(driver.findElement(testId("waiting-count")).getText()).contains("paused");
            assertThat(driver.findElement(By.cssSelector("[data-testid=waiting-row][data-message-id='" + ids.get(0) + "']"))
                    .getText()).contains(prefix + "waiter@example.com").contains("Waiting " + ids.get(0));
            ConsoleScreenshots.save(driver, "jobs-waiting-on-paused-queue");
            driver.navigate().refresh();
            waitFor(d -> !d.findElements(testId("waiting-row")).isEmpty(), WAIT, "listed again", false);
            assertThat(driver.findElements(testId("waiting-row"))).extracting(r -> r.getAttribute("data-message-id"))
                    .as("looking took none of them").containsAll(ids);
        } finally {
            env.api().post("/api/v1/queues/" + bulk + "/resume", null);
        }
        for (String id : ids) {
            env.api().awaitJson("/api/v1/jobs/" + id, j -> "sent_to_provider".equals(j.path("state").asText()),
                    DEAD_LETTERED);
        }
    }

    /**
     * The Jobs page walked whole: support searches by recipient, opens the job that bounced and reads the
     * provider's bounce on its timeline, then opens the next job to that recipient and sees why it was not mailed:
     * the suppression entry, its reason, the provider event and the job that caused it, and that it still holds
     * (the other recipient of that job was mailed).
     */
    @Test
    void aSuppressedRecipientShowsWhyOnItsJobPage() throws Exception {
        String prefix = Jobs.runPrefix("console-why");
        String gone = prefix + "gone@example.com";
        String kept = prefix + "kept@example.com";
        String first = prefix + "1";
        String next = prefix + "2";
        env.jms().sendText("mail.send", Jobs.jobTo(first, List.of(gone, kept)));
        Webhooks.awaitState(first, "sent_to_provider");
        Webhooks.deliver("delivered", first, "250 2.0.0 OK why", kept);
        Webhooks.deliver("bounced", first, "550 5.1.1 no such user why", gone);
        Webhooks.awaitState(first, "bounced");
        env.api().awaitJson("/api/v1/suppressions?tenant=it&address=" + gone, s -> s.path("items").size() == 1, DEAD_LETTERED);
        env.jms().sendText("mail.send", Jobs.jobTo(next, List.of(gone, kept)));
        JsonNode withheld = Webhooks.awaitState(next, "sent_to_provider");
        assertThat(withheld.path("recipients").findValuesAsText("delivery_state")).contains("suppressed");

        startBrowser();
        signIn("operator", "operator-pass");
        click(testId("nav-jobs"));
        setField("filter-recipient", gone);
        click(testId("job-filter-submit"));
        waitFor(d -> d.findElements(testId("job-row")).size() == 2, WAIT, "both jobs to " + gone, false);
        assertThat(driver.findElements(testId("job-row"))).extracting(r -> r.getAttribute("data-message-id"))
                .containsExactly(next, first);

        // the job that bounced: the provider's words on its timeline and on the recipient
        driver.findElement(By.cssSelector("[data-testid=job-row][data-message-id='" + first + "'] [data-testid=job-link]")).click();
        wait(WAIT).until(ExpectedConditions.textToBe(testId("job-page-state"), "bounced"));
        WebElement bounce = driver.findElement(By.cssSelector("[data-testid=timeline-row][data-type=delivery_bounced]"));
        assertThat(bounce.getText()).contains(gone).contains("550 5.1.1 no such user why");
        assertThat(driver.findElement(By.cssSelector("[data-testid=timeline-row][data-type=delivery_delivered]")).getText())
                .contains(kept);
        assertThat(driver.findElement(By.cssSelector("[data-testid=recipient-row][data-address='" + gone + "']"))
                .getAttribute("data-delivery-state")).isEqualTo("bounced");
        assertThat(driver.findElements(testId("job-suppression-why"))).isEmpty();

        // the next job: not sent to the bounced address, and why
        click(testId("back-to-jobs"));
        waitFor(d -> d.findElements(testId("job-row")).size() == 2, WAIT, "back on the search", false);
        driver.findElement(By.cssSelector("[data-testid=job-row][data-message-id='" + next + "'] [data-testid=job-link]")).click();
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("job-suppression-why")));
        assertThat(driver.findElement(testId("job-suppressed-note")).getText()).contains(gone).doesNotContain(kept);
        assertThat(driver.findElements(testId("why-row"))).extracting(r -> r.getAttribute("data-address")).containsExactly(gone);
        WebElement why = driver.findElement(testId("why-row"));
        assertThat(why.findElement(testId("why-reason")).getText()).isEqualTo("hard_bounce");
        assertThat(why.findElement(testId("why-cause")).getText()).contains("550 5.1.1 no such user why").contains(first);
        assertThat(why.findElement(testId("why-cause-event")).getText()).containsPattern("provider event \\d+");
        assertThat(why.findElement(testId("why-status")).getText()).contains("active");
        assertThat(driver.findElement(By.cssSelector("[data-testid=recipient-row][data-address='" + kept + "']"))
                .getAttribute("data-delivery-state")).isNotEqualTo("suppressed");
        screenshot("job-page-suppressed");

        // the entry links to the list, the cause to the job that bounced
        why.findElement(testId("why-cause")).findElement(testId("job-link")).click();
        wait(WAIT).until(ExpectedConditions.textToBe(testId("job-page-state"), "bounced"));
        assertThat(driver.findElement(testId("job-field-message-id")).getText()).isEqualTo(first);
    }

    /**
     * The Suppressions page: a hard bounce (a signed webhook) shows with its cause, the bounced job; an operator
     * adds an address with why, finds it, lifts it with why; a viewer sees the list with add and lift disabled.
     */
    @Test
    void anOperatorSeesWhyAnAddressIsSuppressedAddsOneAndLiftsIt() throws Exception {
        String prefix = Jobs.runPrefix("console-sup");
        String bounced = prefix + "gone@example.com";
        String asked = prefix + "asked@example.com";
        String bouncedJob = prefix + "1";
        env.jms().sendText("mail.send", Jobs.jobTo(bouncedJob, List.of(bounced)));
        Webhooks.awaitState(bouncedJob, "sent_to_provider");
        Webhooks.deliver("bounced", bouncedJob, "550 5.1.1 no such user", bounced);

        startBrowser();
        signIn("operator", "operator-pass");
        click(testId("nav-suppressions"));
        setField("filter-address", prefix);
        setField("filter-status", "");
        click(testId("sup-filter-submit"));
        By bouncedRow = By.cssSelector("[data-testid=sup-row][data-address='" + bounced + "']");
        waitFor(d -> !d.findElements(bouncedRow).isEmpty(), WAIT, "the bounced address listed", true);
        WebElement row = driver.findElement(bouncedRow);
        assertThat(row.findElement(testId("sup-reason")).getText()).isEqualTo("hard_bounce");
        assertThat(row.findElement(testId("sup-why")).getText()).contains("550 5.1.1 no such user");
        assertThat(row.findElement(testId("sup-cause-job")).getText()).contains(bouncedJob).contains("provider event");

        setField("sup-add-address", "Asked <" + asked + ">");
        setField("sup-add-tenant", "it");
        setField("sup-add-why", "asked us by phone");
        click(testId("sup-add-submit"));
        By askedRow = By.cssSelector("[data-testid=sup-row][data-address='" + asked + "'][data-active=true]");
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(askedRow));
        assertThat(driver.findElement(askedRow).findElement(testId("sup-why")).getText()).isEqualTo("asked us by phone");

        WebElement active = driver.findElement(askedRow);
        active.findElement(testId("lift-why")).sendKeys("resolved with the customer");
        active.findElement(testId("lift-button")).click();
        By liftedRow = By.cssSelector("[data-testid=sup-row][data-address='" + asked + "'][data-active=false]");
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(liftedRow));
        assertThat(driver.findElement(liftedRow).findElement(testId("sup-lifted-why")).getText())
                .isEqualTo("resolved with the customer");
        assertThat(env.api().getJson("/api/v1/suppressions?status=lifted&tenant=it&address=" + asked)
                .path("items").get(0).path("lifted_by").asText()).isEqualTo("operator");

        quit();
        startBrowser();
        signIn("viewer", "viewer-pass");
        driver.get(env.server().baseUrl() + "/console/index.html#/suppressions?address=" + prefix);
        waitFor(d -> !d.findElements(bouncedRow).isEmpty(), WAIT, "the viewer sees the list", false);
        assertThat(driver.findElement(bouncedRow).findElement(testId("lift-button")).isEnabled()).isFalse();
        assertThat(driver.findElement(testId("sup-add-submit")).isEnabled()).isFalse();
    }

    /**
     * Destructive actions ask in the page: Abandon opens a reason field and a confirm button, Cancel (or confirming
     * without a reason) leaves the plan planned; the buttons are the record's own actions, so a stopped run offers
     * no Resume (the server would answer 409) and no Abandon.
     */
    @Test
    void cancellingAnAbandonLeavesThePlanPlannedAndAStoppedRunOffersNoResume() {
        String prefix = Jobs.runPrefix("console-cancel");
        String campaign = prefix + "campaign";
        String policy = "5.7.1 Message rejected: content violates policy";
        refusedJobs(prefix, campaign, policy, policy);
        env.api().awaitJson("/api/v1/dead-letters?status=open&campaign_id=" + campaign,
                j -> j.path("items").size() == 2, DEAD_LETTERED);
        String id = env.api().postJson("/api/v1/redrives", """
                {"action": "replay", "filter": {"campaign_id": "%s"}, "sample_size": 1,
                 "reason": "console test: cancel an abandon"}""".formatted(campaign), 201).path("id").asText();

        startBrowser();
        signIn("operator", "operator-pass");
        driver.get(env.server().baseUrl() + "/console/index.html#/redrives/" + id);
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("review")));
        assertThat(driver.findElement(testId("abandon-panel")).isDisplayed()).isFalse();
        click(testId("abandon-button"));
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("abandon-panel")));
        driver.findElement(testId("abandon-reason")).sendKeys("changed my mind");
        screenshot("redrive-abandon-asks");
        click(testId("abandon-cancel"));
        wait(WAIT).until(ExpectedConditions.invisibilityOfElementLocated(testId("abandon-panel")));
        assertThat(redriveStatus(id)).as("Cancel sends nothing").isEqualTo("planned");
        assertThat(driver.findElement(testId("redrive-status")).getText()).isEqualTo("planned");

        // confirming without a reason is refused in the page: nothing is sent either
        click(testId("abandon-button"));
        click(testId("abandon-confirm"));
        wait(WAIT).until(ExpectedConditions.textToBePresentInElementLocated(testId("abandon-error"), "Say why"));
        assertThat(redriveStatus(id)).isEqualTo("planned");
        click(testId("abandon-cancel"));

        // the run's sample is refused again: the run stops, and its page offers nothing the server would refuse
        smtp.enqueueReply(550, "5.7.1 Still rejected on the second lap");
        click(testId("run-button"));
        waitFor(d -> "stopped".equals(d.findElement(testId("redrive-status")).getText()), REDRIVE,
                "the run stops after its sample", true);
        assertThat(driver.findElements(testId("resume-button"))).as("no Resume on a stopped run").isEmpty();
        assertThat(driver.findElements(testId("abandon-button"))).as("no Abandon on a stopped run").isEmpty();
        assertThat(driver.findElement(testId("stopped-note")).getText()).contains("plan a new redrive");
        JsonNode record = env.api().getJson("/api/v1/redrives/" + id);
        assertThat(record.path("actions").isArray() && record.path("actions").isEmpty()).as("actions of a stopped run: "
                + record.path("actions")).isTrue();
        assertThat(env.api().post("/api/v1/redrives/" + id + "/resume", null).statusCode())
                .as("the server agrees: a stopped run is not resumed").isEqualTo(409);
        screenshot("redrive-stopped-no-resume");
    }

    /**
     * Revoked credentials: an operator resumes the line and it stops again at once on the same 535. The console says
     * so ("stopped again after ... s: ... 535 ...") and never a success; the outage keeps its start and first cause
     * over three restarts that stop again, with the latest stop and the failed probes beside them.
     */
    @Test
    void aResumeThatStopsAgainIsSaidSoAndTheOutageKeepsItsStartOverThreeRestarts() {
        String send = "mail.send";
        String prefix = Jobs.runPrefix("console-outage");
        smtp.setOutage(535, "5.7.8 Authentication credentials invalid");
        try {
            for (String id : Jobs.ids(prefix, 4)) {
                env.jms().sendText(send, job(id, prefix + "campaign"));
            }
            JsonNode stopped = awaitLine(send, q -> "systemic".equals(q.path("paused_reason").asText()));
            String since = stopped.path("paused_since").asText();
            assertThat(stopped.path("paused_detail").asText()).contains("535");

            startBrowser();
            signIn("operator", "operator-pass");
            By card = By.cssSelector("[data-testid=queue-card][data-queue='" + send + "']");
            waitFor(d -> !d.findElements(card).isEmpty()
                    && !d.findElement(card).findElements(testId("queue-resume-button")).isEmpty(), WAIT,
                    "dashboard: " + send + " stopped", false);
            ((JavascriptExecutor) driver).executeScript("""
                    window.flashes = [];
                    const el = document.getElementById('flash');
                    new MutationObserver(() => window.flashes.push({cls: el.className, text: el.textContent}))
                      .observe(el, {attributes: true, childList: true, characterData: true, subtree: true});""");
            driver.findElement(card).findElement(testId("queue-resume-button")).click();
            wait(Duration.ofSeconds(15)).until(ExpectedConditions.textToBePresentInElementLocated(testId("flash"),
                    "stopped again after"));
            String said = driver.findElement(testId("flash")).getText();
            assertThat(said).startsWith("Resumed " + send + " — stopped again after").contains("535");
            assertThat(driver.findElement(testId("flash")).getAttribute("class")).isEqualTo("error");
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> flashes = (List<Map<String, Object>>) ((JavascriptExecutor) driver)
                    .executeScript("return window.flashes;");
            assertThat(flashes).as("no success flash on the way").noneMatch(f -> "".equals(f.get("cls"))
                    && !String.valueOf(f.get("text")).isBlank());

            JsonNode line = awaitLine(send, q -> q.path("paused").asBoolean() && q.hasNonNull("paused_reason"));
            String latest = line.path("paused_latest_since").asText();
            for (int cycle = 2; cycle <= 3; cycle++) {
                assertThat(env.api().post("/api/v1/queues/" + send + "/resume", null).statusCode()).isEqualTo(200);
                String previous = latest;
                line = awaitLine(send, q -> q.hasNonNull("paused_reason")
                        && !previous.equals(q.path("paused_latest_since").asText()));
                latest = line.path("paused_latest_since").asText();
            }
            assertThat(line.path("paused_since").asText()).as("the outage's start, after three restarts").isEqualTo(since);
            assertThat(line.path("paused_reason").asText()).isEqualTo("systemic");
            assertThat(line.path("paused_detail").asText()).contains("535");
            assertThat(Instant.parse(latest)).isAfter(Instant.parse(since));
            assertThat(line.path("paused_latest_detail").asText()).contains("535");
            assertThat(line.path("failed_probes").asInt()).as("three restarts that stopped again").isGreaterThanOrEqualTo(3);

            driver.navigate().refresh();
            waitFor(d -> !d.findElements(card).isEmpty()
                    && !d.findElement(card).findElements(testId("paused-latest")).isEmpty(), WAIT,
                    "dashboard: the stopped line with its latest stop", false);
            WebElement banner = driver.findElement(card).findElement(testId("paused-banner"));
            assertThat(banner.getAttribute("data-since")).isEqualTo(since);
            assertThat(banner.getAttribute("data-reason")).isEqualTo("systemic");
            assertThat(banner.findElement(testId("paused-latest")).getText()).contains("stopped again").contains("535");
            assertThat(banner.findElement(testId("failed-probes")).getText()).contains("failed in this outage");
            screenshot("dashboard-stopped-again");
        } finally {
            smtp.setOutage(null, null); // the credentials work again: the next probe starts the line
        }
        awaitLine(send, q -> !q.path("paused").asBoolean() && !q.hasNonNull("paused_reason"));
    }

    /** The arrivals chart names its y axis with its unit and the time zone of its x axis, and no label is cut off. */
    @Test
    void theArrivalsChartNamesItsAxesAndTimeZoneAndKeepsEveryLabelInside() {
        startBrowser();
        signIn("operator", "operator-pass");
        driver.get(env.server().baseUrl() + "/console/index.html#/?range=168%3APT6H");
        By chart = By.cssSelector("[data-testid=queue-card][data-queue='mail.send'] [data-testid=arrivals-chart]");
        WebElement svg = wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(chart));
        assertThat(svg.findElement(testId("y-axis-title")).getText()).isEqualTo("dead letters per 6 hours");
        String zone = (String) ((JavascriptExecutor) driver).executeScript(
                "return Intl.DateTimeFormat().resolvedOptions().timeZone;");
        assertThat(svg.findElement(testId("x-axis-title")).getText()).contains(zone).contains("UTC");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> boxes = (List<Map<String, Object>>) ((JavascriptExecutor) driver).executeScript("""
                const svg = arguments[0];
                const frame = svg.getBoundingClientRect();
                return [...svg.querySelectorAll('[data-testid=x-tick], [data-testid=y-tick], [data-testid$=axis-title]')]
                  .map(t => { const r = t.getBoundingClientRect();
                    return {text: t.textContent, left: r.left - frame.left, right: frame.right - r.right}; });""", svg);
        assertThat(boxes).hasSizeGreaterThanOrEqualTo(4).allSatisfy(b -> {
            // the text's own box against the chart's (it is drawn cut off at the chart's edge when outside)
            assertThat(((Number) b.get("left")).doubleValue()).as("room left of " + b.get("text")).isGreaterThanOrEqualTo(-0.5);
            assertThat(((Number) b.get("right")).doubleValue()).as("room right of " + b.get("text")).isGreaterThanOrEqualTo(-0.5);
        });
        screenshot("dashboard-chart-week");
    }

    // ------------------------------------------------------------------------------------------ helpers

    private static String job(String messageId, String campaign) {
        return job(messageId, campaign, "alice@example.com");
    }

    private static String job(String messageId, String campaign, String to) {
        return """
                {"schema_version": 1, "message_id": "%s", "tenant": "console-it", "campaign_id": "%s",
                 "from": "Mailroom IT <noreply@example.com>", "to": ["%s"],
                 "subject": "Hello %s", "text": "Hi Alice, this is %s."}""".formatted(messageId, campaign, to,
                messageId, messageId);
    }

    /** Signs in as the operator and lists the dead letters of {@code campaign}, any status, once all {@code rows} are there. */
    private void listCampaignAsOperator(String campaign, int rows) {
        startBrowser();
        signIn("operator", "operator-pass");
        click(testId("nav-dead-letters"));
        setField("filter-status", "");
        setField("filter-campaign_id", campaign);
        click(testId("dl-filter-submit"));
        waitForRows(rows, "campaign_id=");
    }

    /** One job per reply, in {@code campaign}, each refused by the SMTP server with a 550 and that reply; their ids. */
    private List<String> refusedJobs(String prefix, String campaign, String... replies) {
        List<String> ids = Jobs.ids(prefix, replies.length);
        for (String reply : replies) {
            smtp.enqueueReply(550, reply);
        }
        for (String id : ids) {
            env.jms().sendText("mail.send", job(id, campaign));
        }
        return ids;
    }

    /**
     * Abandons the plan on the page through the API (quicker than the page's reason and confirm), so its entries stay
     * open for nobody.
     */
    private void abandonPlan() {
        String url = driver.getCurrentUrl();
        String id = url.substring(url.lastIndexOf('/') + 1);
        assertThat(env.api().post("/api/v1/redrives/" + id + "/abandon", "{\"reason\": \"console test: done with it\"}")
                .statusCode()).isEqualTo(200);
    }

    /** Eight letters no fingerprint rule rewrites (no digits, so neither a number nor a hex id). */
    private static String letters() {
        java.util.concurrent.ThreadLocalRandom r = java.util.concurrent.ThreadLocalRandom.current();
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            s.append((char) ('g' + r.nextInt(20)));
        }
        return s.toString();
    }

    private static String jobTo(String messageId, String recipient) {
        return """
                {"schema_version": 1, "message_id": "%s", "tenant": "console-it", "campaign_id": "console-jobs",
                 "from": "Mailroom IT <noreply@example.com>", "to": ["%s"],
                 "subject": "Hello %s", "text": "Hi, this is %s."}""".formatted(messageId, recipient, messageId, messageId);
    }

    /** A screenshot of the page as it is now, {@code <build dir>/console-screenshots/<name>.png}, on every run. */
    private void screenshot(String name) {
        ConsoleScreenshots.save(driver, name);
    }

    private void startBrowser() {
        browser = ConsoleBrowser.start(env.server().baseUrl());
        driver = browser.driver();
    }

    private void quit() {
        if (browser != null) {
            browser.close();
            browser = null;
            driver = null;
        }
    }

    private void signIn(String user, String password) {
        browser.signIn(user, password);
    }

    private static By testId(String id) {
        return ConsoleBrowser.testId(id);
    }

    private WebDriverWait wait(Duration timeout) {
        return browser.wait(timeout);
    }

    /**
     * Waits for a condition of the page; {@code reload} reloads the current route between checks (for what the
     * page only shows once the server has it: dead letters arriving).
     */
    private void waitFor(java.util.function.Function<WebDriver, Boolean> condition, Duration timeout, String what,
                         boolean reload) {
        WebDriverWait wait = wait(timeout);
        wait.withMessage(what);
        long[] lastReload = {System.nanoTime()};
        wait.until(d -> {
            if (Boolean.TRUE.equals(condition.apply(d))) {
                return true;
            }
            if (reload && System.nanoTime() - lastReload[0] > Duration.ofSeconds(2).toNanos()) {
                lastReload[0] = System.nanoTime();
                d.navigate().refresh();
            }
            return false;
        });
    }

    /**
     * Waits until the dead-letter list of the current filter (its URL has {@code urlPart}) shows exactly {@code n}
     * rows, submitting the filter again every two seconds meanwhile (dead letters arrive asynchronously).
     */
    private List<WebElement> waitForRows(int n, String urlPart) {
        long[] lastSubmit = {System.nanoTime()};
        waitFor(d -> {
            if (!d.getCurrentUrl().contains(urlPart) || d.findElements(testId("dl-count")).isEmpty()) {
                return false;
            }
            if (d.findElements(testId("dl-row")).size() == n) {
                return true;
            }
            if (System.nanoTime() - lastSubmit[0] > Duration.ofSeconds(2).toNanos()) {
                lastSubmit[0] = System.nanoTime();
                d.findElement(testId("dl-filter-submit")).click();
            }
            return false;
        }, DEAD_LETTERED, "dead-letter list " + urlPart + " with " + n + " rows", false);
        return driver.findElements(testId("dl-row"));
    }

    private String redriveStatus(String id) {
        return env.api().getJson("/api/v1/redrives/" + id).path("status").asText();
    }

    /** Waits (30 s) until {@code queue}'s entry of {@code GET /api/v1/queues} matches; returns it. */
    private JsonNode awaitLine(String queue, java.util.function.Predicate<JsonNode> until) {
        JsonNode[] seen = {null};
        org.awaitility.Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(200))
                .alias("GET /api/v1/queues: " + queue + " as awaited").until(() -> {
                    for (JsonNode q : env.api().getJson("/api/v1/queues")) {
                        if (queue.equals(q.path("queue").asText()) && until.test(q)) {
                            seen[0] = q;
                            return true;
                        }
                    }
                    return false;
                });
        return seen[0];
    }

    private boolean paused(String queue) {
        for (JsonNode q : env.api().getJson("/api/v1/queues")) {
            if (queue.equals(q.get("queue").asText())) {
                return q.get("paused").asBoolean();
            }
        }
        throw new AssertionError("no queue " + queue + " in GET /api/v1/queues");
    }

    /** Waits until the dead-letter list shown lists {@code messageId} (without submitting: the URL is the filter). */
    private List<WebElement> waitForListed(String messageId) {
        waitFor(d -> d.getCurrentUrl().contains("#/dead-letters?") && !d.findElements(By.cssSelector(
                "[data-testid=dl-row][data-message-id='" + messageId + "']")).isEmpty(), WAIT,
                "dead-letter list with " + messageId, false);
        return driver.findElements(testId("dl-row"));
    }

    private void click(By by) {
        wait(WAIT).until(ExpectedConditions.elementToBeClickable(by)).click();
    }

    private void setField(String testId, String value) {
        WebElement el = wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId(testId)));
        if ("select".equals(el.getTagName())) {
            new Select(el).selectByValue(value);
        } else {
            el.clear();
            el.sendKeys(value);
        }
    }

    private static int number(String s) {
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
