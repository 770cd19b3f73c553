package dev.mailroom.it.support;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Client of the Mailroom REST API for integration tests ({@code java.net.http} + Jackson). Paths are relative to
 * the base URL ({@code http://127.0.0.1:<http>/mailroom}), e.g. {@code "/api/v1/health"}.
 */
public final class ApiClient {

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(200);

    private final String baseUrl;
    private final HttpClient http;
    private final ObjectMapper mapper;

    public ApiClient(String baseUrl) {
        this(baseUrl, new ObjectMapper());
    }

    public ApiClient(String baseUrl, ObjectMapper mapper) {
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.mapper = mapper;
        this.http = HttpClient.newBuilder()
                .proxy(HttpClient.Builder.NO_PROXY)
                .connectTimeout(Duration.ofSeconds(5))
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    public String baseUrl() {
        return baseUrl;
    }

    public ObjectMapper mapper() {
        return mapper;
    }

    public URI uri(String path) {
        return URI.create(baseUrl + (path.startsWith("/") ? path : "/" + path));
    }

    /** GET; any status is returned (IO failures throw). */
    public HttpResponse<String> get(String path) {
        HttpRequest request = HttpRequest.newBuilder(uri(path))
                .timeout(REQUEST_TIMEOUT)
                .header("Accept", "application/json")
                .GET()
                .build();
        return send(request);
    }

    /** POST with a JSON body (null: none); any status is returned (IO failures throw). */
    public HttpResponse<String> post(String path, String json) {
        HttpRequest request = HttpRequest.newBuilder(uri(path))
                .timeout(REQUEST_TIMEOUT)
                .header("Accept", "application/json")
                .header("Content-Type", "application/json")
                .POST(json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json))
                .build();
        return send(request);
    }

    /** GET expecting 200 and a JSON body; anything else throws an AssertionError with status and body. */
    public JsonNode getJson(String path) {
        HttpResponse<String> r = get(path);
        if (r.statusCode() != 200) {
            throw new AssertionError("GET " + uri(path) + " answered " + r.statusCode() + ", expected 200; body: "
                    + r.body());
        }
        return parse(r, path);
    }

    /**
     * Polls {@code GET path} every 200 ms until it answers 200 with a body matching {@code until}; returns that body.
     * On timeout throws an AssertionError with the last status and body (connection failures, e.g. while the
     * server restarts, count as "not yet").
     */
    public JsonNode awaitJson(String path, Predicate<JsonNode> until, Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        String last = "no answer";
        while (true) {
            try {
                HttpResponse<String> r = get(path);
                if (r.statusCode() == 200) {
                    JsonNode body = parse(r, path);
                    if (until.test(body)) {
                        return body;
                    }
                    last = "200: " + r.body();
                } else {
                    last = r.statusCode() + ": " + r.body();
                }
            } catch (IllegalStateException | AssertionError e) {
                last = e.getMessage();
            }
            if (!Instant.now().isBefore(deadline)) {
                throw new AssertionError("GET " + uri(path) + " did not satisfy the condition within "
                        + timeout.toMillis() + " ms; last answer " + last);
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("Interrupted while polling " + uri(path) + "; last answer " + last, e);
            }
        }
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(request.method() + " " + request.uri() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted during " + request.method() + " " + request.uri(), e);
        }
    }

    private JsonNode parse(HttpResponse<String> r, String path) {
        try {
            return mapper.readTree(r.body());
        } catch (IOException e) {
            throw new AssertionError("GET " + uri(path) + " answered " + r.statusCode() + " with a body that is not JSON: "
                    + r.body(), e);
        }
    }
}
