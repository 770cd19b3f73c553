package dev.mailroom.alert;

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
 * mailroom.alerts.webhook.url             (unset: no webhook, alerts go to the log only;
 *                                          https://user:password@host/... sends basic auth)
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
    /** The URL without user-info: what is requested and logged. */
    private final URI target;
    /** {@code Basic ...} from the URL's user-info, or null: Alertmanager is often behind basic auth. */
    private final String authorization;
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
        try {
            this.target = new URI(url.getScheme(), null, url.getHost(), url.getPort(), url.getPath(), url.getQuery(), null);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("webhook URL " + url.getHost() + ": " + e.getMessage(), e);
        }
        this.authorization = url.getUserInfo() == null ? null : "Basic " + java.util.Base64.getEncoder()
                .encodeToString(url.getUserInfo().getBytes(StandardCharsets.UTF_8));
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
        // never the user-info part: it carries the basic-auth credentials
        return "webhook " + target;
    }

    /** Where alerts are POSTed, without the credentials. */
    public URI url() {
        return target;
    }

    @Override
    public void deliver(List<Alert> alerts) throws IOException, InterruptedException {
        if (alerts.isEmpty()) {
            return;
        }
        String body = Alert.alertmanagerBody(alerts, clock.instant(), resolveAfter, generatorBase);
        HttpRequest.Builder request = HttpRequest.newBuilder(target)
                .timeout(requestTimeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
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
