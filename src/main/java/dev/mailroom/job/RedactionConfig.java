package dev.mailroom.job;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** The configured {@link PayloadRedaction}: {@code mailroom.redact.fields}, a comma-separated list of member names. */
@ApplicationScoped
public class RedactionConfig {

    @Inject
    @ConfigProperty(name = "mailroom.redact.fields", defaultValue = PayloadRedaction.DEFAULT_FIELDS)
    String fields;

    @Produces
    @jakarta.inject.Singleton
    PayloadRedaction redaction() {
        return PayloadRedaction.of(fields);
    }
}
