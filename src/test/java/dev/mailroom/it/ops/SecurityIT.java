package dev.mailroom.it.ops;

import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.ItEnvironment;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Authentication, roles and CSRF on the real server, with the embedded default's users (added by
 * configure.sh from the build): 401 without credentials, 403 for a viewer's writes (before any resource
 * runs), the console's session with its CSRF token, forged cross-site writes refused.
 */
@Tag("default-config")
class SecurityIT {

    private static final String DEAD_LETTERS = "/api/v1/dead-letters";

    private static ItEnvironment env;
    private static ApiClient operator;
    private static ApiClient viewer;
    private static ApiClient anonymous;

    @BeforeAll
    static void boot() {
        env = ItEnvironment.get();
        operator = env.api();
        viewer = operator.asViewer();
        anonymous = operator.anonymous();
    }

    @Test
    void withoutCredentialsTheApiAnswers401JsonWithABasicChallenge() {
        HttpResponse<String> r = anonymous.get(DEAD_LETTERS);
        assertThat(r.statusCode()).isEqualTo(401);
        assertError(r, 401, "unauthenticated");
        assertThat(r.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Basic"));

        HttpResponse<String> console = anonymous.send(anonymous.request(DEAD_LETTERS)
                .header("X-Mailroom-Console", "1").GET().build());
        assertThat(console.statusCode()).isEqualTo(401);
        assertThat(console.headers().firstValue("WWW-Authenticate")).isEmpty();

        assertThat(anonymous.post(DEAD_LETTERS + "/1/discard", "{\"reason\":\"x\"}").statusCode()).isEqualTo(401);
        assertThat(anonymous.get("/api/v1/jobs/nothing").statusCode()).isEqualTo(401);
        assertThat(anonymous.get("/api/v1/queues").statusCode()).isEqualTo(401);
    }

    @Test
    void basicCredentialsAuthenticateEachRequestWithoutASession() {
        for (ApiClient client : List.of(operator, viewer)) {
            HttpResponse<String> r = client.get(DEAD_LETTERS);
            assertThat(r.statusCode()).isEqualTo(200);
            // whatever session the server's login made is gone: its cookie is cleared and authenticates nothing
            for (String c : r.headers().allValues("Set-Cookie")) {
                assertThat(c).as("a cleared cookie").containsAnyOf("Expires=Thu, 01-Jan-1970", "Max-Age=0");
                String cookie = c.substring(0, c.indexOf(';') < 0 ? c.length() : c.indexOf(';'));
                assertError(anonymous.send(anonymous.request("/api/v1/session").header("Cookie", cookie).GET().build()),
                        401, "unauthenticated");
                assertError(anonymous.send(anonymous.request(DEAD_LETTERS).header("Cookie", cookie).GET().build()),
                        401, "unauthenticated");
            }
        }
    }

    @Test
    void healthNeedsNoCredentials() {
        HttpResponse<String> r = anonymous.get("/api/v1/health");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    @Test
    void aWrongPasswordOrUnknownUserIs401() {
        assertError(operator.as(ApiClient.OPERATOR_USER, "not-the-password").get(DEAD_LETTERS), 401, "unauthenticated");
        assertError(operator.as("nobody", "nothing").get(DEAD_LETTERS), 401, "unauthenticated");
        HttpResponse<String> malformed = anonymous.send(anonymous.request(DEAD_LETTERS)
                .header("Authorization", "Basic %%%").GET().build());
        assertError(malformed, 401, "unauthenticated");
    }

    @Test
    void aViewerReadsButCannotDiscardRedriveOrEdit() {
        assertThat(viewer.get(DEAD_LETTERS).statusCode()).isEqualTo(200);
        assertThat(viewer.get(DEAD_LETTERS + "/stats").statusCode()).isIn(200, 503);
        assertThat(viewer.get("/api/v1/queues").statusCode()).isEqualTo(200);

        assertError(viewer.post(DEAD_LETTERS + "/1/discard", "{\"reason\":\"viewer tries\"}"), 403, "forbidden");
        assertError(viewer.post("/api/v1/redrives", "{\"action\":\"discard\",\"filter\":{\"ids\":[1]},\"reason\":\"x\"}"),
                403, "forbidden");
        assertError(viewer.post(DEAD_LETTERS + "/1/revisions", "{\"payload\":{},\"reason\":\"x\"}"), 403, "forbidden");
        assertError(viewer.put("/api/v1/testing/clock?offset=PT0S", null), 403, "forbidden");
        assertError(viewer.delete("/api/v1/jobs/x"), 403, "forbidden");
    }

    @Test
    void anOperatorGetsPastTheRoleCheckForEveryAction() {
        for (HttpResponse<String> r : List.of(
                operator.post(DEAD_LETTERS + "/999999999/discard", "{\"reason\":\"operator tries\"}"),
                operator.post("/api/v1/redrives", "{\"action\":\"discard\",\"filter\":{\"ids\":[999999999]},\"reason\":\"x\"}"),
                operator.post(DEAD_LETTERS + "/999999999/revisions", "{\"payload\":{},\"reason\":\"x\"}"))) {
            assertThat(r.statusCode()).as(r.request().uri() + ": " + r.body()).isNotIn(401, 403);
            assertThat(r.body()).doesNotContain("\tat ");
        }
    }

    @Test
    void aDiscardRecordsTheAuthenticatedUserNotABodyActor() {
        String id = Jobs.runPrefix("security") + "discard";
        env.jms().sendText("mail.send", "{\"schema_version\":1,\"message_id\":\"" + id + "\"}");
        long dl = operator.awaitJson(DEAD_LETTERS + "?message_id=" + id, p -> p.path("items").size() == 1,
                Duration.ofSeconds(60)).path("items").get(0).path("id").asLong();

        assertError(viewer.post(DEAD_LETTERS + "/" + dl + "/discard", "{\"reason\":\"no\"}"), 403, "forbidden");
        assertThat(operator.getJson(DEAD_LETTERS + "/" + dl).path("status").asText()).isEqualTo("open");

        JsonNode discarded = operator.postJson(DEAD_LETTERS + "/" + dl + "/discard",
                "{\"actor\":\"someone-else\",\"reason\":\"test data\"}", 200);
        assertThat(discarded.path("status").asText()).isEqualTo("discarded");
        JsonNode last = discarded.path("history").get(discarded.path("history").size() - 1);
        assertThat(last.path("actor").asText()).isEqualTo(ApiClient.OPERATOR_USER);
        assertThat(last.path("reason").asText()).isEqualTo("test data");
    }

    @Test
    void aSessionLoginGivesAnHttpOnlyStrictCookieAndACsrfTokenThatWritesMustCarry() {
        Session s = login(ApiClient.OPERATOR_USER, ApiClient.OPERATOR_PASSWORD);
        assertThat(s.setCookie).containsIgnoringCase("HttpOnly").containsIgnoringCase("SameSite=Strict");
        assertThat(s.body.path("username").asText()).isEqualTo(ApiClient.OPERATOR_USER);
        assertThat(s.body.path("roles").toString()).contains("mailroom-operator");
        assertThat(s.csrf).hasSizeGreaterThan(20);

        // reads with the cookie alone
        HttpResponse<String> current = anonymous.send(s.request("/api/v1/session").GET().build());
        assertThat(current.statusCode()).isEqualTo(200);
        assertThat(anonymous.parse(current, "/api/v1/session").path("csrf_token").asText()).isEqualTo(s.csrf);
        assertThat(anonymous.send(s.request(DEAD_LETTERS).GET().build()).statusCode()).isEqualTo(200);

        // a write without the token, or with a wrong one, is refused before the resource
        String discard = DEAD_LETTERS + "/999999999/discard";
        assertError(anonymous.send(s.post(discard, "{\"reason\":\"x\"}").build()), 403, "csrf_refused");
        assertError(anonymous.send(s.post(discard, "{\"reason\":\"x\"}").header("X-CSRF-Token", "wrong").build()),
                403, "csrf_refused");
        // with the token it passes the filter (the dead letter does not exist: 404 from the resource)
        HttpResponse<String> withToken = anonymous.send(s.post(discard, "{\"reason\":\"x\"}")
                .header("X-CSRF-Token", s.csrf).build());
        assertThat(withToken.statusCode()).as(withToken.body()).isEqualTo(404);

        // logout needs the token too, then the cookie is worthless
        assertError(anonymous.send(s.request("/api/v1/session").DELETE().build()), 403, "csrf_refused");
        assertThat(anonymous.send(s.request("/api/v1/session").header("X-CSRF-Token", s.csrf).DELETE().build())
                .statusCode()).isEqualTo(204);
        assertError(anonymous.send(s.request(DEAD_LETTERS).GET().build()), 401, "unauthenticated");
        assertError(anonymous.send(s.request("/api/v1/session").GET().build()), 401, "unauthenticated");
    }

    @Test
    void aViewerSessionReadsButItsWritesAreForbiddenEvenWithTheToken() {
        Session s = login(ApiClient.VIEWER_USER, ApiClient.VIEWER_PASSWORD);
        assertThat(s.body.path("roles").toString()).contains("mailroom-viewer").doesNotContain("mailroom-operator");
        assertThat(anonymous.send(s.request(DEAD_LETTERS).GET().build()).statusCode()).isEqualTo(200);
        assertError(anonymous.send(s.post(DEAD_LETTERS + "/1/discard", "{\"reason\":\"x\"}")
                .header("X-CSRF-Token", s.csrf).build()), 403, "forbidden");
    }

    @Test
    void aSessionLoginWithBadCredentialsIs401AndSetsNoSession() {
        HttpResponse<String> r = anonymous.post("/api/v1/session", "{\"username\":\"operator\",\"password\":\"nope\"}");
        assertError(r, 401, "unauthenticated");
    }

    @Test
    void aForgedCrossSitePostIsRefusedWhateverAuthenticatesIt() {
        Session s = login(ApiClient.OPERATOR_USER, ApiClient.OPERATOR_PASSWORD);
        String discard = DEAD_LETTERS + "/999999999/discard";
        // the session cookie (and even the token) from another origin
        assertError(anonymous.send(s.post(discard, "{\"reason\":\"x\"}").header("X-CSRF-Token", s.csrf)
                .header("Origin", "http://evil.example").build()), 403, "csrf_refused");
        assertError(anonymous.send(s.post(discard, "{\"reason\":\"x\"}").header("Sec-Fetch-Site", "cross-site").build()),
                403, "csrf_refused");
        // Basic credentials a browser remembered, from another origin
        assertError(operator.send(operator.request(discard).header("Origin", "http://evil.example")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"reason\":\"x\"}")).build()), 403, "csrf_refused");
        // a login posted from another origin
        assertError(anonymous.send(anonymous.request("/api/v1/session").header("Origin", "http://evil.example")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"username\":\"operator\",\"password\":\"operator-pass\"}"))
                .build()), 403, "csrf_refused");
        // the same request from the server's own origin passes the filter (404: no such dead letter)
        HttpResponse<String> sameOrigin = operator.send(operator.request(discard)
                .header("Origin", "http://127.0.0.1:" + env.server().httpPort())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"reason\":\"x\"}")).build());
        assertThat(sameOrigin.statusCode()).as(sameOrigin.body()).isEqualTo(404);
    }

    @Test
    void aConsolePageWithoutASessionRedirectsToTheLoginPage() {
        HttpResponse<String> r = anonymous.send(anonymous.request("/console/index.html").GET().build());
        assertThat(r.statusCode()).isEqualTo(302);
        assertThat(r.headers().firstValue("Location")).hasValueSatisfying(
                l -> assertThat(l).endsWith("/mailroom/console/login.html"));
        HttpResponse<String> root = anonymous.send(anonymous.request("/console/").GET().build());
        assertThat(root.statusCode()).isEqualTo(302);
        // the login page itself is public (404 until the console is deployed with it, never a redirect loop)
        assertThat(anonymous.send(anonymous.request("/console/login.html").GET().build()).statusCode()).isNotIn(302, 401, 403);
    }

    // ---------------------------------------------------------------------------------------------------------

    @Test
    void aViewerSeesNoTemplateVariablesAndAnOperatorsRevealIsRecorded() {
        String messageId = Jobs.runPrefix("redact") + "poison";
        String secret = "s3cret-" + messageId;
        // valid JSON the schema refuses (no from, no to): dead-lettered as poison with these bytes
        env.jms().sendText("mail.send", "{\"schema_version\":1,\"message_id\":\"" + messageId
                + "\",\"template_id\":\"reset\",\"variables\":{\"code\":\"" + secret + "\"},"
                + "\"metadata\":{\"order\":\"" + secret + "\"}}");
        JsonNode items = operator.awaitJson(DEAD_LETTERS + "?message_id=" + messageId,
                l -> l.path("items").size() == 1, Duration.ofSeconds(60)).path("items");
        long id = items.get(0).path("id").asLong();

        HttpResponse<String> seen = viewer.get(DEAD_LETTERS + "/" + id);
        assertThat(seen.statusCode()).isEqualTo(200);
        assertThat(seen.body()).doesNotContain(secret);
        JsonNode envelope = viewer.parse(seen, DEAD_LETTERS + "/" + id);
        String payload = payloadOf(envelope);
        assertThat(payload).contains(messageId).contains("\"code\" : \"[redacted]\"").doesNotContain(secret);
        assertThat(envelope.path("payload_redacted").asBoolean()).isTrue();
        assertThat(payloadOf(operator.getJson(DEAD_LETTERS + "/" + id))).as("redacted unless revealed")
                .contains(messageId).doesNotContain(secret);
        assertThat(viewer.get(DEAD_LETTERS + "/" + id + "/revisions").statusCode()).isEqualTo(200);

        assertError(viewer.get(DEAD_LETTERS + "/" + id + "?reveal=true"), 403, "forbidden");
        HttpResponse<String> revealed = operator.get(DEAD_LETTERS + "/" + id + "?reveal=true");
        assertThat(revealed.statusCode()).isEqualTo(200);
        assertThat(payloadOf(operator.parse(revealed, "reveal"))).contains(secret);
        JsonNode history = operator.getJson(DEAD_LETTERS + "/" + id).path("history");
        JsonNode last = history.get(history.size() - 1);
        assertThat(last.path("actor").asText()).isEqualTo("operator");
        assertThat(last.path("reason").asText()).startsWith("revealed the payload");
        assertThat(last.path("to_status").asText()).isEqualTo("open");
        assertThat(history).as("the viewer's refused reveal left no trace").hasSize(2);
    }

    @Test
    void theSandboxOutboxIsAnOperatorsAndUnknownWebhookPathsDoNotExist() {
        assertError(viewer.get("/api/v1/sandbox/messages"), 403, "forbidden");
        assertThat(operator.get("/api/v1/sandbox/messages").statusCode()).isEqualTo(200);
        for (String path : List.of("/api/v1/webhooks/nobody", "/api/v1/webhooks/", "/api/v1/webhooks")) {
            assertError(anonymous.post(path, "{}"), 404, "not_found");
            assertThat(anonymous.get(path).statusCode()).as(path).isEqualTo(404);
        }
    }

    @Test
    void consolePagesAndTheApiSendAContentSecurityPolicyAndHardeningHeaders() {
        for (String path : List.of("/console/login.html", "/console/assets/console.js", "/console/index.html")) {
            HttpResponse<String> r = anonymous.send(anonymous.request(path).GET().build());
            assertThat(r.headers().firstValue("Content-Security-Policy")).as(path)
                    .hasValueSatisfying(v -> assertThat(v).startsWith("default-src 'self'")
                            .contains("frame-ancestors 'none'"));
            assertThat(r.headers().firstValue("X-Content-Type-Options")).as(path).contains("nosniff");
            assertThat(r.headers().firstValue("X-Frame-Options")).as(path).contains("DENY");
            assertThat(r.headers().firstValue("Referrer-Policy")).as(path).contains("no-referrer");
        }
        assertThat(viewer.get(DEAD_LETTERS).headers().firstValue("Content-Security-Policy"))
                .contains("default-src 'none'; frame-ancestors 'none'");
    }

    @Test
    void theStandardReadinessAndLivenessEndpointsAnswerOnTheManagementPort() {
        ApiClient management = new ApiClient("http://127.0.0.1:" + env.server().managementPort());
        HttpResponse<String> ready = management.get("/health/ready");
        assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        JsonNode checks = management.parse(ready, "/health/ready").path("checks");
        assertThat(checks.findValuesAsText("name")).contains("mailroom-database", "mailroom-broker");
        assertThat(checks.findValuesAsText("status")).containsOnly("UP");
        HttpResponse<String> live = management.get("/health/live");
        assertThat(live.statusCode()).as(live.body()).isEqualTo(200);
        assertThat(management.parse(live, "/health/live").path("checks").findValuesAsText("name")).contains("mailroom");
        JsonNode health = anonymous.getJson("/api/v1/health");
        assertThat(health.path("checks").path("database").asText()).isEqualTo("UP");
        assertThat(health.path("checks").path("broker").asText()).isEqualTo("UP");
    }

    @Test
    void aParameterBeanValidationRefusesIsA400WithAReason() {
        assertError(viewer.get(DEAD_LETTERS + "?limit=0"), 400, "invalid_limit");
        assertError(viewer.get(DEAD_LETTERS + "?offset=-1"), 400, "invalid_offset");
        assertError(viewer.get(DEAD_LETTERS + "/arrivals?hours=721"), 400, "invalid_hours");
        assertError(viewer.get(DEAD_LETTERS + "/12x"), 400, "invalid_id");
        assertError(viewer.get("/api/v1/redrives?limit=1.5"), 400, "invalid_limit");
        HttpResponse<String> r = viewer.get(DEAD_LETTERS + "?limit=lots");
        assertThat(r.body()).contains("limit is a whole number from 1 to 1000");
    }

    private static String payloadOf(JsonNode envelope) {
        return new String(java.util.Base64.getDecoder().decode(envelope.path("payload_base64").asText()),
                StandardCharsets.UTF_8);
    }

    private static void assertError(HttpResponse<String> r, int status, String error) {
        assertThat(r.statusCode()).as(r.request().method() + " " + r.request().uri() + ": " + r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("application/json"));
        JsonNode body = anonymous.parse(r, r.request().uri().getPath());
        assertThat(body.path("status").asInt()).isEqualTo(status);
        assertThat(body.path("error").asText()).isEqualTo(error);
        assertThat(body.path("reason").asText()).isNotBlank();
    }

    /** A console session: its cookie, its CSRF token, and the login's answer. */
    private record Session(String cookie, String setCookie, String csrf, JsonNode body) {

        HttpRequest.Builder request(String path) {
            return anonymous.request(path).header("Cookie", cookie);
        }

        HttpRequest.Builder post(String path, String json) {
            return request(path).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8));
        }
    }

    private static Session login(String user, String password) {
        HttpResponse<String> r = anonymous.post("/api/v1/session",
                "{\"username\":\"" + user + "\",\"password\":\"" + password + "\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        String setCookie = r.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith("JSESSIONID=")).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no session cookie: " + r.headers().map()));
        String cookie = setCookie.substring(0, setCookie.indexOf(';') < 0 ? setCookie.length() : setCookie.indexOf(';'));
        JsonNode body = anonymous.parse(r, "/api/v1/session");
        return new Session(cookie, setCookie, body.path("csrf_token").asText(), body);
    }
}
