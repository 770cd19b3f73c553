package dev.mailroom.provider.registry;

import dev.mailroom.provider.MailProvider;

import dev.mailroom.platform.MailroomConfig;
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
            default -> throw new IllegalStateException("mailroom.provider must be sandbox, smtp or http, not '"
                    + mailroom.provider() + "'");
        };
        LOG.info(() -> String.format("mail provider: %s", p.name()));
        return p;
    }

    static SmtpSettings smtpSettings(Config c) {
        return smtpSettings(key -> text(c, "mailroom.smtp." + key));
    }

    /** SMTP settings from {@code setting}, which answers a key without its prefix ({@code host}, {@code port}...). */
    static SmtpSettings smtpSettings(Function<String, Optional<String>> setting) {
        return new SmtpSettings(
                required(setting, "host"),
                Integer.parseInt(required(setting, "port")),
                SmtpSettings.StartTls.valueOf(required(setting, "starttls").toUpperCase(Locale.ROOT)),
                setting.apply("username").orElse(null),
                setting.apply("password").orElse(null),
                Duration.ofMillis(Long.parseLong(required(setting, "connect-timeout-ms"))),
                Duration.ofMillis(Long.parseLong(required(setting, "read-timeout-ms"))),
                setting.apply("helo-name").orElse(null),
                required(setting, "message-id-domain"));
    }

    static HttpApiSettings httpSettings(Config c) {
        return httpSettings(key -> text(c, "mailroom.http." + key));
    }

    /** HTTP API settings from {@code setting}, which answers a key without its prefix ({@code base-url}...). */
    static HttpApiSettings httpSettings(Function<String, Optional<String>> setting) {
        HttpApiSettings defaults = HttpApiSettings.forProfile(
                HttpApiProfile.named(required(setting, "profile")),
                URI.create(required(setting, "base-url")),
                setting.apply("api-key").orElse(null),
                Duration.ofMillis(Long.parseLong(required(setting, "connect-timeout-ms"))),
                Duration.ofMillis(Long.parseLong(required(setting, "request-timeout-ms"))));
        // Each of the profile's defaults can be overridden: an API that is "generic but not quite".
        return new HttpApiSettings(defaults.baseUrl(),
                setting.apply("path").orElse(defaults.path()),
                setting.apply("auth-header").orElse(defaults.authHeaderName()),
                defaults.authValue(),
                setting.apply("idempotency-header").orElse(defaults.idempotencyHeaderName()),
                defaults.connectTimeout(), defaults.requestTimeout(), defaults.profile());
    }

    private static String required(Function<String, Optional<String>> setting, String key) {
        return setting.apply(key).orElseThrow(() -> new java.util.NoSuchElementException(
                "provider setting '" + key + "' is not configured"));
    }

    static Optional<String> text(Config c, String key) {
        return c.getOptionalValue(key, String.class).map(String::trim).filter(s -> !s.isEmpty());
    }
}
