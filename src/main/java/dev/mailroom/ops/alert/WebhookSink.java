package dev.mailroom.ops.alert;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * POSTs alerts as an Alertmanager v2 body (a JSON array, see {@link Alert#toAlertmanagerJson}) to a
 * webhook: Alertmanager's own {@code /api/v2/alerts}, or anything that takes that shape. Any answer
 * but 2xx, a refused connection or a timeout is a failure; the dispatcher keeps the alerts and retries.
 * Both timeouts are bounded so a receiver that hangs delays only the alert thread, and only that long.
 *
 * <pre>
 * mailroom.alerts.webhook.url             (unset: no webhook, alerts go to the log only)
 * mailroom.alerts.webhook.connect-timeout = 2s
 * mailroom.alerts.webhook.request-timeout = 10s
 * mailroom.alerts.resolve-after           = 1h   (endsAt = the later of last occurrence and sending, plus this)
 * mailroom.alerts.generator-url           = http://127.0.0.1:8080/mailroom/api/v1/dead-letters
 * </pre>
 */
public final class WebhookSink implements AlertSink {

    public static final String URL = AlertConfig.PREFIX + "webhook.url";
    public static final String CONNECT_TIMEOUT = AlertConfig.PREFIX + "webhook.connect-timeout";
    public static final String REQUEST_TIMEOUT = AlertConfig.PREFIX + "webhook.request-timeout";
    public static final String RESOLVE_AFTER = AlertConfig.PREFIX + "resolve-after";
    public static final String GENERATOR_URL = AlertConfig.PREFIX + "generator-url";

    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);
    /** How much of a refusing receiver's answer goes into the failure message. */
    private static final int MAX_ERROR_BODY = 300;

    private final URI url;
    private final Duration requestTimeout;
    private final Duration resolveAfter;
    private final URI generatorBase;
    private final Clock clock;
    private final HttpClient http;

    /**
     * @param generatorBase the dead-letter listing linked from each alert, or null for no link
     */
    public WebhookSink(URI url, Duration connectTimeout, Duration requestTimeout, Duration resolveAfter,
            URI generatorBase, Clock clock) {
        this.url = Objects.requireNonNull(url, "url");
        this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
        this.resolveAfter = Objects.requireNonNull(resolveAfter, "resolveAfter");
        this.generatorBase = generatorBase;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.http = HttpClient.newBuilder()
                .connectTimeout(Objects.requireNonNull(connectTimeout, "connectTimeout"))
                // plain HTTP/1.1: no h2c upgrade dance with receivers that do not expect it
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    /**
     * The webhook of {@code mailroom.alerts.webhook.url}, or empty when it is unset.
     *
     * @throws IllegalArgumentException naming the key of a value that cannot be used
     */
    public static Optional<WebhookSink> fromConfig(Function<String, Optional<String>> config, Clock clock) {
        AlertConfig c = new AlertConfig(config);
        Optional<URI> url = c.httpUrl(URL);
        Duration connect = c.duration(CONNECT_TIMEOUT, DEFAULT_CONNECT_TIMEOUT);
        Duration request = c.duration(REQUEST_TIMEOUT, DEFAULT_REQUEST_TIMEOUT);
        Duration resolve = c.duration(RESOLVE_AFTER, Alert.DEFAULT_RESOLVE_AFTER);
        URI generator = c.httpUrl(GENERATOR_URL).orElse(Alert.DEFAULT_GENERATOR_URL);
        return url.map(u -> new WebhookSink(u, connect, request, resolve, generator, clock));
    }

    @Override
    public String name() {
        // never the user-info part: a URL may carry basic-auth credentials
        return "webhook " + url.getScheme() + "://" + url.getHost() + (url.getPort() < 0 ? "" : ":" + url.getPort())
                + (url.getRawPath() == null ? "" : url.getRawPath());
    }

    public URI url() {
        return url;
    }

    @Override
    public void deliver(List<Alert> alerts) throws IOException, InterruptedException {
        if (alerts.isEmpty()) {
            return;
        }
        String body = Alert.alertmanagerBody(alerts, clock.instant(), resolveAfter, generatorBase);
        HttpRequest request = HttpRequest.newBuilder(url)
                .timeout(requestTimeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        int status = response.statusCode();
        if (status < 200 || status > 299) {
            String answer = response.body() == null ? "" : response.body();
            if (answer.length() > MAX_ERROR_BODY) {
                answer = answer.substring(0, MAX_ERROR_BODY) + "...";
            }
            throw new IOException(name() + " answered " + status + (answer.isBlank() ? "" : ": " + answer.strip()));
        }
    }
}
