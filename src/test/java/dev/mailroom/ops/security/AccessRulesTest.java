package dev.mailroom.ops.security;

import static dev.mailroom.ops.security.AccessRules.OPERATOR;
import static dev.mailroom.ops.security.AccessRules.VIEWER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.ops.security.AccessRules.Area;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class AccessRulesTest {

    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource(delimiter = '|', textBlock = """
            /api/v1/health                    | PUBLIC
            /api/v1/health/live               | PUBLIC
            /api/v1/webhooks/resend           | NOT_FOUND
            /api/v1/healthy                   | API
            /api/v1/dead-letters              | API
            /api/v1/dead-letters/1/discard    | API
            /api/v1/redrives                  | API
            /api                              | API
            /api/                             | API
            /api/v2/health                    | API
            /api/v1/session                   | SESSION
            /console/login.html               | PUBLIC
            /console/assets/app.js            | PUBLIC
            /console/index.html               | CONSOLE
            /console/                         | CONSOLE
            /console                          | CONSOLE
            /console/login.html.bak           | CONSOLE
            /consoles                         | PUBLIC
            /                                 | PUBLIC
            """)
    void areas(String path, Area area) {
        assertThat(AccessRules.area(path)).isEqualTo(area);
    }

    /** The configured webhook profiles are ses and resend: only their endpoints are public, the rest is 404. */
    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource(delimiter = '|', textBlock = """
            /api/v1/webhooks/ses              | PUBLIC
            /api/v1/webhooks/resend           | PUBLIC
            /api/v1/webhooks/sendgrid         | NOT_FOUND
            /api/v1/webhooks/Resend           | NOT_FOUND
            /api/v1/webhooks/resend/          | NOT_FOUND
            /api/v1/webhooks/resend/x         | NOT_FOUND
            /api/v1/webhooks/                 | NOT_FOUND
            /api/v1/webhooks                  | NOT_FOUND
            /api/v1/webhooksx                 | API
            /api/v1/health/ready              | PUBLIC
            /api/v1/sandbox/messages          | API
            """)
    void onlyConfiguredWebhookEndpointsArePublic(String path, Area area) {
        assertThat(AccessRules.area(path, java.util.Set.of("ses", "resend"))).isEqualTo(area);
    }

    @Test
    void noWebhookProfileConfiguredMeansNoPublicWebhookPath() {
        assertThat(AccessRules.area("/api/v1/webhooks/generic", java.util.Set.of()))
                .isEqualTo(Area.NOT_FOUND);
    }

    /** Reads that show secrets are an operator's: the sandbox outbox and any reveal of a payload. */
    @ParameterizedTest(name = "{1} {0} reveal={2} by {3}: {4}")
    @CsvSource(delimiter = '|', textBlock = """
            /api/v1/sandbox/messages   | GET  | false | viewer   | false
            /api/v1/sandbox            | GET  | false | viewer   | false
            /api/v1/sandbox/messages   | GET  | false | operator | true
            /api/v1/dead-letters/1     | GET  | true  | viewer   | false
            /api/v1/dead-letters/1     | GET  | true  | operator | true
            /api/v1/dead-letters/1     | GET  | false | viewer   | true
            /api/v1/redrives/r         | GET  | true  | viewer   | false
            /api/v1/sandboxes          | GET  | false | viewer   | true
            /api/v1/dead-letters/1     | POST | false | viewer   | false
            /api/v1/dead-letters/1     | GET  | false | none     | false
            """)
    void secretsAreAnOperatorsToRead(String path, String method, boolean reveal, String who, boolean permitted) {
        Set<String> roles = switch (who) {
            case "viewer" -> Set.of(VIEWER);
            case "operator" -> Set.of(OPERATOR);
            default -> Set.of();
        };
        assertThat(AccessRules.permits(path, method, reveal, roles)).isEqualTo(permitted);
    }

    @ParameterizedTest(name = "?{0}: reveal {1}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            reveal=true              | true
            reveal=TRUE              | true
            limit=5&reveal=true      | true
            reveal=false             | false
            reveal                   | false
            reveal=1                 | false
            revealed=true            | false
            -                        | false
            """)
    void aRevealIsAskedForByTheQuery(String query, boolean reveal) {
        assertThat(AccessRules.reveal(query)).isEqualTo(reveal);
    }

    @Test
    void everyAnswerIsHardenedAndTheConsoleLoadsOnlyItsOwnFiles() {
        var console = AccessRules.securityHeaders("/console/index.html");
        assertThat(console.get("Content-Security-Policy")).startsWith("default-src 'self'")
                .contains("frame-ancestors 'none'").doesNotContain("unsafe-inline");
        assertThat(console).containsEntry("X-Content-Type-Options", "nosniff")
                .containsEntry("X-Frame-Options", "DENY").containsEntry("Referrer-Policy", "no-referrer");
        assertThat(AccessRules.securityHeaders("/api/v1/dead-letters").get("Content-Security-Policy"))
                .startsWith("default-src 'none'");
    }

    @ParameterizedTest(name = "{0} by {1}: {2}")
    @CsvSource(delimiter = '|', textBlock = """
            GET    | viewer          | true
            HEAD   | viewer          | true
            get    | viewer          | true
            POST   | viewer          | false
            PUT    | viewer          | false
            DELETE | viewer          | false
            PATCH  | viewer          | false
            OPTIONS| viewer          | false
            GET    | operator        | true
            POST   | operator        | true
            DELETE | operator        | true
            PUT    | operator        | true
            GET    | viewer,operator | true
            POST   | viewer,operator | true
            GET    | none            | false
            POST   | none            | false
            """)
    void roles(String method, String who, boolean permitted) {
        Set<String> roles = switch (who) {
            case "viewer" -> Set.of(VIEWER);
            case "operator" -> Set.of(OPERATOR);
            case "viewer,operator" -> Set.of(VIEWER, OPERATOR);
            default -> Set.of("guest");
        };
        assertThat(AccessRules.permits(method, roles)).isEqualTo(permitted);
    }

    @Test
    void noRolesPermitNothing() {
        assertThat(AccessRules.permits("GET", null)).isFalse();
        assertThat(AccessRules.permits("GET", List.of())).isFalse();
    }

    @ParameterizedTest(name = "{0} Origin={1} Sec-Fetch-Site={2} to {3}: cross-site {4}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            POST   | http://evil.example       | -           | http://127.0.0.1:8080 | true
            POST   | null                      | -           | http://127.0.0.1:8080 | true
            DELETE | http://127.0.0.1:8081     | -           | http://127.0.0.1:8080 | true
            POST   | https://127.0.0.1:8080    | -           | http://127.0.0.1:8080 | true
            POST   | http://127.0.0.1:8080     | -           | http://127.0.0.1:8080 | false
            POST   | HTTP://127.0.0.1:8080/    | -           | http://127.0.0.1:8080 | false
            POST   | http://mailroom.example   | -           | http://mailroom.example | false
            POST   | -                         | -           | http://127.0.0.1:8080 | false
            POST   | -                         | cross-site  | http://127.0.0.1:8080 | true
            POST   | http://127.0.0.1:8080     | cross-site  | http://127.0.0.1:8080 | true
            POST   | -                         | same-origin | http://127.0.0.1:8080 | false
            POST   | -                         | none        | http://127.0.0.1:8080 | false
            POST   | http://evil.example       | -           | -                     | true
            GET    | http://evil.example       | cross-site  | http://127.0.0.1:8080 | false
            HEAD   | http://evil.example       | -           | http://127.0.0.1:8080 | false
            """)
    void crossSite(String method, String origin, String secFetchSite, String own, boolean refused) {
        assertThat(AccessRules.crossSite(method, origin, secFetchSite, own)).isEqualTo(refused);
    }

    @Test
    void theOwnOriginLeavesOutTheDefaultPort() {
        assertThat(AccessRules.origin("http", "127.0.0.1:8180")).isEqualTo("http://127.0.0.1:8180");
        assertThat(AccessRules.origin("http", "Mailroom.Example:80")).isEqualTo("http://mailroom.example");
        assertThat(AccessRules.origin("https", "mailroom.example:443")).isEqualTo("https://mailroom.example");
        assertThat(AccessRules.origin("http", null)).isNull();
        assertThat(AccessRules.crossSite("POST", "http://mailroom.example", null,
                AccessRules.origin("http", "mailroom.example:80"))).isFalse();
    }

    @Test
    void aSessionWriteCarriesItsToken() {
        assertThat(AccessRules.csrfTokenMissing("POST", "tok", "tok")).isFalse();
        assertThat(AccessRules.csrfTokenMissing("POST", "tok", " tok ")).isFalse();
        assertThat(AccessRules.csrfTokenMissing("POST", "tok", null)).isTrue();
        assertThat(AccessRules.csrfTokenMissing("POST", "tok", "")).isTrue();
        assertThat(AccessRules.csrfTokenMissing("DELETE", "tok", "other")).isTrue();
        assertThat(AccessRules.csrfTokenMissing("POST", null, "tok")).isTrue();
        assertThat(AccessRules.csrfTokenMissing("GET", "tok", null)).isFalse();
        assertThat(AccessRules.csrfTokenMissing("HEAD", "tok", "wrong")).isFalse();
    }

    @Test
    void theLoginRedirectIsUnderTheContext() {
        assertThat(AccessRules.loginRedirect("/mailroom")).isEqualTo("/mailroom/console/login.html");
        assertThat(AccessRules.loginRedirect("")).isEqualTo("/console/login.html");
    }

    @Test
    void basicHeadersAreParsedStrictly() {
        assertThat(AccessFilter.basic("Basic b3BlcmF0b3I6b3BlcmF0b3ItcGFzcw==")).containsExactly("operator", "operator-pass");
        assertThat(AccessFilter.basic("basic b3BlcmF0b3I6YTpi")).containsExactly("operator", "a:b");
        assertThat(AccessFilter.basic(null)).isNull();
        assertThat(AccessFilter.basic("Bearer abc")).isNull();
        assertThat(AccessFilter.basic("Basic %%%")).isNull();
        assertThat(AccessFilter.basic("Basic OnBhc3M=")).as(":pass, no user").isNull();
        assertThat(AccessFilter.basic("Basic bm9jb2xvbg==")).as("no colon").isNull();
    }

    @Test
    void errorBodiesAreEscapedJson() {
        assertThat(AccessFilter.json("a \"b\" \\ c\n")).isEqualTo("a \\\"b\\\" \\\\ c\\n");
    }

    @ParameterizedTest(name = "{1} {0}: {2}")
    @CsvSource(delimiter = '|', value = {
        "/api/v1/jobs/{messageId}             | GET    | mailroom-viewer mailroom-operator",
        "/api/v1/jobs/{messageId}             | HEAD   | mailroom-viewer mailroom-operator",
        "/api/v1/dead-letters/{id}/discard    | POST   | mailroom-operator",
        "/api/v1/queues/{queue}/pause         | POST   | mailroom-operator",
        "/api/v1/suppressions/{address}       | DELETE | mailroom-operator",
        "/api/v1/erasures                     | POST   | mailroom-operator",
        "/api/v1/erasures                     | GET    | mailroom-viewer mailroom-operator",
        "/api/v1/sandbox/outbox               | GET    | mailroom-operator",
        "/api/v1/health                       | GET    | ''",
        "/api/v1/health/ready                 | GET    | ''",
        "/api/v1/webhooks/{profile}           | POST   | ''",
        "/api/v1/session                      | POST   | ''",
        "/api/v1/session                      | DELETE | ''",
    })
    void theDescriptionStatesWhoMayMakeARequestAsTheFilterDecides(String path, String method, String roles) {
        List<String> expected = roles.isEmpty() ? List.of() : List.of(roles.split(" "));
        assertThat(AccessRules.documentedRoles(path, method)).isEqualTo(expected);
        // and it is what the filter's rule lets through
        for (String role : List.of(VIEWER, OPERATOR)) {
            if (!expected.isEmpty()) {
                assertThat(AccessRules.permits(path, method, false, List.of(role))).isEqualTo(expected.contains(role));
            }
        }
    }
}
