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
        return new SmtpSettings(
                c.getValue("mailroom.smtp.host", String.class),
                c.getValue("mailroom.smtp.port", Integer.class),
                SmtpSettings.StartTls.valueOf(c.getValue("mailroom.smtp.starttls", String.class).trim().toUpperCase(Locale.ROOT)),
                text(c, "mailroom.smtp.username").orElse(null),
                text(c, "mailroom.smtp.password").orElse(null),
                Duration.ofMillis(c.getValue("mailroom.smtp.connect-timeout-ms", Long.class)),
                Duration.ofMillis(c.getValue("mailroom.smtp.read-timeout-ms", Long.class)),
                text(c, "mailroom.smtp.helo-name").orElse(null),
                c.getValue("mailroom.smtp.message-id-domain", String.class));
    }

    static HttpApiSettings httpSettings(Config c) {
        HttpApiSettings defaults = HttpApiSettings.forProfile(
                HttpApiProfile.named(c.getValue("mailroom.http.profile", String.class).trim()),
                URI.create(c.getValue("mailroom.http.base-url", String.class).trim()),
                text(c, "mailroom.http.api-key").orElse(null),
                Duration.ofMillis(c.getValue("mailroom.http.connect-timeout-ms", Long.class)),
                Duration.ofMillis(c.getValue("mailroom.http.request-timeout-ms", Long.class)));
        // Each of the profile's defaults can be overridden: an API that is "generic but not quite".
        return new HttpApiSettings(defaults.baseUrl(),
                text(c, "mailroom.http.path").orElse(defaults.path()),
                text(c, "mailroom.http.auth-header").orElse(defaults.authHeaderName()),
                defaults.authValue(),
                text(c, "mailroom.http.idempotency-header").orElse(defaults.idempotencyHeaderName()),
                defaults.connectTimeout(), defaults.requestTimeout(), defaults.profile());
    }

    private static Optional<String> text(Config c, String key) {
        return c.getOptionalValue(key, String.class).map(String::trim).filter(s -> !s.isEmpty());
    }
}
