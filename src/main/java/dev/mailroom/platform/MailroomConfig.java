package dev.mailroom.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Mailroom's settings that are not a provider's own, read once through MicroProfile Config
 * (defaults in META-INF/microprofile-config.properties, overridden by environment variables).
 */
@ApplicationScoped
public class MailroomConfig {

    @Inject
    @ConfigProperty(name = "mailroom.provider", defaultValue = "sandbox")
    String provider;

    @Inject
    @ConfigProperty(name = "mailroom.queues", defaultValue = "mail.send")
    List<String> queues;

    @Inject
    @ConfigProperty(name = "mailroom.consumer.name", defaultValue = "mailroom-sender")
    String consumerName;

    @Inject
    @ConfigProperty(name = "mailroom.job.max-bytes", defaultValue = "1048576")
    int jobMaxBytes;

    @Inject
    @ConfigProperty(name = "mailroom.templates.dir")
    Optional<String> templatesDir;

    public String provider() { return provider.trim().toLowerCase(); }

    /** The send queues; each has its dead-letter queue {@code DLQ.<queue>}. */
    public List<String> queues() { return queues; }

    /** The name dead letters record as their {@code consumer}. */
    public String consumerName() { return consumerName; }

    public int jobMaxBytes() { return jobMaxBytes; }

    public Optional<String> templatesDir() { return templatesDir.filter(s -> !s.isBlank()); }
}
