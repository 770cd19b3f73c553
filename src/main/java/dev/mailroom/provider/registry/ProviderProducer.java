package dev.mailroom.provider.registry;

import dev.mailroom.provider.MailProvider;

import dev.mailroom.platform.MailroomConfig;
import dev.mailroom.platform.settings.InvalidSetting;
import dev.mailroom.platform.settings.SettingsReader;
import dev.mailroom.platform.settings.SettingsReader.Value;
import dev.mailroom.provider.http.HttpApiProfile;
import dev.mailroom.provider.http.HttpApiProvider;
import dev.mailroom.provider.http.HttpApiSettings;
import dev.mailroom.provider.sandbox.SandboxProvider;
import dev.mailroom.provider.smtp.SmtpProvider;
import dev.mailroom.provider.smtp.SmtpSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import org.eclipse.microprofile.config.Config;
import java.util.logging.Logger;

/** Builds the active {@link MailProvider} from configuration ({@code mailroom.provider} = sandbox|smtp|http). */
@ApplicationScoped
public class ProviderProducer {

    private static final Logger LOG = Logger.getLogger(ProviderProducer.class.getName());

    @Inject
    MailroomConfig mailroom;
    @Inject
    Config config;
    @Inject
    SandboxProvider sandbox;
    @Inject
    Clock clock;

    @Produces
    @ApplicationScoped
    MailProvider activeProvider() {
        MailProvider p = switch (mailroom.provider()) {
            case "sandbox" -> sandbox;
            case "smtp" -> new SmtpProvider(smtpSettings(config), clock);
            case "http" -> new HttpApiProvider(httpSettings(config), clock);
            default -> throw new InvalidSetting("mailroom.provider", mailroom.provider(), "sandbox, smtp or http");
        };
        LOG.info(() -> String.format("mail provider: %s", p.name()));
        return p;
    }

    static SmtpSettings smtpSettings(Config c) {
        SettingsReader reader = new SettingsReader(key -> c.getOptionalValue(key, String.class));
        return smtpSettings(key -> reader.find("mailroom.smtp." + key));
    }

    /**
     * SMTP settings from {@code setting}, which answers a key without its prefix ({@code host}, {@code port}...) with
     * the value and the full key it came from.
     */
    public static SmtpSettings smtpSettings(Function<String, Optional<Value>> setting) {
        return new SmtpSettings(
                required(setting, "host").text(),
                required(setting, "port").integer(1, 65535),
                required(setting, "starttls").as(t -> SmtpSettings.StartTls.valueOf(t.toUpperCase(Locale.ROOT)),
                        "none, optional or required"),
                optional(setting, "username"),
                optional(setting, "password"),
                millis(required(setting, "connect-timeout-ms")),
                millis(required(setting, "read-timeout-ms")),
                optional(setting, "helo-name"),
                required(setting, "message-id-domain").text());
    }

    static HttpApiSettings httpSettings(Config c) {
        SettingsReader reader = new SettingsReader(key -> c.getOptionalValue(key, String.class));
        return httpSettings(key -> reader.find("mailroom.http." + key));
    }

    /** HTTP API settings from {@code setting}, which answers a key without its prefix ({@code base-url}...). */
    public static HttpApiSettings httpSettings(Function<String, Optional<Value>> setting) {
        HttpApiSettings defaults = HttpApiSettings.forProfile(
                required(setting, "profile").as(HttpApiProfile::named, "a profile name: " + HttpApiProfile.names()),
                required(setting, "base-url").as(ProviderProducer::httpUrl, "an absolute http(s) URL"),
                optional(setting, "api-key"),
                millis(required(setting, "connect-timeout-ms")),
                millis(required(setting, "request-timeout-ms")));
        // Each of the profile's defaults can be overridden: an API that is "generic but not quite".
        return new HttpApiSettings(defaults.baseUrl(),
                setting.apply("path").map(Value::text).orElse(defaults.path()),
                setting.apply("auth-header").map(Value::text).orElse(defaults.authHeaderName()),
                defaults.authValue(),
                setting.apply("idempotency-header").map(Value::text).orElse(defaults.idempotencyHeaderName()),
                defaults.connectTimeout(), defaults.requestTimeout(), defaults.profile());
    }

    private static Value required(Function<String, Optional<Value>> setting, String key) {
        return setting.apply(key).orElseThrow(() -> new java.util.NoSuchElementException(
                "provider setting '" + key + "' is not configured"));
    }

    private static String optional(Function<String, Optional<Value>> setting, String key) {
        return setting.apply(key).map(Value::text).orElse(null);
    }

    private static URI httpUrl(String text) {
        URI uri = URI.create(text);
        if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
            throw new IllegalArgumentException("not http(s)");
        }
        return uri;
    }

    private static Duration millis(Value v) {
        return Duration.ofMillis(v.longInteger(1, Long.MAX_VALUE));
    }

}
