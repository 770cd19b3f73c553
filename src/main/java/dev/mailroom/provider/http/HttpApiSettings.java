package dev.mailroom.provider.http;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * Where and how {@link HttpApiProvider} calls one HTTP mail API. Everything that differs between APIs
 * is data here or in the {@link HttpApiProfile}.
 *
 * @param baseUrl               the API's base URL ({@code https://api.resend.com}); may carry a path prefix
 * @param path                  appended to the base URL ({@code /emails})
 * @param authHeaderName        the header that carries the credential, or null for none
 * @param authValue             its whole value ({@code "Bearer re_..."}); never printed by {@link #toString()}
 * @param idempotencyHeaderName the header that carries the job's idempotency key, or null when the API
 *                              has none (then the provider does not claim to deduplicate)
 * @param connectTimeout        bound on the TCP (and TLS) connect
 * @param requestTimeout        bound on waiting for the response once the request is under way
 * @param profile               how bodies are built and responses read
 */
public record HttpApiSettings(
        URI baseUrl,
        String path,
        String authHeaderName,
        String authValue,
        String idempotencyHeaderName,
        Duration connectTimeout,
        Duration requestTimeout,
        HttpApiProfile profile) {

    public HttpApiSettings {
        Objects.requireNonNull(baseUrl, "baseUrl");
        if (baseUrl.getScheme() == null || !baseUrl.getScheme().matches("(?i)https?")) {
            throw new IllegalArgumentException("baseUrl must be http(s): " + baseUrl);
        }
        path = path == null ? "" : path;
        requirePositive(connectTimeout, "connectTimeout");
        requirePositive(requestTimeout, "requestTimeout");
        Objects.requireNonNull(profile, "profile");
    }

    /** Settings with the profile's defaults for path and headers, authenticated by {@code apiKey}. */
    public static HttpApiSettings forProfile(HttpApiProfile profile, URI baseUrl, String apiKey,
                                             Duration connectTimeout, Duration requestTimeout) {
        Objects.requireNonNull(profile, "profile");
        String auth = apiKey == null ? null : profile.authValuePrefix() + apiKey;
        return new HttpApiSettings(baseUrl, profile.defaultPath(), profile.defaultAuthHeaderName(), auth,
                profile.defaultIdempotencyHeaderName(), connectTimeout, requestTimeout, profile);
    }

    /** As {@link #forProfile(HttpApiProfile, URI, String, Duration, Duration)}, the profile selected by name. */
    public static HttpApiSettings forProfile(String profileName, URI baseUrl, String apiKey,
                                             Duration connectTimeout, Duration requestTimeout) {
        return forProfile(HttpApiProfile.named(profileName), baseUrl, apiKey, connectTimeout, requestTimeout);
    }

    /** The URL mails are POSTed to: base URL and path joined by exactly one slash. */
    public URI endpoint() {
        String base = baseUrl.toString();
        while (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        if (path.isEmpty()) {
            return URI.create(base);
        }
        return URI.create(base + (path.startsWith("/") ? path : "/" + path));
    }

    /** Like the record's own, but the credential never reaches a log. */
    @Override
    public String toString() {
        return "HttpApiSettings[baseUrl=" + baseUrl + ", path=" + path + ", authHeaderName=" + authHeaderName
                + ", authValue=" + (authValue == null ? "null" : "****")
                + ", idempotencyHeaderName=" + idempotencyHeaderName + ", connectTimeout=" + connectTimeout
                + ", requestTimeout=" + requestTimeout + ", profile=" + profile.name() + "]";
    }

    private static void requirePositive(Duration d, String name) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + d);
        }
    }
}
