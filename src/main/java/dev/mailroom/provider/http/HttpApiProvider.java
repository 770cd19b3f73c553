package dev.mailroom.provider.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mailroom.provider.MailProvider;
import dev.mailroom.provider.OutboundMail;
import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.provider.ProviderResponse.Status;
import dev.mailroom.provider.SendCheckpoint;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.channels.UnresolvedAddressException;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLHandshakeException;

/**
 * Sends one mail as one JSON POST to an HTTP mail API described by {@link HttpApiSettings} and its
 * {@link HttpApiProfile}. The job's idempotency key goes in the API's idempotency header, so an
 * ambiguous attempt may be repeated with the same key and the API drops the duplicate.
 *
 * <p>The checkpoint runs immediately before the request is handed to the client. The client connects
 * lazily inside that call, so a refused or timed-out connect is reported {@code NOT_CONNECTED} although
 * the checkpoint has run: nothing was written. Every other fault after the checkpoint is
 * {@code AMBIGUOUS}. A response (any status) is an answer: 2xx {@code ACCEPTED}, anything else
 * {@code REJECTED} with the status, the API's error code, the body and {@code Retry-After}.
 */
public final class HttpApiProvider implements MailProvider {

    public static final String NAME = "http";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpApiSettings settings;
    private final Clock clock;
    private final HttpClient client;

    public HttpApiProvider(HttpApiSettings settings) {
        this(settings, Clock.systemUTC());
    }

    /** @param clock the "now" an HTTP-date {@code Retry-After} is measured from */
    public HttpApiProvider(HttpApiSettings settings, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(settings.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    @Override
    public String name() {
        return NAME;
    }

    /** This instance's own profile classifies its answers (a chain may hold a generic and a resend API). */
    @Override
    public java.util.Optional<String> mappingProfile() {
        return java.util.Optional.of(settings.profile().name());
    }

    /** True whenever an idempotency header is configured, as it is for every built-in profile. */
    @Override
    public boolean dedupesByIdempotencyKey() {
        return settings.idempotencyHeaderName() != null;
    }

    /**
     * When it dedupes: the checkpoint already comes before the connection is made (only the request body is built
     * before it), so an attempt recorded past its point of no return with the claim is sent again under its key by
     * a redelivery, as one whose worker died in the call is.
     */
    @Override
    public boolean irrevocableFromTheStart() {
        return dedupesByIdempotencyKey();
    }

    @Override
    public ProviderResponse send(OutboundMail mail, SendCheckpoint checkpoint) {
        Objects.requireNonNull(mail, "mail");
        Objects.requireNonNull(checkpoint, "checkpoint");
        HttpRequest request = request(mail); // every refusal of our own input happens before the checkpoint
        checkpoint.beforeIrrevocableWrite();
        CompletableFuture<HttpResponse<String>> call = client.sendAsync(request, BodyHandlers.ofString());
        try {
            return answer(call.get(backstopMillis(), TimeUnit.MILLISECONDS));
        } catch (ExecutionException e) {
            return fault(e.getCause() != null ? e.getCause() : e);
        } catch (TimeoutException e) {
            call.cancel(true);
            return new ProviderResponse(Status.AMBIGUOUS, NAME, null, null,
                    "response not complete after " + backstopMillis() + " ms", null, null, e.getClass().getName());
        } catch (InterruptedException e) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            return new ProviderResponse(Status.AMBIGUOUS, NAME, null, null, e.toString(), null, null,
                    e.getClass().getName());
        }
    }

    private HttpRequest request(OutboundMail mail) {
        String key = mail.idempotencyKey() != null ? mail.idempotencyKey() : mail.messageId();
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("idempotency key (or message id) is required");
        }
        byte[] body;
        try {
            body = JSON.writeValueAsBytes(settings.profile().bodyFormat().render(mail, key, JSON));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise the request body", e);
        }
        HttpRequest.Builder b = HttpRequest.newBuilder(settings.endpoint())
                .timeout(settings.requestTimeout())
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .header("User-Agent", "mailroom")
                .POST(BodyPublishers.ofByteArray(body));
        if (settings.authHeaderName() != null && settings.authValue() != null) {
            b.header(settings.authHeaderName(), settings.authValue());
        }
        if (settings.idempotencyHeaderName() != null) {
            b.header(settings.idempotencyHeaderName(), key); // refuses CR/LF with IllegalArgumentException
        }
        return b.build();
    }

    /**
     * The client's request timeout is only sure to cover the wait for the response headers; this
     * bounds the whole exchange, body included, so an API that stalls mid-body cannot hold the worker.
     */
    private long backstopMillis() {
        return settings.connectTimeout().plus(settings.requestTimeout().multipliedBy(2)).toMillis();
    }

    private ProviderResponse answer(HttpResponse<String> response) {
        int status = response.statusCode();
        String body = response.body() == null || response.body().isEmpty() ? null : response.body();
        if (status >= 200 && status < 300) {
            return ProviderResponse.accepted(NAME, String.valueOf(status), body, messageId(response, body));
        }
        Duration retryAfter = response.headers().firstValue("Retry-After")
                .map(v -> retryAfter(v, clock)).orElse(null);
        return new ProviderResponse(Status.REJECTED, NAME, String.valueOf(status),
                atPointer(body, settings.profile().errorCodePointer()), body, null, retryAfter, null);
    }

    private String messageId(HttpResponse<String> response, String body) {
        String header = settings.profile().messageIdHeader();
        if (header != null) {
            String fromHeader = response.headers().firstValue(header).orElse(null);
            if (fromHeader != null && !fromHeader.isBlank()) {
                return fromHeader.trim();
            }
        }
        return atPointer(body, settings.profile().messageIdPointer());
    }

    /** The scalar at {@code pointer} in a JSON body, or null when the body is not JSON or has none there. */
    static String atPointer(String body, String pointer) {
        if (body == null || pointer == null) {
            return null;
        }
        try {
            JsonNode node = JSON.readTree(body).at(pointer);
            return node.isValueNode() && !node.isNull() ? node.asText() : null;
        } catch (JsonProcessingException | RuntimeException notJson) {
            return null;
        }
    }

    /**
     * {@code Retry-After} as delta-seconds or as an HTTP-date (RFC 1123) relative to {@code clock};
     * a time in the past is zero, an unreadable value is null.
     */
    static Duration retryAfter(String value, Clock clock) {
        String v = value.trim();
        if (v.matches("-?\\d{1,18}")) {
            long seconds = Long.parseLong(v);
            return seconds <= 0 ? Duration.ZERO : Duration.ofSeconds(seconds);
        }
        try {
            Duration d = Duration.between(clock.instant(),
                    ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
            return d.isNegative() ? Duration.ZERO : d;
        } catch (DateTimeParseException unreadable) {
            return null;
        }
    }

    /** A call that ended without a response: nothing written if the connect failed, unknown otherwise. */
    private static ProviderResponse fault(Throwable thrown) {
        for (Throwable t : chain(thrown)) {
            if (t instanceof HttpConnectTimeoutException || t instanceof ConnectException
                    || t instanceof UnresolvedAddressException || t instanceof UnknownHostException
                    || t instanceof SSLHandshakeException) {
                return new ProviderResponse(Status.NOT_CONNECTED, NAME, null, null, thrown.toString(), null, null,
                        t.getClass().getName());
            }
        }
        return new ProviderResponse(Status.AMBIGUOUS, NAME, null, null, thrown.toString(), null, null,
                thrown.getClass().getName());
    }

    private static List<Throwable> chain(Throwable start) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable t = start; t != null && chain.size() < 32 && !chain.contains(t); t = t.getCause()) {
            chain.add(t);
        }
        return chain;
    }

}
