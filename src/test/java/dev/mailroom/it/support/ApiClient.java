package dev.mailroom.it.support;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Client of the Mailroom REST API for integration tests ({@code java.net.http} + Jackson). Paths are relative to
 * the base URL ({@code http://127.0.0.1:<http>/mailroom}), e.g. {@code "/api/v1/health"}.
 *
 * <p>Authenticates with HTTP Basic as the embedded default's operator ({@link #OPERATOR_USER}, the user the
 * Maven build adds through configure.sh) unless made with {@link #as(String, String)} or {@link #anonymous()}.
 */
public final class ApiClient {

    /** The embedded default's documented users (pom.xml passes them to configure.sh). */
    public static final String OPERATOR_USER = "operator";
    public static final String OPERATOR_PASSWORD = "operator-pass";
    public static final String VIEWER_USER = "viewer";
    public static final String VIEWER_PASSWORD = "viewer-pass";

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(200);

    private final String baseUrl;
    private final HttpClient http;
    private final ObjectMapper mapper;
    /** The {@code Authorization} header value, or null for anonymous requests. */
    private final String authorization;

    public ApiClient(String baseUrl) {
        this(baseUrl, new ObjectMapper());
    }

    public ApiClient(String baseUrl, ObjectMapper mapper) {
        this(baseUrl, mapper, basic(OPERATOR_USER, OPERATOR_PASSWORD));
    }

    private ApiClient(String baseUrl, ObjectMapper mapper, String authorization) {
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.mapper = mapper;
        this.authorization = authorization;
        this.http = HttpClient.newBuilder()
                .proxy(HttpClient.Builder.NO_PROXY)
                .connectTimeout(Duration.ofSeconds(5))
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    /** The same API as another user (HTTP Basic). */
    public ApiClient as(String user, String password) {
        return new ApiClient(baseUrl, mapper, basic(user, password));
    }

    /** The same API as the embedded default's viewer. */
    public ApiClient asViewer() {
        return as(VIEWER_USER, VIEWER_PASSWORD);
    }

    /** The same API without credentials. */
    public ApiClient anonymous() {
        return new ApiClient(baseUrl, mapper, null);
    }

    /** {@code Basic base64(user:password)}. */
    public static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
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

    /** A request to {@code path} with this client's credentials, timeout and {@code Accept: application/json}. */
    public HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path))
                .timeout(REQUEST_TIMEOUT)
                .header("Accept", "application/json");
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return b;
    }

    /** GET; any status is returned (IO failures throw). */
    public HttpResponse<String> get(String path) {
        return send(request(path).GET().build());
    }

    /** POST a JSON body ({@code null}: no body); any status is returned. */
    public HttpResponse<String> post(String path, String json) {
        return send(withJson(request(path), "POST", json).build());
    }

    /** PUT a JSON body ({@code null}: no body); any status is returned. */
    public HttpResponse<String> put(String path, String json) {
        return send(withJson(request(path), "PUT", json).build());
    }

    /** DELETE; any status is returned. */
    public HttpResponse<String> delete(String path) {
        return send(request(path).DELETE().build());
    }

    /** POST expecting {@code status} and a JSON body; anything else throws an AssertionError with status and body. */
    public JsonNode postJson(String path, String json, int status) {
        HttpResponse<String> r = post(path, json);
        if (r.statusCode() != status) {
            throw new AssertionError("POST " + uri(path) + " answered " + r.statusCode() + ", expected " + status
                    + "; body: " + r.body());
        }
        return parse(r, path);
    }

    private static HttpRequest.Builder withJson(HttpRequest.Builder b, String method, String json) {
        if (json == null) {
            return b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        return b.header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8));
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

    /** Sends any request (e.g. one built from {@link #request(String)}); IO failures throw IllegalStateException. */
    public HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(request.method() + " " + request.uri() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted during " + request.method() + " " + request.uri(), e);
        }
    }

    /** The JSON body of a response. */
    public JsonNode parse(HttpResponse<String> r, String path) {
        try {
            return mapper.readTree(r.body());
        } catch (IOException e) {
            throw new AssertionError("GET " + uri(path) + " answered " + r.statusCode() + " with a body that is not JSON: "
                    + r.body(), e);
        }
    }
}
