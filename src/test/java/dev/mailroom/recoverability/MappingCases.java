package dev.mailroom.recoverability;

import static dev.mailroom.recoverability.FailureClass.AMBIGUOUS;
import static dev.mailroom.recoverability.FailureClass.CONTENT_POLICY;
import static dev.mailroom.recoverability.FailureClass.PERMANENT_RECIPIENT;
import static dev.mailroom.recoverability.FailureClass.POISON;
import static dev.mailroom.recoverability.FailureClass.SOFT_BOUNCE;
import static dev.mailroom.recoverability.FailureClass.SYSTEMIC;
import static dev.mailroom.recoverability.FailureClass.THROTTLED;
import static dev.mailroom.recoverability.FailureClass.TRANSIENT;
import static dev.mailroom.recoverability.FailureClass.UNKNOWN;

import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.provider.ProviderResponse.Status;
import java.time.Duration;
import java.util.List;

/**
 * The mapping-table cases: provider answers as {@code SmtpProvider} and {@code HttpApiProvider} report
 * them, with the class and the row each must come to. {@link MappingTablesCoverageTest} checks that
 * together they reach every row of the shipped tables.
 */
final class MappingCases {

    /**
     * @param profile the http profile to classify with (null for providers without profiles)
     * @param rule    the id of the row that must decide, or null when none may (unmapped)
     */
    record Case(String name, ProviderResponse response, String profile, FailureClass expected, String rule) {
        @Override
        public String toString() {
            return name;
        }
    }

    private MappingCases() {
    }

    static ProviderResponse smtp(String code, String enhanced, String text) {
        return new ProviderResponse(Status.REJECTED, "smtp", code, enhanced, text, null, null, null);
    }

    static ProviderResponse fault(String provider, Status status, String errorType, String text) {
        return new ProviderResponse(status, provider, null, null, text, null, null, errorType);
    }

    static ProviderResponse http(String code, String apiError, String body, Duration retryAfter) {
        return new ProviderResponse(Status.REJECTED, "http", code, apiError, body, null, retryAfter, null);
    }

    private static Case smtpCase(String code, String enhanced, String text, FailureClass expected, String rule) {
        String name = "smtp " + (code == null ? "" : code) + (enhanced == null ? "" : " " + enhanced)
                + (text == null ? "" : " '" + text + "'");
        return new Case(name, smtp(code, enhanced, (code + " " + (enhanced == null ? "" : enhanced + " ")
                + (text == null ? "" : text)).trim()), null, expected, rule);
    }

    private static Case smtpFault(Status status, String errorType, FailureClass expected, String rule) {
        return new Case("smtp " + status + " " + errorType, fault("smtp", status, errorType, errorType + ": boom"),
                null, expected, rule);
    }

    private static Case httpCase(String profile, String code, String apiError, String body, FailureClass expected,
                                 String rule) {
        return new Case("http/" + profile + " " + code + (apiError == null ? "" : " " + apiError)
                + (body == null ? "" : " '" + body + "'"), http(code, apiError, body, null), profile, expected, rule);
    }

    private static Case httpFault(String profile, Status status, String errorType, FailureClass expected, String rule) {
        return new Case("http/" + profile + " " + status + " " + errorType,
                fault("http", status, errorType, errorType + ": boom"), profile, expected, rule);
    }

    static List<Case> smtpCases() {
        return List.of(
                // connection level
                smtpFault(Status.NOT_CONNECTED, "jakarta.mail.AuthenticationFailedException", SYSTEMIC,
                        "not-connected-auth-mechanism"),
                smtpFault(Status.NOT_CONNECTED, "java.net.ConnectException", TRANSIENT, "not-connected"),
                smtpFault(Status.NOT_CONNECTED, "java.net.SocketException", TRANSIENT, "not-connected"),
                smtpFault(Status.NOT_CONNECTED, "javax.net.ssl.SSLHandshakeException", TRANSIENT, "not-connected"),
                smtpFault(Status.NOT_CONNECTED, "java.net.UnknownHostException", TRANSIENT, "not-connected"),
                smtpFault(Status.AMBIGUOUS, "java.net.SocketTimeoutException", AMBIGUOUS, "ambiguous"),
                // our login and relay configuration
                smtpCase("535", "5.7.8", "Error: authentication failed", SYSTEMIC, "auth-rejected"),
                smtpCase("535", "5.7.0", "Authentication credentials invalid", SYSTEMIC, "auth-rejected"),
                smtpCase("535", null, "Authentication failed", SYSTEMIC, "auth-rejected"),
                smtpCase("530", "5.7.0", "Must issue a STARTTLS command first", SYSTEMIC, "auth-required"),
                smtpCase("554", "5.7.11", "Encryption required for requested authentication mechanism", SYSTEMIC,
                        "auth-enhanced"),
                smtpCase("554", "5.7.1", "<bob@example.org>: Relay access denied", SYSTEMIC, "relay-denied"),
                // recipients
                smtpCase("550", "5.1.1", "<bob@example.org>: Recipient address rejected: User unknown",
                        PERMANENT_RECIPIENT, "no-such-mailbox"),
                smtpCase("550", "5.1.0", "Address rejected", PERMANENT_RECIPIENT, "no-such-mailbox"),
                smtpCase("553", "5.1.3", "Bad recipient address syntax", PERMANENT_RECIPIENT, "no-such-mailbox"),
                smtpCase("550", "5.2.1", "The email account that you tried to reach is disabled",
                        PERMANENT_RECIPIENT, "no-such-mailbox"),
                smtpCase("550", "5.1.2", "Host unknown", PERMANENT_RECIPIENT, "no-such-domain"),
                smtpCase("556", "5.1.10", "Recipient address has null MX", PERMANENT_RECIPIENT, "no-such-domain"),
                smtpCase("550", "5.4.4", "Host or domain name not found", PERMANENT_RECIPIENT, "no-such-domain"),
                // mailbox full, size, recipients per transaction
                smtpCase("552", "5.2.2", "Mailbox full", SOFT_BOUNCE, "mailbox-full"),
                smtpCase("452", "4.2.2", "The email account that you tried to reach is over quota", SOFT_BOUNCE,
                        "mailbox-full"),
                smtpCase("550", "4.2.2", "mailbox full (a 5yz reply with a temporary enhanced code)", SOFT_BOUNCE,
                        "mailbox-full"),
                smtpCase("552", "5.3.4", "Message size exceeds fixed limit", CONTENT_POLICY, "message-too-big"),
                smtpCase("552", "5.2.3", "Message length exceeds administrative limit", CONTENT_POLICY,
                        "message-too-big"),
                smtpCase("452", "4.5.3", "Too many recipients", TRANSIENT, "too-many-recipients"),
                // throttling
                smtpCase("421", "4.7.28", "Our system has detected an unusual rate of unsolicited mail", THROTTLED,
                        "rate-limited-code"),
                smtpCase("421", "4.7.0", "Try again later, closing connection. Rate limited", THROTTLED,
                        "rate-limited-text"),
                smtpCase("451", "4.7.1", "Too many connections from your IP", THROTTLED, "rate-limited-text"),
                smtpCase("421", null, "Too many messages, slow down", THROTTLED, "rate-limited-text"),
                // greylisting
                smtpCase("450", "4.7.1", "<bob@example.org>: Recipient address rejected: Greylisted", SOFT_BOUNCE,
                        "greylisted"),
                smtpCase("451", "4.7.1", "Please try again later", SOFT_BOUNCE, "greylisted"),
                smtpCase("451", null, "Greylisting in action, please come back later", SOFT_BOUNCE,
                        "greylisted-text"),
                // content and policy
                smtpCase("550", "5.7.1", "Message rejected due to content restrictions", CONTENT_POLICY, "policy"),
                smtpCase("554", "5.7.1", "Message rejected as spam", CONTENT_POLICY, "policy"),
                smtpCase("550", "5.7.26", "Unauthenticated email is not accepted (DMARC)", CONTENT_POLICY, "policy"),
                smtpCase("550", null, "Message rejected as spam", CONTENT_POLICY, "policy-text"),
                // temporary
                smtpCase("451", "4.3.0", "Temporary lookup failure", TRANSIENT, "temporary-enhanced"),
                smtpCase("421", "4.7.0", "Temporary System Problem", TRANSIENT, "temporary-enhanced"),
                smtpCase("554", "4.4.1", "Connection timed out (5yz reply, temporary enhanced code)", TRANSIENT,
                        "temporary-enhanced"),
                smtpCase("421", null, "Service not available, closing transmission channel", TRANSIENT,
                        "service-unavailable"),
                smtpCase("451", null, "Requested action aborted: local error in processing", TRANSIENT,
                        "service-unavailable"),
                smtpCase("450", null, "Requested mail action not taken: mailbox busy", TRANSIENT, "temporary"),
                smtpCase("454", null, "TLS not available due to temporary reason", TRANSIENT, "temporary"),
                // bare permanent codes
                smtpCase("550", null, "Requested action not taken: mailbox unavailable", PERMANENT_RECIPIENT,
                        "bad-mailbox-bare"),
                smtpCase("551", null, "User not local", PERMANENT_RECIPIENT, "bad-mailbox-bare"),
                smtpCase("553", null, "Requested action not taken: mailbox name not allowed", PERMANENT_RECIPIENT,
                        "bad-mailbox-bare"),
                // unmapped
                smtpCase("550", "5.4.1", "Recipient address rejected: Access denied", UNKNOWN, "unmapped-enhanced"),
                smtpCase("550", "5.9.9", "something new", UNKNOWN, "unmapped-enhanced"),
                smtpCase("554", null, "Transaction failed", UNKNOWN, "permanent-unmapped"),
                smtpCase("552", null, "Requested mail action aborted: exceeded storage allocation", UNKNOWN,
                        "permanent-unmapped"));
    }

    static List<Case> httpCases() {
        return List.of(
                // generic profile: body codes of 400/422
                httpCase("generic", "400", "invalid_recipient", "{\"error\":{\"code\":\"invalid_recipient\"}}",
                        PERMANENT_RECIPIENT, "generic-bad-recipient"),
                httpCase("generic", "422", "recipient_rejected", null, PERMANENT_RECIPIENT, "generic-bad-recipient"),
                httpCase("generic", "422", "recipient_suppressed", null, PERMANENT_RECIPIENT, "generic-bad-recipient"),
                httpCase("generic", "400", "invalid_domain", null, PERMANENT_RECIPIENT, "generic-bad-recipient"),
                httpCase("generic", "422", "validation_error", null, POISON, "generic-bad-payload"),
                httpCase("generic", "400", "invalid_payload", null, POISON, "generic-bad-payload"),
                httpCase("generic", "400", "schema_violation", null, POISON, "generic-bad-payload"),
                httpCase("generic", "422", "missing_field", null, POISON, "generic-bad-payload"),
                httpCase("generic", "400", null, "Bad Request", UNKNOWN, "http-unknown-body-code"),
                httpCase("generic", "422", "something_new", null, UNKNOWN, "http-unknown-body-code"),
                httpCase("generic", "422", "missing_required_field", null, UNKNOWN, "http-unknown-body-code"),
                httpCase("generic", "404", "invalid_recipient", null, UNKNOWN, null),
                // status rows, whatever the profile
                httpCase("generic", "401", null, null, SYSTEMIC, "http-credentials"),
                httpCase("generic", "403", null, null, SYSTEMIC, "http-credentials"),
                httpCase("generic", "408", null, null, TRANSIENT, "http-request-timeout"),
                httpCase("generic", "413", null, null, CONTENT_POLICY, "http-too-large"),
                new Case("http/generic 429 Retry-After 1s", http("429", null, null, Duration.ofSeconds(1)), "generic",
                        THROTTLED, "http-rate-limited"),
                httpCase("generic", "429", null, null, THROTTLED, "http-rate-limited"),
                httpCase("generic", "500", null, null, TRANSIENT, "http-server-error"),
                httpCase("generic", "502", null, null, TRANSIENT, "http-server-error"),
                httpCase("generic", "503", null, null, TRANSIENT, "http-server-error"),
                httpCase("generic", "504", null, null, TRANSIENT, "http-server-error"),
                httpFault("generic", Status.NOT_CONNECTED, "java.net.ConnectException", TRANSIENT, "http-not-connected"),
                httpFault("generic", Status.NOT_CONNECTED, "java.net.http.HttpConnectTimeoutException", TRANSIENT,
                        "http-not-connected"),
                httpFault("generic", Status.NOT_CONNECTED, "javax.net.ssl.SSLHandshakeException", TRANSIENT,
                        "http-not-connected"),
                httpFault("generic", Status.NOT_CONNECTED, "java.nio.channels.UnresolvedAddressException", TRANSIENT,
                        "http-not-connected"),
                httpFault("generic", Status.AMBIGUOUS, "java.util.concurrent.TimeoutException", AMBIGUOUS,
                        "http-ambiguous"),
                httpFault("generic", Status.AMBIGUOUS, "java.io.IOException", AMBIGUOUS, "http-ambiguous"),
                httpCase("generic", "418", null, "I'm a teapot", UNKNOWN, null),
                httpCase("generic", "409", null, null, UNKNOWN, null),
                // resend profile
                httpCase("resend", "422", "validation_error",
                        "{\"statusCode\":422,\"message\":\"Invalid `to` field. The email address needs to follow the "
                                + "`email@example.com` format.\",\"name\":\"validation_error\"}",
                        PERMANENT_RECIPIENT, "resend-bad-recipient"),
                httpCase("resend", "422", "validation_error",
                        "{\"statusCode\":422,\"message\":\"Invalid `from` field.\",\"name\":\"validation_error\"}",
                        POISON, "resend-bad-payload"),
                httpCase("resend", "400", "validation_error", "{\"message\":\"The `subject` field is required\"}",
                        POISON, "resend-bad-payload"),
                httpCase("resend", "422", "missing_required_field", null, POISON, "resend-bad-payload"),
                httpCase("resend", "422", "invalid_attachment", null, POISON, "resend-bad-payload"),
                httpCase("resend", "422", "invalid_parameter", null, POISON, "resend-bad-payload"),
                httpCase("resend", "422", "invalid_from_address", null, POISON, "resend-bad-payload"),
                httpCase("resend", "400", "invalid_idempotency_key", null, POISON, "resend-bad-payload"),
                httpCase("resend", "409", "concurrent_idempotent_requests", null, TRANSIENT,
                        "resend-idempotency-in-flight"),
                httpCase("resend", "409", "invalid_idempotent_request", null, UNKNOWN, null),
                httpCase("resend", "429", "daily_quota_exceeded", null, SYSTEMIC, "resend-quota"),
                httpCase("resend", "429", "monthly_quota_exceeded", null, SYSTEMIC, "resend-quota"),
                httpCase("resend", "429", "rate_limit_exceeded", null, THROTTLED, "http-rate-limited"),
                httpCase("resend", "451", "security_error", null, CONTENT_POLICY, "resend-security"),
                httpCase("resend", "403", "validation_error", "You can only send testing emails to your own address",
                        SYSTEMIC, "http-credentials"),
                httpCase("resend", "401", "missing_api_key", null, SYSTEMIC, "http-credentials"),
                httpCase("resend", "422", "invalid_recipient", null, UNKNOWN, "http-unknown-body-code"),
                httpCase("resend", "500", "application_error", null, TRANSIENT, "http-server-error"),
                httpFault("resend", Status.AMBIGUOUS, "java.net.http.HttpTimeoutException", AMBIGUOUS,
                        "http-ambiguous"));
    }
}
